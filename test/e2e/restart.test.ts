/**
 * Killing the local service mid-render (SIGKILL: no chance to clean up) and starting it again: the order finishes
 * with one charge and one video, and no Java process outlives either run.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../local/ports.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { admin, javaOf, startService, stopService } from '../support/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'video-service-restart-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const start = async (port: number) => (await startService(port, dataDir)).child;
const javaOfDataDir = () => javaOf(dataDir);

describe('a restart mid-render', () => {
  it('finishes the order with one charge and one video', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/v1`;
    checkFetchesTo(base);
    let service = await start(port);
    const user = admin(dataDir, 'create-user', '--balance', '500', '--trial-videos', '0');
    const headers = { 'x-api-key': user.api_key, 'content-type': 'application/json' };
    const created = (await (await fetch(`${base}/videos:quick`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'Energetic 20 seconds video about running shoes' }) })).json()) as { id: string };
    const read = async () => (await (await fetch(`${base}/videos/${created.id}`, { headers })).json()) as { status: string; result_url?: string; error?: unknown };
    while ((await read()).status !== 'running') await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal((await read()).status, 'running', 'still rendering when killed');

    service.kill('SIGKILL');
    await new Promise((r) => service.once('exit', r));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(javaOfDataDir(), '', 'Java stopped with its killed parent');

    service = await start(port);
    try {
      const end = Date.now() + 90_000;
      let order = await read();
      while (order.status !== 'done' && order.status !== 'error' && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 250));
        order = await read();
      }
      assert.equal(order.status, 'done', JSON.stringify(order));
      const balance = (await (await fetch(`${base}/balance`, { headers })).json()) as { balance: number };
      assert.equal(balance.balance, 400, 'charged once');

      const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8'));
      const s3 = new S3Client({ region: 'us-east-1', endpoint: runtime.env.S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: runtime.env.BUCKET_NAME, Prefix: `orders/${created.id}/` }));
      assert.deepEqual((listed.Contents ?? []).map((o) => o.Key!.split('/').at(-1)).sort(), ['cover.jpg', 'pack.json', 'video.mp4'], 'one video');
      assert.equal((await fetch(order.result_url!)).status, 200);
    } finally {
      await stopService(service);
    }
    assert.equal(javaOfDataDir(), '');
  });
});
