/**
 * Today's main before issue 27 (commit 46678a8), for the scale model: its core and adapters and its domain tests'
 * in-memory stores, taken out of git into a temporary folder at bench time and imported from there, so the model runs
 * that code itself, not a description of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/paths.ts';

export const OLD_COMMIT = '46678a8';

/** The old modules the model drives (their shapes as the model uses them; the code is the old commit's). */
export interface OldCode {
  capacity: { RenderQueue: new (p: any) => any };
  eta: { QueueViews: new (read: () => Promise<any>, maxAgeMs: number, expectMs: number, clock: () => number) => any; queuedEta: (...a: any[]) => number };
  sweep: { sweep: (p: any) => Promise<any> };
  adapter: { QueueReader: new (store: any, settings: any) => { read(now?: number): Promise<any> } };
  memory: { MemoryTable: new () => any; MemoryCapacity: new () => any; MemoryOrders: new (t: any) => any; MemoryEvents: new (t: any) => any };
  dispose(): void;
}

export async function loadOldCode(): Promise<OldCode> {
  const dir = mkdtempSync(join(tmpdir(), 'scale-old-'));
  const archive = execFileSync('git', ['-C', ROOT, 'archive', OLD_COMMIT, 'functions', 'test/domain', 'package.json'], { maxBuffer: 256 * 2 ** 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  // Its imports of packages resolve to this checkout's (the same lock file's) packages.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const load = (path: string) => import(pathToFileURL(join(dir, path)).href);
  const [capacity, eta, sweep, adapter, memory] = await Promise.all([
    load('functions/core/capacity.ts'),
    load('functions/core/eta.ts'),
    load('functions/core/sweep.ts'),
    load('functions/adapters/capacity.ts'),
    load('test/domain/memory.ts'),
  ]);
  return { capacity, eta, sweep, adapter, memory, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
