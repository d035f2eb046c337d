/**
 * `npm start`'s data folder is its owner's only: every folder 0700 and every file 0600, DynamoDB Local's database
 * (key hashes, balances, webhook secrets) and the S3 store's objects and metadata included, whatever the umask it was
 * started with, and also what an older start left readable.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../../local/ports.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { startService, stopService } from '../support/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'video-service-modes-'));
// The renders' temporary files go elsewhere: this test is about the data folder.
const renderTmp = mkdtempSync(join(tmpdir(), 'video-service-modes-tmp-'));
after(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(renderTmp, { recursive: true, force: true });
});

/** Every folder and file under `dir` (itself included) whose mode is not 0700 or 0600, with its mode. */
function notOwnerOnly(dir: string): string[] {
  const wrong: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    const mode = stat.mode & 0o777;
    const want = stat.isDirectory() ? 0o700 : 0o600;
    if (mode !== want) wrong.push(`${relative(dataDir, path) || '.'} ${mode.toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return wrong;
}

/** Every file under `dir`, relative to it. */
const filesOf = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => !lstatSync(join(dir, f)).isDirectory());

describe('the data folder of npm start', () => {
  it("is its owner's only: folders 0700, files 0600, the stores' files included", async () => {
    // What an older start left, readable by all.
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, 'dynamodb'), { mode: 0o755 });
    writeFileSync(join(dataDir, 'dynamodb', 'left-from-before'), 'old', { mode: 0o644 });
    // The service inherits this umask: it, not the umask, must make its files owner-only.
    process.umask(0o022);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}/v1`;
    checkFetchesTo(base);
    const service = await startService(port, dataDir, { TMPDIR: renderTmp });
    try {
      const key = /API key:\s+(\S+)/.exec(service.output())![1]!;
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const created = await fetch(`${base}/videos`, { method: 'POST', headers, body: JSON.stringify({ topic: 'Green tea', duration_seconds: 10 }) });
      assert.equal(created.status, 201);
      const { id } = (await created.json()) as { id: string };
      // Done: its mp4, cover and posting pack are in the S3 store, its record in DynamoDB Local.
      let status = '';
      for (const end = Date.now() + 120_000; status !== 'done' && status !== 'error' && Date.now() < end; ) {
        await new Promise((r) => setTimeout(r, 500));
        status = ((await (await fetch(`${base}/videos/${id}`, { headers })).json()) as { status: string }).status;
      }
      assert.equal(status, 'done');
      const files = filesOf(dataDir);
      assert.ok(files.includes(join('dynamodb', 'shared-local-instance.db')), files.join('\n'));
      assert.ok(files.filter((f) => f.startsWith('s3') && f.includes(id)).length >= 3, files.join('\n'));

      assert.deepEqual(notOwnerOnly(dataDir), []);
    } finally {
      await stopService(service.child);
    }
    assert.deepEqual(notOwnerOnly(dataDir), [], 'after the stop');
  });
});
