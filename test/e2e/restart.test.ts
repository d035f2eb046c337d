/**
 * Killing the local service mid-render (SIGKILL: no chance to clean up) and starting it again: the order finishes
 * with one charge and one video, and no Java process outlives either run.
 */
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../local/ports.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { admin, javaOf, QUICK_JAVA, startService, stopService } from '../support/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'video-service-restart-'));
// The renders' temporary files, which a killed service cannot remove, go where the test removes them.
const renderTmp = join(dataDir, 'tmp');
mkdirSync(renderTmp);
const leftovers: number[] = [];
const services: ChildProcess[] = [];
after(async () => {
  // A test that failed half-way leaves nothing running.
  for (const child of services) if (child.exitCode === null && child.signalCode === null) await stopService(child);
  for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number) {
  // One render slot: the killed render holds it, and an order waits for it.
  const { child } = await startService(port, dataDir, { TMPDIR: renderTmp, RENDER_SLOTS: '1', ...QUICK_JAVA });
  services.push(child);
  return child;
}
const javaOfDataDir = () => javaOf(dataDir);

/** Polls `check` until it gives a value (not undefined), or fails with `what` after `ms`. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether `pid` is a live ffmpeg (a zombie left unreaped counts as ended). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ffmpeg') && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The ffmpeg children of `pid` encoding an order's video (the renderer's second run, the long one, which writes
 * video-only.mp4; the short third run muxes the soundtrack into video.mp4).
 */
const encoders = (pid: number) => {
  const out = spawnSync('pgrep', ['-P', String(pid), '-f', 'ffmpeg .*/video-only\\.mp4$'])
    .stdout.toString()
    .trim();
  return out ? out.split('\n').map(Number) : [];
};

describe('a restart mid-render', () => {
  it('finishes the order with one charge and one video, and the order waiting for its slot after it', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/v1`;
    checkFetchesTo(base);
    let service = await start(port);
    const user = admin(dataDir, 'create-user', '--balance', '500', '--trial-videos', '0');
    const headers = { 'x-api-key': user.api_key, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${base}/videos:quick`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'Energetic 10 second video about running shoes' }) })
    ).json()) as { id: string };
    // The second order's video only (no voice, no music): what is tested is that it gets the slot after the restart.
    const waiting = (await (
      await fetch(`${base}/videos`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ topic: 'Walking shoes', duration_seconds: 10, voice: 'none', music: 'none' }),
      })
    ).json()) as { id: string };
    const readOf = async (id: string) =>
      (await (await fetch(`${base}/videos/${id}`, { headers })).json()) as { status: string; result_url?: string; error?: unknown };
    const read = () => readOf(created.id);
    // Under way: the order is running and the service's ffmpeg is encoding the video (not yet stored).
    const pid = service.pid!;
    const encoder = await waitFor(
      'the order running with its video being encoded',
      async () => ((await read()).status === 'running' ? encoders(pid)[0] : undefined),
      60_000,
    );

    assert.equal((await readOf(waiting.id)).status, 'queued', 'the second order waits for the slot');
    service.kill('SIGKILL');
    await new Promise((r) => service.once('exit', r));
    // The store's files on disk: no video was stored before the kill, so it did come mid-render.
    const stored = join(
      dataDir,
      's3',
      JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')).env.BUCKET_NAME,
      'orders',
      created.id,
      'video.mp4._S3rver_object',
    );
    assert.ok(!existsSync(stored), 'killed before the video was stored');
    await waitFor('Java of the killed service gone', () => (javaOfDataDir() === '' ? true : undefined), 10_000);
    // The orphaned ffmpeg would finish its encode on its own (the closed progress pipe does not stop it), for nothing:
    // ended here, as a Lambda environment's end ends its processes, so that it neither competes with the render after
    // the restart nor outlives the test.
    leftovers.push(encoder);
    if (alive(encoder)) process.kill(encoder, 'SIGKILL');
    await waitFor('the killed render’s ffmpeg ended', () => (alive(encoder) ? undefined : true), 10_000);

    service = await start(port);
    try {
      const order = await waitFor(
        'the order done or failed after the restart',
        async () => {
          const o = await read();
          return o.status === 'done' || o.status === 'error' ? o : undefined;
        },
        90_000,
      );
      assert.equal(order.status, 'done', JSON.stringify(order));
      const second = await waitFor(
        'the waiting order done after the restart',
        async () => {
          const o = await readOf(waiting.id);
          return o.status === 'done' || o.status === 'error' ? o : undefined;
        },
        90_000,
      );
      assert.equal(second.status, 'done', JSON.stringify(second));
      const balance = (await (await fetch(`${base}/balance`, { headers })).json()) as { balance: number };
      assert.equal(balance.balance, 300, 'each charged once');

      const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
      const s3 = new S3Client({
        region: 'us-east-1',
        endpoint: runtime.env.S3_ENDPOINT,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: runtime.env.BUCKET_NAME, Prefix: `orders/${created.id}/` }));
      assert.deepEqual((listed.Contents ?? []).map((o) => o.Key!.split('/').at(-1)).sort(), ['cover.jpg', 'pack.json', 'video.mp4'], 'one video');
      assert.ok(existsSync(stored), 'the store keeps objects where the check before the restart looked');
      assert.equal((await fetch(order.result_url!)).status, 200);
    } finally {
      await stopService(service);
    }
    assert.equal(javaOfDataDir(), '');
  });
});
