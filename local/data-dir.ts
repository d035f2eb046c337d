/**
 * The local service's data folder is its owner's alone: it holds DynamoDB Local's database (key hashes, balances,
 * webhook secrets), the S3 store's files, the link-signing key and the demo user's key.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Sets this process's umask to 077, so that what it writes from now on is owner-only, and so is what its children
 * write (DynamoDB Local's Java inherits the umask; s3rver writes from this process); then makes `dir` and everything
 * already under it owner-only (folders 0700, files 0600), as an older start may have left it readable.
 */
export function ownerOnly(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const walk = (path: string) => {
    const stat = lstatSync(path);
    // A symbolic link is left as it is: chmod would follow it out of the folder.
    if (stat.isSymbolicLink()) return;
    chmodSync(path, stat.isDirectory() ? 0o700 : 0o600);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
}
