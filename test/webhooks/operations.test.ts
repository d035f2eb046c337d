/**
 * Webhooks users can operate, on the local stack with real receivers on loopback: deliveries carry the Standard
 * Webhooks headers that the `standardwebhooks` and `svix` packages verify (and refuse once tampered or stale); a
 * rotated secret and the previous one both verify during the overlap, only the new one after; a test ping reports the
 * receiver's answer; a dropped event is sent again by id and by a replay since a time, with the same event id, one
 * attempt each, within the key's hourly budget of resent events.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { verifyWebhook } from '../../functions/core/webhook-signature.ts';
import { closedPort } from '../support/listeners.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

// A small resend budget, so that a test can spend it (each test's key has its own).
const RESENDS_PER_HOUR = 4;
const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_BASE_MS: '100', LIMIT_RESENDS_PER_HOUR: String(RESENDS_PER_HOUR) });
const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

type Hit = { raw: Buffer; headers: IncomingMessage['headers'] };
/** A receiver that records every request and answers `status()` (204 unless told otherwise). */
async function receiver(status: () => number = () => 204) {
  const hits: Hit[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    hits.push({ raw: Buffer.concat(chunks), headers: req.headers });
    res.writeHead(status()).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, hits };
}

async function until<T>(find: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const found = await find();
    if (found !== undefined) return found;
  }
  throw new Error('timed out waiting');
}

const headersOf = (h: Hit) => Object.fromEntries(Object.entries(h.headers).map(([k, v]) => [k, String(v)]));
/** Whether each verifier accepts the delivery with this secret. */
function verifiers(hit: Hit, secret: string) {
  const ok = (f: () => unknown) => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    standard: ok(() => new StandardWebhook(secret).verify(hit.raw.toString('utf8'), headersOf(hit))),
    svix: ok(() => new SvixWebhook(secret).verify(hit.raw.toString('utf8'), headersOf(hit))),
    spec:
      verifyWebhook(hit.raw, hit.headers['x-service-signature'] as string, secret) ||
      verifyWebhook(hit.raw, hit.headers['x-service-signature-previous'] as string, secret),
  };
}

