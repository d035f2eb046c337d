/**
 * Webhook delivery to real HTTP servers on loopback (WEBHOOK_ALLOW_PRIVATE_URLS=on, first retry after 200 ms). Quick
 * orders fail at planning on this stack (GENERATOR_FAIL=plan), which gives a video.error event within a second;
 * explicit orders render and give video.done.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { closeAtEnd, receiver } from '../support/receiver.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const RETRY_BASE_MS = 200;
const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), GENERATOR_FAIL: 'plan' });
async function register(key: string, url: string): Promise<{ id: string; secret: string }> {
  const res = await t.api('POST', '/webhooks', { key, body: { url } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const services = async () => (await import('../../functions/app/services.ts')).services();
const hmac = (secret: string, raw: Buffer) => createHmac('sha256', secret).update(raw).digest('hex');

async function until(check: () => Promise<boolean> | boolean, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    // A check may read the store or ask Step Functions: every 250 ms, as waitForStatus polls.
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Whether the delivery execution of an event (named by the event id) has ended: no attempt can follow then. */
async function deliveryEnded(eventId: string): Promise<boolean> {
  const sfn = new SFNClient({ endpoint: t.stack.env.SFN_ENDPOINT!, region: 'us-east-1' });
  const executionArn = `${t.stack.env.DELIVERY_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${eventId.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  try {
    return (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status !== 'RUNNING';
  } finally {
    sfn.destroy();
  }
}

/** The order's event of `status` with its delivery state, as the delivery store keeps it. */
async function deliveryOf(orderId: string, status: string) {
  const { orders, events } = (await services()).stores;
  const event = (await orders.events(orderId)).find((e) => e.record.status === status);
  return event && events.get(orderId, event.id);
}

describe('webhook delivery', () => {
  it('delivers each event once per status, signed over the raw bytes, with the order record of that moment', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const r = await receiver();
    const { secret } = await register(apiKey, r.url);
    const director = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
    const waiting = await waitForStatus(t, apiKey, director.body.id, ['awaiting_review']);
    await until(() => r.hits.length === 1);
    await t.api('POST', `/videos/${director.body.id}/review`, { key: apiKey, body: { action: 'approve' } });
    const done = await waitForStatus(t, apiKey, director.body.id, ['done']);
    await until(() => r.hits.length === 2);
    const failed = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } });
    await waitForStatus(t, apiKey, failed.body.id, ['error']);
    await until(() => r.hits.length === 3);
    const eventIds = r.hits.map((h) => String(h.headers['x-service-event-id']));
    await until(async () => (await Promise.all(eventIds.map(deliveryEnded))).every(Boolean));
    assert.equal(r.hits.length, 3, 'nothing delivered twice');

    const bodies = r.hits.map((h) => JSON.parse(h.raw.toString('utf8')));
    assert.deepEqual(
      bodies.map((b) => b.status),
      ['awaiting_review', 'done', 'error'],
    );
    assert.deepEqual(
      r.hits.map((h) => h.headers['x-service-event']),
      ['video.awaiting_review', 'video.done', 'video.error'],
    );
    for (const h of r.hits) {
      assert.equal(h.headers['x-service-signature'], hmac(secret, h.raw), 'an independent HMAC of the received bytes');
      assert.equal(h.headers['content-type'], 'application/json');
      assert.ok(h.headers['x-service-event-id']);
      assert.ok(Math.abs(Number(h.headers['x-service-timestamp']) - Date.now() / 1000) < 60);
    }
    // The links and their expiry are signed afresh at each read (a second apart from the event's, across a tick).
    const strip = ({ result_url: _r, cover_url: _c, expires_at: _x, updated_at: _u, eta_seconds: _e, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(strip(bodies[0]), strip(waiting));
    assert.deepEqual(strip(bodies[1]), strip(done));
    assert.ok(
      Math.abs(Date.parse(bodies[1].expires_at) - Date.parse(done.expires_at)) <= 60_000,
      'the links of the event and of the GET expire 7 days after their signing',
    );
    assert.ok(bodies[1].result_url && (await fetch(bodies[1].result_url)).status === 200, 'the done event carries a working link');
    assert.deepEqual(Object.keys(bodies[2].error).sort(), ['code', 'message']);
  });

  it('makes exactly 5 attempts on the doubling schedule against a failing receiver, then drops the event, and shows every attempt', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const r = await receiver((_h, _n, res) => res.writeHead(500).end());
    const webhook = await register(apiKey, r.url);
    const { id } = (await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } })).body;
    await until(async () => (await deliveryOf(id, 'error'))?.delivery === 'dropped');
    await until(async () => deliveryEnded((await deliveryOf(id, 'error'))!.id));
    assert.equal(r.hits.length, 5);
    assert.deepEqual(
      r.hits.map((h) => h.headers['x-service-delivery-attempt']),
      ['1', '2', '3', '4', '5'],
    );
    assert.equal((await t.api('GET', `/videos/${id}`, { key: apiKey })).body.status, 'error', 'the order stays readable');
    const listed = await t.api('GET', `/webhooks/${webhook.id}/deliveries`, { key: apiKey });
    assert.equal(listed.status, 200);
    const mine = listed.body.data
      .filter((a: { order_id: string }) => a.order_id === id)
      .sort((a: { attempt: number }, b: { attempt: number }) => a.attempt - b.attempt);
    assert.deepEqual(
      mine.map((a: { attempt: number }) => a.attempt),
      [1, 2, 3, 4, 5],
    );
    // The gap after attempt n is scheduled as base * 2^(n-1) from the recorded times: never shorter (5 ms for timer
    // rounding), and at most 1000 ms longer (the Wait's wake-up and the step's reads before it stamps the attempt).
    const at = mine.map((a: { at: string }) => Date.parse(a.at));
    const gaps = at.slice(1).map((ms: number, i: number) => ms - at[i]!);
    gaps.forEach((gap: number, i: number) => {
      const scheduled = RETRY_BASE_MS * 2 ** i;
      assert.ok(gap >= scheduled - 5 && gap <= scheduled + 1000, `gap ${i + 1}: ${gap} ms, scheduled ${scheduled} ms (gaps ${gaps.join(', ')})`);
    });
    // The recorded times are the real sends: each request reached the receiver after its attempt's time, within its latency.
    for (const [i, h] of r.hits.entries())
      assert.ok(h.at >= at[i]! && h.at <= at[i]! + mine[i].latency_ms + 100, `attempt ${i + 1} received at +${h.at - at[i]!} ms`);
    assert.ok(mine.every((a: { http_status: number; latency_ms: number }) => a.http_status === 500 && a.latency_ms >= 0));
    assert.equal(mine.find((a: { attempt: number }) => a.attempt === 5).outcome, 'dropped');
    const other = await t.user();
    assert.equal((await t.api('GET', `/webhooks/${webhook.id}/deliveries`, { key: other.apiKey })).status, 403);
  });

  it('counts a receiver that hangs as a failed attempt after 5 s, and does not follow a redirect', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const elsewhere = await receiver();
    const r = await receiver((_h, n, res) => {
      if (n === 1) return; // hang: never answer
      if (n === 2) return res.writeHead(302, { location: elsewhere.url }).end();
      res.writeHead(200).end('ok');
    });
    const webhook = await register(apiKey, r.url);
    const { id } = (await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } })).body;
    await until(async () => (await deliveryOf(id, 'error'))?.delivery === 'delivered', 30_000);
    assert.equal(r.hits.length, 3);
    assert.equal(elsewhere.hits.length, 0, 'the redirect was not followed');
    const attempts = (await t.api('GET', `/webhooks/${webhook.id}/deliveries`, { key: apiKey })).body.data.sort(
      (a: { attempt: number }, b: { attempt: number }) => a.attempt - b.attempt,
    );
    assert.match(attempts[0].error, /no answer within 5 s/);
    assert.ok(attempts[0].latency_ms >= 4900 && attempts[0].latency_ms < 7000, `${attempts[0].latency_ms} ms`);
    assert.equal(attempts[1].http_status, 302);
    assert.equal(attempts[1].outcome, 'pending');
    assert.equal(attempts[2].outcome, 'delivered');
  });

  it('sends the next event to a replaced webhook’s new url with its new secret, and nothing after a delete', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const first = await receiver();
    const second = await receiver();
    await register(apiKey, first.url);
    const replaced = await register(apiKey, second.url);
    const a = (await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } })).body.id;
    await until(() => second.hits.length === 1);
    assert.equal(first.hits.length, 0);
    assert.equal(second.hits[0]!.headers['x-service-signature'], hmac(replaced.secret, second.hits[0]!.raw));
    assert.equal(JSON.parse(second.hits[0]!.raw.toString()).id, a);

    assert.equal((await t.api('DELETE', `/webhooks/${replaced.id}`, { key: apiKey })).status, 204);
    const b = (await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } })).body.id;
    await until(async () => (await deliveryOf(b, 'error'))?.delivery === 'no_webhook');
    assert.equal(first.hits.length + second.hits.length, 1);
  });

  it('starts no delivery execution for a key without a webhook: its events settle no_webhook at once; a key with one gets its deliveries', async () => {
    const started = (orderIds: string[]) =>
      t.stack.sfn.executionNames(t.stack.env.DELIVERY_STATE_MACHINE_ARN!).filter((name) => orderIds.some((id) => name.startsWith(id)));
    const orderOf = async (apiKey: string, explicit: boolean) =>
      (
        await t.api('POST', explicit ? '/videos' : '/videos:quick', {
          key: apiKey,
          body: explicit ? { topic: 'Tea', duration_seconds: 10 } : { prompt: 'tea' },
        })
      ).body.id as string;
    const bare = await t.user({ balance: 1000 });
    const hooked = await t.user({ balance: 1000 });
    const r = await receiver();
    await register(hooked.apiKey, r.url);
    // To done (rendered) and to error (the plan fails on this stack), for each key.
    const without = [await orderOf(bare.apiKey, true), await orderOf(bare.apiKey, false)];
    const withHook = [await orderOf(hooked.apiKey, true), await orderOf(hooked.apiKey, false)];
    for (const [key, ids] of [
      [bare.apiKey, without],
      [hooked.apiKey, withHook],
    ] as const) {
      await waitForStatus(t, key, ids[0]!, ['done'], 120_000);
      await waitForStatus(t, key, ids[1]!, ['error']);
    }
    for (const [id, status] of [
      [without[0]!, 'done'],
      [without[1]!, 'error'],
    ] as const) {
      const event = await deliveryOf(id, status);
      assert.equal(event?.delivery, 'no_webhook', `${id} ${status}`);
      assert.equal(event?.attempts, undefined);
    }
    assert.deepEqual(started(without), [], 'no delivery execution for the key without a webhook');
    await until(() => r.hits.length === 2);
    assert.deepEqual(started(withHook).sort(), [`${withHook[0]}-done`, `${withHook[1]}-error`].sort());
    assert.deepEqual(r.hits.map((h) => JSON.parse(h.raw.toString()).id).sort(), [...withHook].sort());
    // Still listed: the order's events, and resend sends one once the key has a webhook.
    const hook = await register(bare.apiKey, r.url);
    const resent = await t.api('POST', `/webhooks/${hook.id}/resend`, { key: bare.apiKey, body: { event_id: `${without[1]}:error` } });
    assert.equal(resent.status, 202, resent.text);
    await until(() => r.hits.length === 3);
    assert.equal(JSON.parse(r.hits[2]!.raw.toString()).id, without[1]);
  });

  it('fails an attempt against a self-signed certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
        ],
        { stdio: 'ignore' },
      );
      let hits = 0;
      const tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => {
        hits++;
        res.writeHead(204).end();
      });
      await new Promise<void>((ok) => tls.listen(0, '127.0.0.1', ok));
      closeAtEnd(tls);
      const { apiKey } = await t.user({ balance: 1000 });
      const webhook = await register(apiKey, `https://localhost:${(tls.address() as { port: number }).port}/hook`);
      const { id } = (await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea' } })).body;
      await until(async () => ((await deliveryOf(id, 'error'))?.attempts ?? 0) >= 1);
      const attempts = (await t.api('GET', `/webhooks/${webhook.id}/deliveries`, { key: apiKey })).body.data;
      assert.match(attempts[0].error, /SELF_SIGNED|CERT|certificate/i);
      assert.equal(hits, 0, 'no request reached the server');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
