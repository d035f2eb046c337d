/**
 * The JavaScript client's webhook helpers (issue 40) on the local stack: a receiver built on `unwrap` (the README's
 * node:http one, and its fetch handler) is reported delivered by POST /webhooks/{id}/test; a delivery replayed with
 * both timestamps set to 2001 is refused, and one the service's signer signed in 2001 is refused as a replay, not a
 * forgery; during a rotation's overlap either secret verifies; every event type comes back typed, an unknown one as
 * `known: false`, never as the forged-signature error. `standardwebhooks` and `svix` are the reference verifiers:
 * they accept and refuse what `verifyWebhook` does.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { webhookHandler } from '../../clients/js/examples/receiver-fetch.ts';
import { webhookServer } from '../../clients/js/examples/receiver-node.ts';
import {
  unwrap,
  VideoClient,
  verifyWebhook,
  WebhookTimestampError,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookOptions,
} from '../../clients/js/src/index.ts';
import { newWebhookSecret, signatureHeaders } from '../../functions/core/webhook-signature.ts';
import { closeAtEnd, type Hit, receiver } from '../support/receiver.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' }, { viaPrism: true });
async function listen(server: Server): Promise<string> {
  closeAtEnd(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
}
async function until<T>(find: () => T | undefined, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const found = find();
    if (found !== undefined) return found;
  }
  throw new Error('timed out waiting');
}
/** A new key's webhook (to a recording receiver) and the test ping it received. */
async function onePing() {
  const { apiKey } = await t.user({ balance: 1000 });
  const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
  const { url, hits } = await receiver();
  const hook = await client.createWebhook(url);
  await client.testWebhook(hook.id);
  return { hook, hit: await until(() => hits[0]) };
}
const flat = (h: Hit['headers']) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
/** Which verifiers accept the delivery: this client's, standardwebhooks', svix's. */
async function verdicts(raw: Buffer, headers: Record<string, string>, secret: string, options: WebhookOptions = {}) {
  const ok = async (f: () => unknown) => {
    try {
      await f();
      return true;
    } catch {
      return false;
    }
  };
  return {
    client: await ok(() => verifyWebhook(raw, headers, secret, options)),
    standard: await ok(() => new StandardWebhook(secret).verify(raw.toString('utf8'), headers)),
    svix: await ok(() => new SvixWebhook(secret).verify(raw.toString('utf8'), headers)),
  };
}

