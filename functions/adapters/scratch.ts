/**
 * The render's scratch folders under the system's temporary folder (Lambda's /tmp, kept by a warm environment across
 * invocations). Each render removes its own; a run cut short (a timeout or a kill ends the process before its
 * `finally`) leaves one behind, so each new folder first removes those older than the longest render could be.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'order-';
/** Lambda's longest run (15 minutes) and a margin: no render still running owns an older folder. */
const STALE_MS = 20 * 60_000;

export const scratchFolders = {
  make(now = Date.now()): string {
    const root = tmpdir();
    for (const name of readdirSync(root)) {
      if (!name.startsWith(PREFIX)) continue;
      const path = join(root, name);
      try {
        if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
      } catch {
        // Removed meanwhile by its own render.
      }
    }
    return mkdtempSync(join(root, PREFIX));
  },
  remove: (dir: string) => rm(dir, { recursive: true, force: true }),
};
