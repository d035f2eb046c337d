/**
 * The business metrics the alarms and the dashboard read, as the functions write them: CloudWatch embedded metric
 * format lines on stdout (Powertools Metrics, switched on for this stack). A quick order goes to done, a director
 * order's review deadline (3 s) lapses into error with its refund, and a receiver that always answers 500 makes
 * every event's delivery drop after 5 attempts. Every record carries the service and the stage.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { captureEmf } from '../support/emf.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ POWERTOOLS_METRICS_DISABLED: 'false', REVIEW_DEADLINE_SECONDS: '3', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_BASE_MS: '100' });
const emf = captureEmf();

let receiver: Server | undefined;
after(() => {
  receiver?.close();
});

/** The queue's gauges, which the sweep measures at start and every minute, and each render's speed: not counts. */
const GAUGES = new Set(['QueueDepthApi', 'QueueDepthBot', 'OldestWaitingApiSeconds', 'OldestWaitingBotSeconds', 'SlotsInUse', 'RenderSecondsPerVideoSecond']);

/** Every value written of a gauge, with its unit. */
function gauge(name: string): { value: number; unit: string }[] {
  return emf.records().flatMap((r) => r.metrics.filter((m) => m.name === name).map((m) => ({ value: m.value, unit: m.unit })));
}

/** The sum of each counted metric over the EMF lines written so far, for the service's namespace. */
function metrics(): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const r of emf.records()) {
    assert.equal(r.namespace, 'VideoService');
    for (const m of r.metrics) {
      if (GAUGES.has(m.name)) continue;
      assert.equal(m.unit, 'Count');
      sums[m.name] = (sums[m.name] ?? 0) + m.value;
    }
  }
  return sums;
}

describe('business metrics', () => {
  it('counts orders created, done, failed and refunded, and webhook deliveries dropped; measures the render', async () => {
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(500).end()));
    await new Promise<void>((ok) => receiver!.listen(0, '127.0.0.1', ok));
    const { apiKey: key } = await t.user({ balance: 1000 });
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    assert.equal((await t.api('POST', '/webhooks', { key, body: { url } })).status, 201);

    const quick = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about tea' } });
    const lapsing = await t.api('POST', '/videos', { key, body: { topic: 'Coffee', duration_seconds: 10, director_mode: true } });
    assert.equal((await waitForStatus(t, key, quick.body.id, ['done', 'error'])).status, 'done');
    assert.equal((await waitForStatus(t, key, lapsing.body.id, ['error', 'done'])).status, 'error');
    // Three events (awaiting_review, done, error), each dropped after 5 failed attempts 0.1 to 0.8 s apart.
    for (const end = Date.now() + 30_000; (metrics().WebhookDeliveriesDropped ?? 0) < 3 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 200));
    // The lapse's step ends the execution with OrderClosed, a business outcome its function's error rate leaves out.
    assert.deepEqual(metrics(), { OrdersCreated: 2, OrdersDone: 1, OrdersFailed: 1, OrdersRefunded: 1, WebhookDeliveriesDropped: 3, StepOutcomeErrors: 1 });
    const outcome = emf.records().find((r) => r.metrics.some((m) => m.name === 'StepOutcomeErrors'))!;
    assert.deepEqual([outcome.dimensions, outcome.values.function], [[['service', 'stage', 'function']], 'review-lapsed']);
    // Every record carries the service and the stage (the local stack's), in its one dimension set: what the alarms and
    // the dashboard read (lib/observability.ts).
    for (const r of emf.records()) {
      assert.equal(r.dimensions.length, 1, JSON.stringify(r.dimensions));
      assert.deepEqual(r.dimensions[0]!.slice(0, 2), ['service', 'stage']);
      assert.deepEqual([r.values.service, r.values.stage], ['video-service', 'local']);
    }
    // The one render, measured: seconds of the render per second of video, a positive figure.
    const rendered = gauge('RenderSecondsPerVideoSecond');
    assert.equal(rendered.length, 1, JSON.stringify(rendered));
    assert.ok(rendered[0]!.value > 0 && rendered[0]!.unit === 'Seconds', JSON.stringify(rendered));
  });
});
