/**
 * The business metrics the alarms and the dashboard read, as the functions write them: CloudWatch embedded metric
 * format lines on stdout (Powertools Metrics, switched on for this stack). A quick order goes to done, a director
 * order's review deadline (3 s) lapses into error with its refund, and a receiver that always answers 500 makes
 * every event's delivery drop after 5 attempts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ POWERTOOLS_METRICS_DISABLED: 'false', REVIEW_DEADLINE_SECONDS: '3', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_BASE_MS: '100' });

const lines: string[] = [];
const write = process.stdout.write.bind(process.stdout);
let receiver: Server | undefined;
before(() => {
  // Keep every line the process writes; EMF lines pass through as well.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    lines.push(...String(chunk).split('\n'));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
});
after(() => {
  process.stdout.write = write;
  receiver?.close();
});

/** The queue's gauges, which the sweep measures at start and every minute, and each render's speed: not counts. */
const GAUGES = new Set(['QueueDepthApi', 'QueueDepthBot', 'OldestWaitingApiSeconds', 'OldestWaitingBotSeconds', 'SlotsInUse', 'RenderSecondsPerVideoSecond']);

/** Every value written of a gauge, with its unit. */
function gauge(name: string): { value: number; unit: string }[] {
  const found: { value: number; unit: string }[] = [];
  for (const line of lines) {
    if (!line.startsWith('{') || !line.includes(`"${name}"`)) continue;
    const emf = JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Metrics: { Name: string; Unit: string }[] }[] } };
    for (const m of emf._aws.CloudWatchMetrics.flatMap((g) => g.Metrics)) if (m.Name === name) found.push({ value: emf[name] as number, unit: m.Unit });
  }
  return found;
}

/** The sum of each counted metric over the EMF lines written so far, for the service's namespace. */
function metrics(): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of lines) {
    if (!line.startsWith('{') || !line.includes('"_aws"')) continue;
    const emf = JSON.parse(line) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[] };
    };
    for (const group of emf._aws.CloudWatchMetrics) {
      assert.equal(group.Namespace, 'VideoService');
      for (const m of group.Metrics) {
        if (GAUGES.has(m.Name)) continue;
        assert.equal(m.Unit, 'Count');
        sums[m.Name] = (sums[m.Name] ?? 0) + [emf[m.Name] as number | number[]].flat().reduce((a, b) => a + b, 0);
      }
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
    assert.deepEqual(metrics(), { OrdersCreated: 2, OrdersDone: 1, OrdersFailed: 1, OrdersRefunded: 1, WebhookDeliveriesDropped: 3 });
    // The one render, measured: seconds of the render per second of video, a positive figure.
    const rendered = gauge('RenderSecondsPerVideoSecond');
    assert.equal(rendered.length, 1, JSON.stringify(rendered));
    assert.ok(rendered[0]!.value > 0 && rendered[0]!.unit === 'Seconds', JSON.stringify(rendered));
  });
});