describe('the JavaScript client, its webhook helpers', () => {
  it('testWebhook() reports delivered for a receiver built on unwrap (node:http), which reads the ping typed', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const events: WebhookEvent[] = [];
    let secret = '';
    const url = await listen(
      webhookServer(
        () => secret,
        (e) => void events.push(e),
      ),
    );
    ({ secret } = await client.createWebhook(url));
    const result = await client.testWebhook((await client.listWebhooks()).data[0]!.id);
    assert.equal(result.delivered, true, JSON.stringify(result));
    assert.equal(result.http_status, 204);
    const [ping] = events;
    assert.ok(ping?.known && ping.type === 'webhook.test', JSON.stringify(ping));
    assert.equal(ping.body.livemode, true);
    assert.match(ping.id, /^webhook\.test:\d+$/);
  });

  it('testWebhook() reports delivered for the fetch-style handler too (Request in, Response out)', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const events: WebhookEvent[] = [];
    let handler: (r: Request) => Promise<Response> = async () => new Response(null, { status: 500 });
    // node:http in front of the handler, as Deno.serve or a Worker would call it.
    const url = await listen(
      createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const answer = await handler(
          new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers: flat(req.headers), body: Buffer.concat(chunks) }),
        );
        res.writeHead(answer.status).end(await answer.text());
      }),
    );
    const hook = await client.createWebhook(url);
    handler = webhookHandler(hook.secret, (e) => void events.push(e));
    assert.equal((await client.testWebhook(hook.id)).delivered, true);
    assert.equal(events[0]?.type, 'webhook.test');
    // Another secret: 401 from the handler, so the test reports it not delivered.
    handler = webhookHandler(newWebhookSecret(), (e) => void events.push(e));
    assert.deepEqual([(await client.testWebhook(hook.id)).http_status, events.length], [401, 1]);
  });

  it('refuses a real delivery replayed with both timestamps set to 2001, and a 2001 signing as a replay', async () => {
    const { hook, hit } = await onePing();
    const headers = flat(hit.headers);
    assert.deepEqual(await verdicts(hit.raw, headers, hook.secret), { client: true, standard: true, svix: true });
    // The captured delivery with its timestamps moved to 2001: the signature no longer holds (the time is signed).
    const y2001 = String(Date.UTC(2001, 8, 9) / 1000);
    const replayed = { ...headers, 'webhook-timestamp': y2001, 'x-service-timestamp': y2001 };
    assert.deepEqual(await verdicts(hit.raw, replayed, hook.secret), { client: false, standard: false, svix: false });
    await assert.rejects(unwrap(hit.raw, replayed, hook.secret), WebhookVerificationError);
    // Even with the body-only signature allowed (it signs no time): the Standard headers are there, so only they count,
    // whether the timestamp was moved back or forward to now.
    await assert.rejects(unwrap(hit.raw, replayed, hook.secret, { allowServiceSignature: true }), /does not match/);
    const renewed = { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) };
    await assert.rejects(unwrap(hit.raw, renewed, hook.secret, { allowServiceSignature: true }), /does not match/);
    // A delivery the service's own signer signed in 2001: a replay, refused as one, not as a forgery.
    const old = signatureHeaders(hit.raw.toString('utf8'), [hook.secret], { id: headers['webhook-id']!, timestamp: Number(y2001) });
    const stale = await unwrap(hit.raw, { ...headers, ...old }, hook.secret).catch((e: unknown) => e);
    assert.ok(stale instanceof WebhookTimestampError, String(stale));
    assert.ok(stale instanceof WebhookVerificationError, 'a receiver catching WebhookVerificationError refuses it too');
    assert.match(stale.message, /2001-09-09T00:00:00\.000Z is \d+ s old, outside the tolerance of 300 s/);
    assert.equal(stale.timestamp, Number(y2001));
    assert.deepEqual(await verdicts(hit.raw, { ...headers, ...old }, hook.secret), { client: false, standard: false, svix: false });
    // With the clock at that moment it verifies: the signature was right, the time was not.
    const then = { now: () => Number(y2001) * 1000 + 1000 };
    assert.equal((await unwrap(hit.raw, { ...headers, ...old }, hook.secret, then)).type, 'webhook.test');
  });

  it('keeps the tolerance either way (300 s by default, configurable), on an injected clock', async () => {
    const { hook, hit } = await onePing();
    const sent = Number(hit.headers['webhook-timestamp']) * 1000;
    const at = (seconds: number, toleranceSeconds?: number) =>
      verifyWebhook(hit.raw, hit.headers, hook.secret, { now: () => sent + seconds * 1000, ...(toleranceSeconds ? { toleranceSeconds } : {}) }).then(
        () => 'ok',
        (e: Error) => e.name,
      );
    assert.deepEqual(
      [await at(0), await at(300), await at(301), await at(-300), await at(-301), await at(3600, 3600), await at(3601, 3600)],
      ['ok', 'ok', 'WebhookTimestampError', 'ok', 'WebhookTimestampError', 'ok', 'WebhookTimestampError'],
    );
  });

  it('verifies with either secret during a rotation’s overlap, or both as a list, and not with the old one after it', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const { url, hits } = await receiver();
    const hook = await client.createWebhook(url);
    const rotated = await client.rotateWebhookSecret(hook.id, { overlap_seconds: 600 });
    const order = await client.createVideo({ topic: 'Hojicha', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, apiKey, order.id, ['awaiting_review']);
    const hit = await until(() => hits.find((h) => h.headers['x-service-event'] === 'video.awaiting_review'));
    assert.equal(String(hit.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap');
    for (const secret of [hook.secret, rotated.secret, [hook.secret, rotated.secret], [newWebhookSecret(), rotated.secret]]) {
      const event = await unwrap(hit.raw, hit.headers, secret);
      assert.ok(event.known && event.type === 'video.awaiting_review');
      assert.deepEqual([event.id, event.body.id, event.body.status], [`${order.id}:awaiting_review:1`, order.id, 'awaiting_review']);
    }
    assert.deepEqual(await verdicts(hit.raw, flat(hit.headers), hook.secret), { client: true, standard: true, svix: true });
    await assert.rejects(unwrap(hit.raw, hit.headers, newWebhookSecret()), WebhookVerificationError);
    // The overlap ended (overlap 0): the next ping carries one signature, the new secret's.
    const again = await client.rotateWebhookSecret(hook.id, { overlap_seconds: 0 });
    await client.testWebhook(hook.id);
    const ping = await until(() => hits.find((h) => h.headers['x-service-event'] === 'webhook.test'));
    assert.equal((await unwrap(ping.raw, ping.headers, again.secret)).type, 'webhook.test');
    await assert.rejects(unwrap(ping.raw, ping.headers, rotated.secret), WebhookVerificationError);
  });

  it('reads balance.low typed; an unknown type comes back known: false, a changed type header never as an order', async () => {
    const secret = newWebhookSecret();
    const reference = new StandardWebhook(secret);
    const now = new Date();
    // Signed by the reference implementation: this client verifies what standardwebhooks signs.
    const sign = (body: string, id: string, type: string) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': reference.sign(id, now, body),
      'x-service-event': type,
    });
    const low = JSON.stringify({ id: 'u:balance.low:1', object: 'event', type: 'balance.low', balance: 80, threshold: 100, order_id: 'vid_x' });
    const read = await unwrap(low, sign(low, 'u:balance.low:1', 'balance.low'), secret);
    assert.ok(read.known && read.type === 'balance.low');
    assert.deepEqual([read.body.balance, read.body.threshold], [80, 100]);
    // A type added after this client: verified, typed as unknown.
    const refund = JSON.stringify({ id: 'vid_1', object: 'refund', amount: 100 });
    const future = await unwrap(refund, sign(refund, 'vid_1:refund.created', 'refund.created'), secret);
    assert.deepEqual(future, {
      known: false,
      type: 'refund.created',
      id: 'vid_1:refund.created',
      timestamp: Math.floor(now.getTime() / 1000),
      body: JSON.parse(refund),
    });
    const typed = JSON.stringify({ object: 'event', type: 'order.archived', id: 'e1' });
    assert.deepEqual((await unwrap(typed, sign(typed, 'e1', ''), secret)).type, 'order.archived', 'the signed body names the type when it has one');
    // X-Service-Event is not signed: a header naming another order status than the signed body's is not an order event.
    const order = JSON.stringify({ id: 'vid_2', status: 'awaiting_review' });
    const swapped = await unwrap(order, sign(order, 'vid_2:awaiting_review:1', 'video.done'), secret);
    assert.deepEqual([swapped.known, swapped.type], [false, 'video.done']);
    assert.equal((await unwrap(order, sign(order, 'vid_2:awaiting_review:1', 'video.awaiting_review'), secret)).known, true);
    // A secret issued before Standard Webhooks' form (base64url, as older webhooks have) verifies as the service signs it.
    const legacy = `whsec_${Buffer.from('a secret from before, with ~~~ and ??? in it').toString('base64url')}`;
    assert.match(legacy, /[-_]/);
    const old = signatureHeaders(order, [legacy], { id: 'vid_2:awaiting_review:1', timestamp: Math.floor(now.getTime() / 1000) });
    assert.equal((await unwrap(order, { ...old, 'x-service-event': 'video.awaiting_review' }, legacy)).known, true);
    // The body-only signature counts only when asked for.
    const bodyOnly = signatureHeaders(order, [secret], { id: 'vid_2:awaiting_review:1', timestamp: Math.floor(now.getTime() / 1000) });
    const serviceOnly = { 'x-service-signature': bodyOnly['x-service-signature']!, 'x-service-event': 'video.awaiting_review' };
    await assert.rejects(unwrap(order, serviceOnly, secret), /No Standard Webhooks signature/);
    const allowed = await verifyWebhook(order, serviceOnly, secret, { allowServiceSignature: true });
    assert.deepEqual([allowed.scheme, allowed.timestamp], ['service', undefined]);
    // A signed body that is not JSON is an event this client does not know, not an exception.
    const text = 'plain words';
    assert.deepEqual(await unwrap(text, sign(text, 'e2', 'note'), secret), {
      known: false,
      type: 'note',
      id: 'e2',
      timestamp: Math.floor(now.getTime() / 1000),
      body: text,
    });
    // An empty secret is skipped, a tolerance that is not a number of seconds refused.
    await assert.rejects(unwrap(order, sign(order, 'e3', 'video.awaiting_review'), 'whsec_'), WebhookVerificationError);
    await assert.rejects(unwrap(order, sign(order, 'e3', 'video.awaiting_review'), secret, { toleranceSeconds: Number.NaN }), TypeError);
  });
});
