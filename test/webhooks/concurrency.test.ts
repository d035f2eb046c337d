/**
 * Deliveries at bounded concurrency on the local stack: the deliver function's reserved concurrency is 2 here
 * (DELIVERY_CONCURRENCY; the stage's deliveryConcurrency on AWS), a third invocation at once is refused with Lambda's
 * throttle as AWS names it, and the delivery workflow's Retry for that throttle runs it again later. A slow receiver and
 * a burst of events: every event is still delivered at its first attempt, and never more than 2 requests are in flight.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { throttlesOf } from '../../local/invocations.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const CONCURRENCY = 2;
const EVENTS = 6;
/** How long the receiver holds each request: long enough that the burst's attempts overlap. */
const HOLD_MS = 1000;
const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', GENERATOR_FAIL: 'plan', DELIVERY_CONCURRENCY: String(CONCURRENCY) });
let server: Server | undefined;
after(() => {
  server?.closeAllConnections();
  server?.close();
});

describe('webhook deliveries at bounded concurrency', () => {
  it(`delivers a burst of ${EVENTS} events to a slow receiver at most ${CONCURRENCY} at once, each at its first attempt`, async () => {
    let inFlight = 0;
    let most = 0;
    const received: string[] = [];
    server = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume().on('end', () =>
        setTimeout(() => {
          inFlight--;
          received.push(String(req.headers['x-service-event-id']));
          res.writeHead(204).end();
        }, HOLD_MS),
      );
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    const { apiKey } = await t.user({ balance: 10_000 });
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    assert.equal((await t.api('POST', '/webhooks', { key: apiKey, body: { url } })).status, 201);
    const throttledBefore = throttlesOf('deliver-event');

    // Quick orders fail at planning on this stack: a video.error event each, all within a second or two.
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) ids.push((await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: `tea ${i}` } })).body.id);
    for (const id of ids) await waitForStatus(t, apiKey, id, ['error']);
    const { services } = await import('../../functions/app/services.ts');
    const stored = async () => Promise.all(ids.map(async (id) => services().stores.events.get(id, `${id}:error`)));
    for (const end = Date.now() + 120_000; (await stored()).some((e) => e?.delivery !== 'delivered'); ) {
      if (Date.now() > end) throw new Error(`not all delivered: ${(await stored()).map((e) => e?.delivery).join(', ')}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    assert.equal(most, CONCURRENCY, `at most ${CONCURRENCY} requests in flight, and the limit was reached`);
    assert.ok(throttlesOf('deliver-event') > throttledBefore, 'some invocations were throttled, and retried');
    assert.deepEqual(received.sort(), ids.map((id) => `${id}:error`).sort(), 'each event received once');
    // A throttled invocation made no attempt: each event was delivered at its first.
    assert.deepEqual(
      (await stored()).map((e) => e?.attempts),
      ids.map(() => 1),
    );
  });
});