describe('webhooks users can operate', () => {
  it('are verified by the standardwebhooks and svix packages, which refuse a changed body or a stale timestamp', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const r = await receiver();
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const order = await t.api('POST', '/videos', { key, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
    const hit = await until(() => r.hits.find((h) => h.headers['x-service-event'] === 'video.awaiting_review'));
    assert.equal(hit.headers['webhook-id'], `${order.body.id}:awaiting_review:1`);
    assert.deepEqual(verifiers(hit, hook.secret), { standard: true, svix: true, spec: true });
    const payload = new StandardWebhook(hook.secret).verify(hit.raw.toString('utf8'), headersOf(hit)) as { id: string };
    assert.equal(payload.id, order.body.id);
    // One byte changed, another secret, or a timestamp older than the verifiers' 5 minutes: refused.
    const changed = { ...hit, raw: Buffer.from(hit.raw.toString('utf8').replace('awaiting_review', 'awaiting_reviex')) };
    assert.deepEqual(verifiers(changed, hook.secret), { standard: false, svix: false, spec: false });
    assert.deepEqual(verifiers(hit, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), { standard: false, svix: false, spec: false });
    const stale = { ...hit, headers: { ...hit.headers, 'webhook-timestamp': String(Number(hit.headers['webhook-timestamp']) - 600) } };
    assert.equal(verifiers(stale, hook.secret).standard, false);
  });

  it('rotate the secret with an overlap: both verify during it, only the new one after', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const r = await receiver();
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    const rotated = await t.api('POST', `/webhooks/${hook.id}/rotate`, { key, body: { overlap_seconds: 3600 } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, hook.secret);
    assert.ok(Math.abs(Date.parse(rotated.body.previous_secret_expires_at) - Date.now() - 3600_000) < 60_000);
    const ping = await t.api('POST', `/webhooks/${hook.id}/test`, { key });
    assert.deepEqual([ping.status, ping.body.delivered, ping.body.http_status], [200, true, 204]);
    const during = r.hits.at(-1)!;
    assert.equal(during.headers['x-service-event'], 'webhook.test');
    assert.deepEqual(verifiers(during, rotated.body.secret), { standard: true, svix: true, spec: true });
    assert.deepEqual(verifiers(during, hook.secret), { standard: true, svix: true, spec: true });
    // A rotation with no overlap ends the previous secret at once (here: the first rotation's).
    const second = await t.api('POST', `/webhooks/${hook.id}/rotate`, { key, body: { overlap_seconds: 0 } });
    assert.equal(second.body.previous_secret_expires_at, undefined);
    await t.api('POST', `/webhooks/${hook.id}/test`, { key });
    const afterwards = r.hits.at(-1)!;
    assert.deepEqual(verifiers(afterwards, second.body.secret), { standard: true, svix: true, spec: true });
    assert.deepEqual(verifiers(afterwards, rotated.body.secret), { standard: false, svix: false, spec: false });
    assert.deepEqual(verifiers(afterwards, hook.secret), { standard: false, svix: false, spec: false });
    assert.equal(afterwards.headers['x-service-signature-previous'], undefined);
    // Another key's webhook.
    const { apiKey: other } = await t.user({ balance: 0 });
    assert.equal((await t.api('POST', `/webhooks/${hook.id}/rotate`, { key: other, body: {} })).status, 403);
  });

  it('report a failing receiver on a test ping', async () => {
    const { apiKey: key } = await t.user({ balance: 0 });
    const r = await receiver(() => 500);
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    const ping = await t.api('POST', `/webhooks/${hook.id}/test`, { key });
    assert.deepEqual([ping.body.delivered, ping.body.http_status], [false, 500]);
    assert.ok(ping.body.latency_ms >= 0);
    // Nothing listens: the answer says what kind of failure it was, and names no address or port.
    const closed = new URL(r.url);
    closed.port = String(await closedPort());
    await t.api('POST', '/webhooks', { key, body: { url: closed.toString() } });
    const refused = await t.api('POST', `/webhooks/${hook.id}/test`, { key });
    assert.deepEqual([refused.body.delivered, refused.body.error], [false, 'connection refused'], refused.text);
    assert.doesNotMatch(refused.text, new RegExp(`127\\.0\\.0\\.1|${closed.port}`));
  });

  it('send a dropped event again by its id and by a replay since a time, with the same event id', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    let failing = true;
    const r = await receiver(() => (failing ? 503 : 204));
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    const since = new Date().toISOString();
    const orders = [];
    for (const topic of ['Tea', 'Coffee'])
      orders.push((await t.api('POST', '/videos', { key, body: { topic, duration_seconds: 10, director_mode: true } })).body.id);
    for (const id of orders) await waitForStatus(t, key, id, ['awaiting_review']);
    const eventIds = orders.map((id) => `${id}:awaiting_review:1`);
    const { services } = await import('../../functions/app/services.ts');
    const state = async (eventId: string) => (await services().stores.events.get(eventId.split(':')[0]!, eventId))?.delivery;
    // Five failed attempts each (100 ms, doubling): dropped.
    for (const e of eventIds) await until(async () => ((await state(e)) === 'dropped' ? true : undefined));
    assert.equal(r.hits.filter((h) => eventIds.includes(String(h.headers['webhook-id']))).length, 10);
    failing = false;
    const one = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { event_id: eventIds[0] } });
    assert.deepEqual([one.status, one.body.resent], [202, [eventIds[0]]]);
    await until(() => r.hits.find((h) => h.headers['webhook-id'] === eventIds[0] && h.headers['x-service-delivery-attempt'] === '6'));
    await until(async () => ((await state(eventIds[0]!)) === 'delivered' ? true : undefined));
    // The replay sends the one still dropped.
    const replay = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { since } });
    assert.deepEqual([replay.status, replay.body.resent, replay.body.has_more], [202, [eventIds[1]], false]);
    await until(async () => ((await state(eventIds[1]!)) === 'delivered' ? true : undefined));
    // Delivered events are not in a replay of dropped ones; an order id is no event id; another key's event is 403.
    assert.deepEqual((await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { since } })).body.resent, []);
    assert.equal((await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { event_id: orders[0] } })).status, 422);
    const { apiKey: other } = await t.user({ balance: 0 });
    const otherHook = (await t.api('POST', '/webhooks', { key: other, body: { url: r.url } })).body;
    assert.equal((await t.api('POST', `/webhooks/${otherHook.id}/resend`, { key: other, body: { event_id: eventIds[0] } })).status, 403);
    // A resend while an event is still being delivered.
    failing = true;
    const third = (await t.api('POST', '/videos', { key, body: { topic: 'Milk', duration_seconds: 10, director_mode: true } })).body.id;
    const busy = `${third}:awaiting_review:1`;
    await until(async () => ((await state(busy)) === 'pending' ? true : undefined));
    const refused = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { event_id: busy } });
    assert.deepEqual([refused.status, errorCode(refused)], [409, 'delivery_in_progress']);
  });

  it('give a resent event one attempt, and a key at most its budget of resent events an hour (429 past it)', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const r = await receiver(() => 503);
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    const since = new Date().toISOString();
    const orders = [];
    for (let i = 0; i <= RESENDS_PER_HOUR; i++)
      orders.push((await t.api('POST', '/videos', { key, body: { topic: `Tea ${i}`, duration_seconds: 10, director_mode: true } })).body.id);
    for (const id of orders) await waitForStatus(t, key, id, ['awaiting_review']);
    const eventIds = orders.map((id) => `${id}:awaiting_review:1`);
    const { services } = await import('../../functions/app/services.ts');
    const state = async (eventId: string) => (await services().stores.events.get(eventId.split(':')[0]!, eventId))?.delivery;
    for (const e of eventIds) await until(async () => ((await state(e)) === 'dropped' ? true : undefined));
    const before = r.hits.length;
    assert.equal(before, 5 * eventIds.length);

    // One replay: as many events as the budget allows, each sent once (it ends dropped again after that one attempt).
    const replay = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { since } });
    assert.equal(replay.status, 202, replay.text);
    const resent: string[] = replay.body.resent;
    for (const e of resent) await until(async () => ((await state(e)) === 'dropped' ? true : undefined));
    await new Promise((ok) => setTimeout(ok, 1000)); // ten retry gaps: any further attempt would have come
    const caused = r.hits.slice(before);
    assert.deepEqual(
      { resent: resent.length, has_more: replay.body.has_more, outbound_requests: caused.length },
      { resent: RESENDS_PER_HOUR, has_more: true, outbound_requests: RESENDS_PER_HOUR },
    );
    assert.deepEqual(caused.map((h) => h.headers['webhook-id']).sort(), [...resent].sort());
    assert.ok(
      caused.every((h) => h.headers['x-service-delivery-attempt'] === '6'),
      'the attempt count goes on from 5',
    );

    // The budget is spent: by id and by replay, 429 rate_limited until the hour's end, and nothing is sent.
    const left = eventIds.find((e) => !resent.includes(e))!;
    for (const body of [{ event_id: left }, { since }]) {
      const refused = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body });
      assert.deepEqual([refused.status, errorCode(refused)], [429, 'rate_limited'], refused.text);
      assert.match(refused.body.error.message, new RegExp(`${RESENDS_PER_HOUR} resent events per hour`));
      const toHourEnd = Math.ceil((Math.floor(Date.now() / 3_600_000 + 1) * 3_600_000 - Date.now()) / 1000);
      assert.ok(Math.abs(Number(refused.headers.get('retry-after')) - toHourEnd) <= 2, `Retry-After ${refused.headers.get('retry-after')}`);
      // The POST window's headers say what is left of the POSTs, not the budget: this POST was counted and allowed.
      assert.doesNotMatch(refused.headers.get('ratelimit') ?? '', /r=0;/);
    }
    assert.equal(await state(left), 'dropped');
    assert.equal(r.hits.length, before + RESENDS_PER_HOUR);
  });
});
