/**
 * Webhook latency on the local stack: from an order's status change (the time its event records) to the signed POST
 * arriving at a receiver on loopback, over 20 orders. Orders fail at planning here (GENERATOR_FAIL=plan), which
 * produces a video.error event without rendering a video.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';

const ORDERS = 20;

export async function benchWebhooks(): Promise<{ p50: number; max: number; count: number; floorP50: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const stack = await startLocalStack({
    bucketGrants: BUCKET_GRANTS,
    port: 0,
    s3Dir: join(dir, 's3'),
    env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', GENERATOR_FAIL: 'plan', LIMIT_ACTIVE_TASKS: '1000' },
  });
  const delays: number[] = [];
  const receiver = createServer(async (req, res) => {
    const arrived = Date.now();
    let raw = '';
    for await (const c of req) raw += c;
    if (req.url === '/floor') return void res.writeHead(204).end();
    const record = JSON.parse(raw) as { updated_at: string };
    delays.push(arrived - Date.parse(record.updated_at));
    res.writeHead(204).end();
  });
  try {
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const { services } = await import('../functions/app/services.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 100_000, trialVideos: 0, now: new Date() });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    await fetch(`${stack.baseUrl}/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url }) });
    for (let i = 0; i < ORDERS; i++) {
      await fetch(`${stack.baseUrl}/videos:quick`, { method: 'POST', headers, body: JSON.stringify({ prompt: `tea ${i}` }) });
      await new Promise((r) => setTimeout(r, 100));
    }
    const end = Date.now() + 30_000;
    while (delays.length < ORDERS && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    const sorted = [...delays].sort((a, b) => a - b);
    // The floor: the same POST straight to the receiver, without the event, the workflow and the signature.
    const floor: number[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const started = performance.now();
      await (await fetch(url.replace('/hook', '/floor'), { method: 'POST', body: '{}' })).arrayBuffer();
      floor.push(performance.now() - started);
    }
    floor.sort((a, b) => a - b);
    return { p50: sorted[sorted.length >> 1] ?? NaN, max: sorted.at(-1) ?? NaN, count: sorted.length, floorP50: floor[floor.length >> 1]! };
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
