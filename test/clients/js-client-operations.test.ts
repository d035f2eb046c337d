/**
 * The JavaScript client's newer calls on the local stack (quote then create at the quoted price, cancel, the list
 * and ledger iterators across pages, webhook rotation, test and resend, unwrap of a real delivery), and its transport
 * against loopback servers that misbehave as proxies and gateways do: a hanging server (the per-attempt timeout), an
 * AbortSignal, Retry-After as an HTTP date, a Retry-After too long to wait, an answer outside the envelope, and the
 * call's deadline.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { services } from '../../functions/app/services.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../clients/js/src/cli.ts';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import {
  ApiError,
  ApiUserAbortError,
  ConflictError,
  InsufficientFundsError,
  sniffImageType,
  RateLimitError,
  retryAfterSeconds,
  UnexpectedResponseError,
  unwrap,
  unwrapEvent,
  VideoClient,
  WebhookVerificationError,
} from '../../clients/js/src/index.ts';
import { receiver } from '../support/receiver.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', LIMIT_ACTIVE_TASKS: '20' }, { viaPrism: true });
const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => handler(req, res, ++n));
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

describe('the JavaScript client, its newer calls', () => {
  it('uploads a picture (POST /assets, then the PUT), reads, lists and deletes it, and names it in an order', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const png = execFileSync(FFMPEG, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=0x00FF00:s=32x32',
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      '-',
    ]);
    const asset = await client.uploadAsset(new Uint8Array(png));
    assert.deepEqual([asset.content_type, asset.size_bytes, asset.status], ['image/png', png.length, 'unchecked']);
    assert.equal(sniffImageType(new Uint8Array(png)), 'image/png');
    const order = await client.createVideo({ topic: 'Lime', duration_seconds: 10, director_mode: true, logo: asset.id });
    assert.equal((await client.getVideo(order.id)).params.logo, asset.id);
    const read = await client.getAsset(asset.id);
    assert.deepEqual([read.status, read.width, read.height], ['ready', 32, 32]);
    const listed: string[] = [];
    for await (const a of client.listAssets({ limit: 1 })) listed.push(a.id);
    assert.deepEqual(listed, [asset.id]);
    await client.deleteAsset(asset.id);
    await assert.rejects(client.getAsset(asset.id), (e: ApiError) => e.status === 404);
    // Its upload URL writes nothing after the delete (the listed If-None-Match meets the deleted asset's marker).
    const { 'Content-Length': _, ...headers } = asset.upload.headers;
    assert.equal((await fetch(asset.upload.url, { method: 'PUT', headers, body: new Uint8Array(png) })).status, 412);
    // The storage refuses bytes of another length than declared: the upload's own error.
    const created = await client.createAsset({ kind: 'image', content_type: 'image/png', size_bytes: png.length + 1 });
    const put = await fetch(created.upload.url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(png) });
    assert.equal(put.status, 403);
    await assert.rejects(client.uploadAsset(new TextEncoder().encode('not a picture')), TypeError);
  });

  it('the command line uploads a file (assets upload FILE), lists and deletes it', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const file = join(mkdtempSync(join(tmpdir(), 'assets-cli-')), 'logo.png');
    writeFileSync(
      file,
      execFileSync(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=16x16', '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']),
    );
    // In this process (the linked bin is the installed workspace's, not this tree's): main with captured streams.
    const run = async (...args: string[]) => {
      let stdout = '';
      const stream = (write: (s: string) => void) =>
        ({
          write: (s: string) => {
            write(s);
            return true;
          },
          isTTY: false,
        }) as unknown as NodeJS.WriteStream;
      const code = await main(args, {
        stdout: stream((s) => (stdout += s)),
        stderr: stream(() => undefined),
        env: { VIDEO_SERVICE_URL: t.baseUrl, VIDEO_SERVICE_KEY: apiKey },
      });
      return { code, stdout };
    };
    const uploaded = await run('assets', 'upload', file, '--json');
    assert.equal(uploaded.code, 0);
    const id = JSON.parse(uploaded.stdout).id as string;
    assert.match((await run('assets', 'list')).stdout, new RegExp(id));
    assert.equal((await run('create', 'Cherries', '--duration', '10', '--director', '--logo', id)).code, 0);
    assert.equal((await run('assets', 'delete', id)).code, 0);
    assert.doesNotMatch((await run('assets', 'list')).stdout, new RegExp(id));
    assert.equal((await run('assets', 'upload')).code, 2, 'bad usage');
  });

  it('quotes, creates at the quoted price, cancels, and iterates the orders and the ledger across pages', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const body = { topic: 'Green tea', duration_seconds: 10, music: 'song' as const, director_mode: true };
    const quote = await client.quote(body);
    assert.equal(quote.cost, 170);
    const created = await client.createVideo({ ...body, quote_id: quote.quote_id }, { idempotencyKey: 'js-ops-1' });
    assert.deepEqual([created.cost, created.replayed], [170, false]);
    assert.equal((await client.createVideo({ ...body, quote_id: quote.quote_id }, { idempotencyKey: 'js-ops-1' })).replayed, true);
    const ids = [created.id];
    for (const topic of ['Oolong', 'Puerh'])
      ids.push((await client.createVideo({ topic, duration_seconds: 10, director_mode: true, metadata: { crm: topic } })).id);
    assert.deepEqual((await client.getVideo(ids[1]!)).client_metadata, { crm: 'Oolong' });
    const tagged: string[] = [];
    for await (const o of client.listVideos({ metadata: { crm: 'Puerh' } })) tagged.push(o.id);
    assert.deepEqual(tagged, [ids[2]], 'the metadata filter, as metadata[crm]=Puerh');
    await waitForStatus(t, apiKey, ids[2]!, ['awaiting_review']);
    const canceled = await client.cancel(ids[2]!);
    assert.deepEqual([canceled.status, canceled.error?.code], ['error', 'canceled']);
    assert.equal((await client.cancel(ids[2]!)).id, ids[2], 'a repeated cancel answers the same order');
    const listed: string[] = [];
    for await (const o of client.listVideos({ limit: 1 })) listed.push(o.id);
    assert.deepEqual(listed, [...ids].reverse());
    const kinds: string[] = [];
    for await (const entry of client.listTransactions({ limit: 2 })) kinds.push(`${entry.kind} ${entry.amount}`);
    assert.deepEqual(kinds, ['refund 100', 'charge -100', 'charge -100', 'charge -170', 'top_up 1000']);
    await assert.rejects(
      client.cancel(ids[0]!).then(() => client.cancel('vid_01m8000000000000000000000a')),
      (e: Error) => e.name === 'NotFoundError',
    );
  });

  it('rotates, tests and resends through the webhook calls, and unwraps a real delivery into the typed order', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const { url, hits: received } = await receiver();
    const hook = await client.createWebhook(url);
    const rotated = await client.rotateWebhookSecret(hook.id, { overlap_seconds: 600 });
    assert.equal((await client.testWebhook(hook.id)).delivered, true);
    const order = await client.createVideo({ topic: 'Matcha', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, apiKey, order.id, ['awaiting_review']);
    for (let i = 0; i < 100 && !received.some((r) => r.headers['x-service-event'] === 'video.awaiting_review'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const delivery = received.find((r) => r.headers['x-service-event'] === 'video.awaiting_review')!;
    // Either secret during the overlap, or both as a list; node's headers as they come.
    for (const secret of [rotated.secret, hook.secret, [hook.secret, rotated.secret]]) {
      const read = await unwrap(delivery.raw, delivery.headers, secret);
      assert.ok(read.known && read.type === 'video.awaiting_review');
      assert.deepEqual([read.id, read.body.id, read.body.status], [`${order.id}:awaiting_review:1`, order.id, 'awaiting_review']);
    }
    await assert.rejects(unwrap(Buffer.concat([delivery.raw, Buffer.from(' ')]), delivery.headers, rotated.secret), WebhookVerificationError);
    // The test ping is an event like the others: read, typed, never the forged-signature error.
    const test = received.find((r) => r.headers['x-service-event'] === 'webhook.test')!;
    const ping = await unwrap(test.raw, test.headers, rotated.secret);
    assert.ok(ping.known && ping.type === 'webhook.test');
    assert.deepEqual([ping.body.webhook_id, ping.body.livemode], [hook.id, true]);
    const resent = await client.resendEvents(hook.id, { event_id: `${order.id}:awaiting_review:1` }).catch((e) => e);
    // Delivered already: sent again (or 409 while its first delivery still runs).
    assert.ok(resent instanceof ConflictError || resent.resent?.length === 1, String(resent));
  });
});

describe('the JavaScript client, spend controls', () => {
  it('sets the balance alert, unwraps the balance.low delivery, and types a refusal past the spend limit', async () => {
    const { userId, apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const { url, hits: received } = await receiver();
    const hook = await client.createWebhook(url);
    assert.deepEqual((await client.setBalanceAlert(950)).low_balance_alert, { below: 950, sent: false });
    const order = await client.createVideo({ topic: 'Sencha', duration_seconds: 10, director_mode: true });
    for (let i = 0; i < 100 && !received.some((r) => r.headers['x-service-event'] === 'balance.low'); i++) await new Promise((r) => setTimeout(r, 100));
    const low = received.find((r) => r.headers['x-service-event'] === 'balance.low')!;
    const read = await unwrapEvent(low.raw, low.headers, hook.secret);
    assert.ok(read.known && read.type === 'balance.low');
    assert.deepEqual([read.id, read.body.balance, read.body.threshold, read.body.order_id], [`${userId}:balance.low:1`, 900, 950, order.id]);
    assert.deepEqual(await unwrap(low.raw, low.headers, hook.secret), read, 'unwrap and unwrapEvent are one');
    const balance = await client.getBalance();
    assert.deepEqual([balance.low_balance_alert?.sent, balance.spend.spent], [true, 100]);
    assert.equal((await client.setBalanceAlert(null)).low_balance_alert, undefined);
    await services().stores.accounts.setSpendLimit(userId, 150);
    const refused = await client.createVideo({ topic: 'Gyokuro', duration_seconds: 10, director_mode: true }).catch((e) => e);
    assert.ok(refused instanceof InsufficientFundsError && refused.code === 'spend_limit_exceeded', String(refused));
  });
});

describe('the JavaScript client, its transport', () => {
  it('times out an attempt that hangs, retries a GET, and stops at once when the caller aborts', async () => {
    const base = await serve((_req, res, n) => {
      if (n === 1) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1,"trial_videos_left":0}');
    });
    const client = new VideoClient({ baseUrl: base, apiKey: 'vgk_x', timeoutMs: 300, baseDelayMs: 10 });
    const started = Date.now();
    assert.equal((await client.getBalance()).balance, 1);
    assert.ok(Date.now() - started >= 300 && Date.now() - started < 5000);
    const hanging = await serve(() => undefined);
    const aborting = new AbortController();
    setTimeout(() => aborting.abort(new Error('the caller gave up')), 200);
    await assert.rejects(
      new VideoClient({ baseUrl: hanging, apiKey: 'vgk_x' }).getBalance({ signal: aborting.signal }),
      (e: Error) => e instanceof ApiUserAbortError && /the caller gave up/.test(e.message),
    );
  });

  it('waits a Retry-After given as a date, refuses to wait one past its cap, and keeps to the call’s deadline', async () => {
    const dated = await serve((_req, res, n) => {
      if (n === 1)
        return res
          .writeHead(503, { 'retry-after': new Date(Date.now() + 1500).toUTCString(), 'content-type': 'application/json' })
          .end('{"error":{"code":"service_unavailable","message":"busy"}}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":2,"trial_videos_left":0}');
    });
    const waits: number[] = [];
    const client = new VideoClient({ baseUrl: dated, apiKey: 'vgk_x', onRetry: (i) => waits.push(i.delayMs) });
    assert.equal((await client.getBalance()).balance, 2);
    assert.ok(waits[0]! >= 1000 && waits[0]! <= 2200, `waited ${waits[0]} ms`);
    assert.equal(retryAfterSeconds('120'), 120);
    assert.equal(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString()), 30);
    assert.equal(retryAfterSeconds('soon'), undefined);

    const far = await serve((_req, res) =>
      res.writeHead(429, { 'retry-after': '3600', 'content-type': 'application/json' }).end('{"error":{"code":"rate_limited","message":"slow down"}}'),
    );
    const started = Date.now();
    await assert.rejects(
      new VideoClient({ baseUrl: far, apiKey: 'vgk_x', maxRetryAfterSeconds: 10 }).getBalance(),
      (e: Error) => e instanceof RateLimitError && e.retryAfter === 3600 && e.gaveUp === 'retry_after_too_long',
    );
    assert.ok(Date.now() - started < 2000, 'no hour-long wait');

    const always = await serve((_req, res) =>
      res.writeHead(503, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"error":{"code":"service_unavailable","message":"x"}}'),
    );
    const t0 = Date.now();
    await assert.rejects(
      new VideoClient({ baseUrl: always, apiKey: 'vgk_x', deadlineMs: 2500, maxRetries: 20 }).getBalance(),
      (e: Error) => e instanceof ApiError && e.code === 'service_unavailable' && e.retryAfter === 1 && e.gaveUp === 'deadline',
    );
    assert.ok(Date.now() - t0 < 4000);
  });

  it('maps an answer outside the envelope (a gateway’s own 429) to a clear error with its status', async () => {
    const gateway = await serve((_req, res) => res.writeHead(429, { 'content-type': 'application/json' }).end('{"message":"Too Many Requests"}'));
    const err = await new VideoClient({ baseUrl: gateway, apiKey: 'vgk_x', maxRetries: 1, baseDelayMs: 10 }).getBalance().catch((e) => e);
    assert.ok(err instanceof UnexpectedResponseError, String(err));
    assert.equal(err.status, 429);
    assert.match(err.message, /HTTP 429 without the error envelope: \{"message":"Too Many Requests"\}/);
  });
});
