/**
 * Hostile input: more than 2,000 generated requests (test/reliability/hostile.ts) and raw ones fetch cannot send.
 * Each must get a 4xx in the error envelope the OpenAPI document describes (or, for a query merely outside the data,
 * an empty page), within 15 s, and nothing may be charged:
 * the user's ledger holds only the one order made on purpose, and the service still answers afterwards.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { checkAgainstContract } from '../support/contract.ts';
import { useStack, waitForStatus } from '../support/stack.ts';
import { hostileRequests, rawRequests, type HostileRequest, type RawRequest } from './hostile.ts';
import { hostileImages } from '../support/hostile-images.ts';

// The per-minute POST limit would answer most of these with 429 before validation: lift it.
const t = useStack({ LIMIT_POSTS_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });
const SEED = Number(process.env.HOSTILE_SEED ?? 20261123);
const TIMEOUT_MS = 15_000;

interface Outcome {
  kind: string;
  what: string;
  status: number | 'hang' | 'error';
  problem?: string;
}

async function send(r: HostileRequest): Promise<Outcome> {
  const what = `${r.method} ${r.path.slice(0, 80)} (${r.kind})`;
  try {
    // The contract check wraps fetch for the stack's address: a body that breaks the document rejects here.
    const res = await fetch(t.baseUrl.replace('/v1', '') + r.path, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    const ok = r.emptyPage
      ? res.status === 200 && /^\{"data":\[\],"has_more":false\}$/.test(text)
      : res.status >= 400 && res.status < 500 && /"error":\{"code":"/.test(text);
    return { kind: r.kind, what, status: res.status, ...(ok ? {} : { problem: text.slice(0, 200) }) };
  } catch (err) {
    const hang = (err as Error).name === 'TimeoutError';
    return { kind: r.kind, what, status: hang ? 'hang' : 'error', problem: (err as Error).message };
  }
}

/** Writes the bytes on a socket and reads the answer until the server closes it or the timeout passes. */
function sendRaw(r: RawRequest, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ kind: r.kind, what: r.kind, status: 'hang', problem: data.slice(0, 200) });
    }, TIMEOUT_MS);
    socket.on('data', (d) => {
      data += d.toString('latin1');
      // One answer is enough: stop once its body is complete.
      const head = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data.slice(0, head))?.[1];
      if (head >= 0 && length !== undefined && data.length >= head + 4 + Number(length)) socket.end();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      const head = data.slice(0, data.indexOf('\r\n\r\n'));
      const body = dechunk(data.slice(head.length + 4), /transfer-encoding: chunked/i.test(head));
      let problem: string | undefined;
      try {
        if (!(status >= 400 && status < 500)) throw new Error(`status ${status}`);
        // Not routed: whatever the path, the answer must be the envelope.
        checkAgainstContract('GET', '/v1/not-routed', status, /content-type: ([^\r]+)/i.exec(data)?.[1] ?? null, JSON.parse(body));
      } catch (err) {
        problem = `${(err as Error).message}: ${data.slice(0, 300)}`;
      }
      resolve({ kind: r.kind, what: r.kind, status: status || 'error', ...(problem ? { problem } : {}) });
    });
    socket.on('error', () => undefined);
    socket.write(r.bytes);
  });
}

function dechunk(body: string, chunked: boolean): string {
  if (!chunked) return body;
  let out = '';
  for (let at = 0; ; ) {
    const line = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, line), 16);
    if (!(size > 0)) return out;
    out += body.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

async function pool<T, R>(items: T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await run(items[i]!);
      }
    }),
  );
  return results;
}

describe('hostile input', () => {
  it('gets a 4xx in the envelope (or an empty page) for each of 2,000+ generated requests and raw ones, never a 5xx or a hang, and charges nothing', async () => {
    const { userId, apiKey } = await t.user({ balance: 1000 });
    const hook = await t.api('POST', '/webhooks', { key: apiKey, body: { url: 'http://127.0.0.1:9/hook' } });
    assert.equal(hook.status, 201);
    const orderIdempotencyKey = 'hostile-order';
    const order = await t.api('POST', '/videos', {
      key: apiKey,
      body: { topic: 'Tea', duration_seconds: 10, director_mode: true },
      headers: { 'Idempotency-Key': orderIdempotencyKey },
    });
    assert.equal(order.status, 201);
    await waitForStatus(t, apiKey, order.body.id, ['awaiting_review']);

    const requests = hostileRequests({ key: apiKey, orderId: order.body.id, orderIdempotencyKey, webhookId: hook.body.id, seed: SEED, count: 2000 });
    assert.ok(requests.length >= 2000);
    const started = Date.now();
    const outcomes = await pool(requests, 8, send);
    const raw = await pool(rawRequests(apiKey), 4, (r) => sendRaw(r, t.stack.port));
    const all = [...outcomes, ...raw];

    const byStatus = new Map<string, number>();
    for (const o of all) byStatus.set(String(o.status), (byStatus.get(String(o.status)) ?? 0) + 1);
    console.log(
      `# ${all.length} hostile requests in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED}): ${[...byStatus].map(([s, n]) => `${s} x${n}`).join(', ')}`,
    );
    const failures = all.filter((o) => o.problem !== undefined);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} answers were not a 4xx in the envelope`);

    const { services } = await import('../../functions/app/services.ts');
    const ledger = await services().stores.accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.amount, e.orderId]).sort(),
      [
        ['charge', -order.body.cost, order.body.id],
        ['top_up', 1000, undefined],
      ],
      'only the order made on purpose was charged',
    );
    const balance = await t.api('GET', '/balance', { key: apiKey });
    assert.equal(balance.status, 200);
    assert.equal(balance.body.balance, 1000 - order.body.cost);
  });
});

describe('hostile pictures', () => {
  it('refuses each polyglot, lying, bomb or cut-short picture at creation with 422 naming the field, on both routes, and charges nothing', async () => {
    const { userId, apiKey: key } = await t.user({ balance: 1000 });
    const pictures = hostileImages();
    const outcomes: string[] = [];
    for (const p of pictures) {
      const created = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: p.type, size_bytes: p.bytes.length } });
      assert.equal(created.status, 201, p.name);
      const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: new Uint8Array(p.bytes) });
      assert.equal(put.status, 200, p.name);
      for (const [path, field, body] of [
        ['/videos', 'placement.image', { topic: 'Tea', duration_seconds: 10, placement: { product: 'Leafy', image: created.body.id } }],
        ['/videos:quick', 'logo', { prompt: 'A 10 second video about tea', logo: created.body.id }],
      ] as const) {
        const res = await t.api('POST', path, { key, body });
        const ok = res.status === 422 && res.body.error?.code === 'invalid_params' && String(res.body.error.message).startsWith(`${field}: `);
        if (!ok) outcomes.push(`${p.name} on ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      const seen = (await t.api('GET', `/assets/${created.body.id}`, { key })).body;
      if (seen.status !== 'refused') outcomes.push(`${p.name}: recorded ${seen.status}`);
    }
    console.log(`# ${pictures.length} hostile pictures, each named on 2 routes: ${outcomes.length} not refused`);
    assert.deepEqual(outcomes, []);
    const { services } = await import('../../functions/app/services.ts');
    assert.deepEqual(
      (await services().stores.accounts.ledger(userId)).map((e) => e.kind),
      ['top_up'],
      'nothing charged',
    );
    assert.equal((await t.api('GET', '/videos', { key })).body.data.length, 0, 'no order made');
  });
});
