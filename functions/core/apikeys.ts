/**
 * API keys: `vgk_<user id>_<43 chars of base64url secret>`. The user id inside the key lets one strongly consistent
 * read of the user's item both authenticate and load the account; only the SHA-256 of the whole key is stored. A
 * 256-bit random secret needs no slow hash: there is nothing to brute-force.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const API_KEY_PREFIX = 'vgk_';
const KEY_RE = /^vgk_([0-9A-HJKMNP-TV-Z]{26})_[A-Za-z0-9_-]{43}$/;

export function newApiKey(userId: string): { apiKey: string; hash: string } {
  const apiKey = `${API_KEY_PREFIX}${userId}_${randomBytes(32).toString('base64url')}`;
  return { apiKey, hash: hashApiKey(apiKey) };
}

const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

/** The user id a well-formed key names, or undefined for anything malformed. */
export function userIdOfKey(apiKey: string | undefined): string | undefined {
  return apiKey ? KEY_RE.exec(apiKey)?.[1] : undefined;
}

export function keyMatches(apiKey: string, storedHash: string | undefined): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashApiKey(apiKey), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
