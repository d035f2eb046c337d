/**
 * A normal day, replayed: the local stack runs a compressed day of business as usual, the metrics it writes are
 * collected (the functions' embedded metric format, and AWS's own metrics as the local stand-ins record them:
 * local/metrics.ts), and every alarm of the synthesized prod template is evaluated against them as CloudWatch would
 * (test/support/alarms.ts). Business as usual pages no one: 0 alarms. Then each fault the alarms exist for fires its
 * alarms and only those (FAULTS below).
 *
 * The compressed day. The stack runs in real time; the day is a row of stretches (a morning burst, cancels, reviews,
 * a receiver down, an evening of lapses and deadlines), each run for real and placed at its virtual time of the day: a
 * datapoint is stamped at its stretch's virtual start plus its real offset within it, and the time between stretches is
 * quiet. For counts this is at least as strict as the real day: each stretch's events, which a real day spreads over
 * hours, fall in a few minutes, so in as few periods as they can, and each period's sum (and each rate's call count)
 * is as high as the day can make it. An alarm that needs M breaching periods of N sees fewer periods so: the day also
 * fails when any single period of any alarm breaches, whatever M (but for the queue's growth: TRENDS).
 *
 * The faults come the day after, each at its own hours: a fault that lasts is run as short stretches one period apart
 * (every render crashing at 02:00, 02:05 and 02:10), and the alarms in ALARM within three hours of its start are its.
 * Last, the faults' business metrics as dev's functions would write them (their own stage) must page no one in prod.
 *
 * Settings that make the day's events fit in minutes, each in the same proportion as prod or harsher: one render slot
 * and an audit every 2 s with a 3 s grace (a burst waits well past it), a review wait of 70 s (a lapse within the day),
 * a 60 s deadline (the spec's least), webhook retries from 1 s (5 attempts over 15 s) against a receiver down for 8 s
 * (prod: a minute against 7.5 minutes of retries). The custom metrics carry the stage as prod's functions do (STAGE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { onAwsMetric } from '../../local/metrics.ts';
import { type AlarmDefinition, alarmsOf, type Datapoint, evaluateAlarm, indexPoints, metricsOf } from '../support/alarms.ts';
import type { Template } from '../support/cfn-template.ts';
import { captureEmf, datapointsOf } from '../support/emf.ts';
import { receiver } from '../support/receiver.ts';
import { alarmName, localDimension, localGap, synthProd, VirtualClock } from '../support/replay.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const REVIEW_SECONDS = 70;
const RETRY_BASE_MS = 1000;
const RECEIVER_DOWN_MS = 8000;
const t = useStack(
  {
    POWERTOOLS_METRICS_DISABLED: 'false',
    STAGE: 'prod',
    RENDER_SLOTS: '1',
    TEST_RENDER_SLOTS: '2',
    SWEEP_SECONDS: '2',
    SWEEP_GRACE_SECONDS: '3',
    REVIEW_DEADLINE_SECONDS: String(REVIEW_SECONDS),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
    LIMIT_POSTS_PER_MINUTE: '20',
  },
  // prod serves behind the edge: its origin check runs, as its alarms expect.
  { originVerify: 'replay-origin-verify', dynamoFaults: true },
);

/**
 * The alarms each fault must fire, and no other, by construct id (lib/observability.ts). An execution stopped from
 * outside is an unexpected abort, and its order's recovery a real one.
 */
const FAULTS = {
  'a render that crashes': ['Errors-render-video'],
  'renders that fail and are refunded': ['RendersFailing'],
  'a DynamoDB throttle past the retries': ['Api5xxRate', 'TableThrottles'],
  'an execution stopped from outside': ['ExecutionsAbortedUnexpectedly', 'SweepRecovered'],
  'a webhook receiver failing every attempt': ['WebhookDeliveriesDropped'],
  'a 5xx burst (DynamoDB unreachable)': ['Api5xxRate'],
} as const satisfies Record<string, readonly string[]>;

// Synthesized while the day runs, from the environment before the stack's (no AWS_ settings reach the app).
const synthesized = synthProd({ ...process.env });
synthesized.catch(() => undefined);

// The functions' metrics (EMF on stdout, kept off the terminal) and AWS's as the stand-ins record them.
const emf = captureEmf({ quiet: true });
const aws: Datapoint[] = [];
let stopAws: (() => void) | undefined;
before(() => {
  stopAws = onAwsMetric((p) => aws.push(p));
});
after(() => stopAws?.());
/** Every datapoint so far, at its real time. */
const recorded = (): Datapoint[] => [...aws, ...emf.records().flatMap(datapointsOf)];

const clock = new VirtualClock();
const H = 3_600_000;
const MIN = 60_000;
/** Monday 2 March 2026, 00:00 UTC: the replayed day; the faults come the day after. */
const DAY = Date.UTC(2026, 2, 2);
const at = (hour: number, minute = 0, day = 0) => DAY + day * 24 * H + hour * H + minute * MIN;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
const post = (key: string, path: string, body: unknown) => t.api('POST', path, { key, body });
async function settled(key: string, ids: string[], ms = 90_000): Promise<Record<string, { status: string; code?: string }>> {
  const out: Record<string, { status: string; code?: string }> = {};
  for (const id of ids) {
    const o = await waitForStatus(t, key, id, ['done', 'error'], ms);
    out[id] = { status: o.status, ...(o.error?.code ? { code: o.error.code } : {}) };
  }
  return out;
}
const accounts = async () => (await import('../../functions/app/services.ts')).services().stores;

interface Fired {
  name: string;
  firstAt: string;
  breaching: string;
}

let template: Template;
let alarms: AlarmDefinition[];

/**
 * The alarms in ALARM at some minute of [from, to] (virtual), and those with a breaching period, each with the first
 * time and the values; `extra` are datapoints already in virtual time.
 */
function evaluate(from: number, to: number, extra: Datapoint[] = []): { fired: Fired[]; breachingPeriods: Fired[] } {
  const resolve = localDimension(template, {
    machineArn: (m) => (m === 'order' ? process.env.ORDER_STATE_MACHINE_ARN! : process.env.DELIVERY_STATE_MACHINE_ARN!),
    tableName: process.env.TABLE_NAME!,
  });
  const source = indexPoints([...recorded().map((p) => ({ ...p, at: clock.virtual(p.at) })), ...extra], resolve);
  const fired: Fired[] = [];
  const breachingPeriods: Fired[] = [];
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  for (const alarm of alarms) {
    const e = evaluateAlarm(alarm, source, from, to);
    const values = [...new Set(e.breaching.map((b) => b.value.toFixed(1)))];
    const shown = `${values.slice(0, 5).join(', ')}${values.length > 5 ? ', ...' : ''} over ${e.breaching.length} one-minute evaluations`;
    if (e.alarmAt.length) fired.push({ name: alarmName(template, alarm), firstAt: iso(e.alarmAt[0]!), breaching: shown });
    if (e.breaching.length) breachingPeriods.push({ name: alarmName(template, alarm), firstAt: iso(e.breaching[0]!.at), breaching: shown });
  }
  return { fired, breachingPeriods };
}

async function loadAlarms(tc: TestContext) {
  if (alarms) return;
  template = await synthesized;
  alarms = alarmsOf(template);
  // The functions the local stack runs under a reserved concurrency (it throttles those): functions/steps/table.ts.
  const { STEPS } = await import('../../functions/steps/table.ts');
  const reserved = new Set(STEPS.filter((s) => s.reservedBy).map((s) => s.module));
  const resolve = localDimension(template, { machineArn: () => '', tableName: '' });
  const silent = new Map<string, string[]>();
  for (const a of alarms) {
    const reasons = metricsOf(a).map((m) => localGap(m, (v) => resolve('FunctionName', v), reserved));
    if (!reasons.every(Boolean)) continue;
    const why = [...new Set(reasons)].join('; ');
    silent.set(why, [...(silent.get(why) ?? []), alarmName(template, a)]);
  }
  const count = [...silent.values()].flat().length;
  tc.diagnostic(
    `${alarms.length} alarms in the prod template; ${count} on metrics the local stack cannot emit:\n  ${[...silent].map(([why, list]) => `${list.join(', ')}: ${why}`).join('\n  ')}`,
  );
}

/**
 * Alarms on a trend rather than a count, left out of the stricter check: one breaching period is business as usual
 * (a burst grows the queue for a minute); the alarm wants its 15 minutes in a row.
 */
const TRENDS = { ApiQueueGrowing: 'a burst grows the API queue for a minute; the alarm pages on 15 minutes in a row' };

/** The business counts of [from, to] (virtual), by metric: what the functions counted in a stretch, for the report. */
function counted(from: number, to: number): string {
  const sums = new Map<string, number>();
  for (const p of recorded()) {
    const v = clock.virtual(p.at);
    if (p.namespace !== 'VideoService' || v < from || v > to || /^(QueueDepth|OldestWaiting|SlotsInUse|RenderSeconds)/.test(p.name)) continue;
    sums.set(p.name, (sums.get(p.name) ?? 0) + p.value);
  }
  return [...sums].map(([k, v]) => `${k} ${v}`).join(', ');
}

const names = (fired: Fired[]) => fired.map((f) => f.name).sort();
const show = (fired: Fired[]) => fired.map((f) => `${f.name} (from ${f.firstAt}; breaching: ${f.breaching})`).join('\n  ');

/** A user with a live key and a test key, each with its webhook at `url` when given. */
async function customer(balance: number, url?: string) {
  const live = await t.user({ balance });
  const { apiKey: test } = await (await accounts()).accounts.issueTestKey(live.userId, new Date());
  if (url) for (const key of [live.apiKey, test]) assert.equal((await post(key, '/webhooks', { url })).status, 201);
  return { live: live.apiKey, test };
}

/** Runs `stretch` placed at each of `times` (a fault that lasts, sampled once a period), then evaluates its window. */
async function fault(tc: TestContext, name: keyof typeof FAULTS, times: number[], stretch: (i: number) => Promise<void>) {
  for (const [i, time] of times.entries()) {
    clock.begin(`${name} (${i + 1} of ${times.length})`, time);
    await stretch(i);
  }
  // What the fault set going ends in its own stretch: the executions, and an audit run that began during it.
  await t.stack.sfn.idle(30_000);
  await sleep(2500);
  await loadAlarms(tc);
  const { fired } = evaluate(times[0]!, times[0]! + 3 * H);
  tc.diagnostic(`${name}: ${clock.summary().slice(-times.length).join(', ')}; counted: ${counted(times[0]!, times[0]! + 3 * H)}; fired:\n  ${show(fired)}`);
  assert.deepEqual(names(fired), [...FAULTS[name]].sort(), show(fired));
}

/**
 * Ten renders in one period, each going as GENERATOR_FAIL says: test-mode orders of two keys (each key's five stay
 * within its active tasks), each ending in error (with `code`, when given).
 */
async function everyRender(mode: 'crash' | 'render', code?: string): Promise<void> {
  const keys = (await Promise.all([customer(0), customer(0)])).map((c) => c.test);
  process.env.GENERATOR_FAIL = mode;
  try {
    const orders = await Promise.all(
      keys.flatMap((key) => [1, 2, 3, 4, 5].map(async (i) => ({ key, r: await post(key, '/videos:quick', { prompt: `A test video about tea ${i}` }) }))),
    );
    for (const { r } of orders) assert.equal(r.status, 201, r.text);
    for (const { key, r } of orders) {
      const ended = (await settled(key, [r.body.id]))[r.body.id]!;
      assert.deepEqual(ended, { status: 'error', ...(code ? { code } : { code: ended.code }) });
    }
  } finally {
    delete process.env.GENERATOR_FAIL;
  }
}

describe('a normal day, replayed against the prod alarms', () => {
  it('pages no one: business as usual fires 0 alarms, and no period of any alarm breaches', async (tc) => {
    // 08:00: keys and webhooks, a quote, the refusals, and two director orders whose timers run through the day.
    clock.begin('opening', at(8));
    const hook = await receiver();
    let down = false;
    const flaky = await receiver((_hit, _n, res) => res.writeHead(down ? 500 : 204).end());
    const alice = await customer(5000, hook.url);
    const bob = await customer(5000, flaky.url);
    const carol = await customer(5000, hook.url);
    const deadline = await post(carol.live, '/videos', { topic: 'Rooibos', duration_seconds: 10, director_mode: true, deadline_seconds: 60 });
    const lapsing = await post(carol.live, '/videos', { topic: 'Sencha', duration_seconds: 10, director_mode: true });
    assert.deepEqual([deadline.status, lapsing.status], [201, 201], deadline.text + lapsing.text);
    const quote = await post(alice.live, '/videos:quote', { topic: 'Oolong', duration_seconds: 10 });
    assert.equal(quote.status, 200, quote.text);
    const quoted = await post(alice.live, '/videos', { topic: 'Oolong', duration_seconds: 10, quote_id: quote.body.quote_id });
    assert.equal(quoted.status, 201, quoted.text);
    // Refusals: no money (402), a used quote (409), a deadline under the least (422), a key past its POSTs (429).
    const broke = await customer(0);
    assert.equal(errorCode(await post(broke.live, '/videos:quick', { prompt: 'A 10 second video about coffee' })), 'insufficient_funds');
    assert.equal(errorCode(await post(alice.live, '/videos', { topic: 'Oolong', duration_seconds: 10, quote_id: quote.body.quote_id })), 'quote_invalid');
    assert.equal((await post(alice.live, '/videos', { topic: 'Tea', deadline_seconds: 30 })).status, 422);
    const eager = await customer(100);
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await post(eager.live, '/videos:quote', { topic: 'Mate' })).status);
    assert.deepEqual([statuses.slice(0, 20).every((s) => s === 200), statuses[20]], [true, 429]);

    // 09:00: the morning burst, more orders than the one slot: they wait well past the audit's grace. Test-mode
    // orders render in their own lane.
    clock.begin('morning burst', at(9));
    const burst = await Promise.all([
      post(alice.live, '/videos:quick', { prompt: 'A 10 second video about black tea' }),
      post(bob.live, '/videos:quick', { prompt: 'A 10 second video about green tea' }),
      ...[1, 2, 3].map((i) => post(alice.test, '/videos:quick', { prompt: `A 10 second test video about tea ${i}` })),
    ]);
    assert.ok(
      burst.every((r) => r.status === 201),
      burst.map((r) => r.text).join('\n'),
    );
    const morning = {
      ...(await settled(alice.live, [quoted.body.id, burst[0]!.body.id])),
      ...(await settled(bob.live, [burst[1]!.body.id])),
      ...(await settled(
        alice.test,
        [2, 3, 4].map((i) => burst[i]!.body.id),
      )),
    };
    assert.ok(
      Object.values(morning).every((o) => o.status === 'done'),
      JSON.stringify(morning),
    );

    // 11:00: customer cancels, of an order waiting in the queue and of one awaiting its review; the one whose render
    // has started is not cancelable (409).
    clock.begin('cancels', at(11));
    // One after the other: the second is created while the first holds the one slot, so it waits.
    const running = await post(alice.live, '/videos', { topic: 'Darjeeling', duration_seconds: 10 });
    const atReview = await post(carol.live, '/videos', { topic: 'Matcha', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, alice.live, running.body.id, ['running']);
    // Running before its render (its script being written) it could still be canceled: its render starts first.
    for (let i = 0; i < 1200 && !(await (await accounts()).orders.get(running.body.id))?.renderStartedAt; i++) await new Promise((r) => setTimeout(r, 25));
    const waiting = await post(alice.live, '/videos', { topic: 'Ceylon', duration_seconds: 10 });
    const queued = await post(alice.live, `/videos/${waiting.body.id}/cancel`, {});
    assert.deepEqual([queued.status, queued.body.status, queued.body.started_at], [200, 'error', undefined], 'canceled while it waited');
    // Rendering (or done by now): not cancelable either way.
    assert.equal(errorCode(await post(alice.live, `/videos/${running.body.id}/cancel`, {})), 'not_cancelable');
    await waitForStatus(t, carol.live, atReview.body.id, ['awaiting_review']);
    assert.equal((await post(carol.live, `/videos/${atReview.body.id}/cancel`, {})).status, 200);
    const canceled = { ...(await settled(alice.live, [running.body.id, waiting.body.id])), ...(await settled(carol.live, [atReview.body.id])) };
    assert.deepEqual(Object.values(canceled), [{ status: 'done' }, { status: 'error', code: 'canceled' }, { status: 'error', code: 'canceled' }]);

    // 13:00: a director's review, approved.
    clock.begin('reviews', at(13));
    const reviewed = await post(carol.live, '/videos', { topic: 'Genmaicha', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, carol.live, reviewed.body.id, ['awaiting_review']);
    assert.equal((await post(carol.live, `/videos/${reviewed.body.id}/review`, { action: 'approve' })).status, 200);
    assert.equal((await settled(carol.live, [reviewed.body.id]))[reviewed.body.id]!.status, 'done');

    // 15:00: bob's receiver is down for a while: his events (a script to review, then its cancel) wait for it.
    clock.begin('receiver down', at(15));
    down = true;
    const downAt = Date.now();
    const bobs = await post(bob.live, '/videos', { topic: 'Hojicha', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, bob.live, bobs.body.id, ['awaiting_review']);
    assert.equal((await post(bob.live, `/videos/${bobs.body.id}/cancel`, {})).status, 200);
    await sleep(RECEIVER_DOWN_MS - (Date.now() - downAt));
    down = false;
    const refused = flaky.hits.filter((h) => h.at >= downAt).length;
    await until('bob’s events delivered', () => flaky.hits.filter((h) => h.at >= downAt).length >= refused + 2, 30_000);
    assert.ok(refused >= 2, 'bob’s receiver refused attempts while down');

    // 17:00: the evening: the deadline passes (the audit cancels that order) and the other review lapses.
    clock.begin('evening', at(17));
    const ends = await settled(carol.live, [deadline.body.id, lapsing.body.id], (REVIEW_SECONDS + 30) * 1000);
    assert.deepEqual(Object.values(ends), [
      { status: 'error', code: 'deadline_exceeded' },
      { status: 'error', code: 'review_expired' },
    ]);
    await t.stack.sfn.idle(60_000);
    assert.equal(t.stack.sfn.running, 0, 'every order and delivery settled');
    // A last audit run measures the queue empty.
    await sleep(2500);

    await loadAlarms(tc);
    const day = evaluate(at(0), at(24));
    const strict = day.breachingPeriods.filter((b) => !(b.name in TRENDS));
    tc.diagnostic(`the day, ${recorded().length} datapoints; counted: ${counted(at(0), at(24))}\n  ${clock.summary().join('\n  ')}`);
    assert.deepEqual(
      { fired: names(day.fired), breaching: names(strict) },
      { fired: [], breaching: [] },
      `alarms that fired on business as usual:\n  ${show(day.fired)}\nperiods that breached an alarm's threshold:\n  ${show(strict)}`,
    );
  });

  it('fires Errors-render-video, and no other, when every render crashes for a stretch', async (tc) => {
    await fault(tc, 'a render that crashes', [at(2, 0, 1), at(2, 5, 1), at(2, 10, 1)], () => everyRender('crash', 'internal_error'));
  });

  it('fires TableThrottles and Api5xxRate when DynamoDB throttles past the retries', async (tc) => {
    const { live } = await customer(100);
    await fault(tc, 'a DynamoDB throttle past the retries', [at(6, 0, 1), at(6, 5, 1)], async () => {
      t.stack.dynamo!.throttleFor(4000);
      const answers = await Promise.all(Array.from({ length: 25 }, () => t.api('GET', '/balance', { key: live })));
      // Those whose every attempt met the throttle are 503; the others got through on a retry.
      assert.ok(
        answers.some((r) => r.status === 503),
        answers.map((r) => r.status).join(),
      );
      await sleep(4000);
      assert.equal((await t.api('GET', '/balance', { key: live })).status, 200);
    });
  });

  it('fires the unexpected-abort alarm when an execution is stopped from outside', async (tc) => {
    const { live } = await customer(1000);
    const sfn = new SFNClient({ region: process.env.AWS_REGION!, endpoint: process.env.SFN_ENDPOINT! });
    await fault(tc, 'an execution stopped from outside', [at(10, 0, 1)], async () => {
      const order = await post(live, '/videos', { topic: 'Yerba', duration_seconds: 10, director_mode: true });
      await waitForStatus(t, live, order.body.id, ['awaiting_review']);
      const stored = (await (await accounts()).orders.get(order.body.id))!;
      const name = stored.execution ?? stored.id;
      const executionArn = `${process.env.ORDER_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${name}`;
      await sfn.send(new StopExecutionCommand({ executionArn, error: 'Operator', cause: 'stopped by hand in the console' }));
      // The recovery names a new execution on the order, which waits for the review again.
      await until('the order’s new execution', async () => ((await (await accounts()).orders.get(order.body.id))!.execution ?? stored.id) !== name);
      assert.equal((await post(live, `/videos/${order.body.id}/cancel`, {})).status, 200);
    });
    sfn.destroy();
  });

  it('fires WebhookDeliveriesDropped when a receiver fails every attempt', async (tc) => {
    const failing = await receiver((_hit, _n, res) => res.writeHead(500).end());
    const senders = await Promise.all([customer(0, failing.url), customer(0, failing.url), customer(0, failing.url)]);
    await fault(tc, 'a webhook receiver failing every attempt', [at(14, 0, 1)], async () => {
      const orders = await Promise.all(
        senders.flatMap((c) =>
          [1, 2, 3, 4].map(async (i) => ({ key: c.test, r: await post(c.test, '/videos:quick', { prompt: `A test video about mate ${i}` }) })),
        ),
      );
      for (const { key, r } of orders) assert.equal((await settled(key, [r.body.id]))[r.body.id]!.status, 'done');
      // Each event dropped after its fifth attempt.
      await until('12 events dropped', () => failing.hits.length >= 12 * 5, 60_000);
    });
  });

  it('fires Api5xxRate when DynamoDB cannot be reached for a while', async (tc) => {
    const { live } = await customer(100);
    await fault(tc, 'a 5xx burst (DynamoDB unreachable)', [at(18, 0, 1), at(18, 5, 1)], async () => {
      await t.stack.dynamo!.goAway();
      try {
        const answers = await Promise.all(Array.from({ length: 25 }, () => t.api('GET', '/balance', { key: live })));
        assert.ok(
          answers.every((r) => r.status === 503),
          answers.map((r) => r.status).join(),
        );
      } finally {
        await t.stack.dynamo!.back();
      }
      assert.equal((await t.api('GET', '/balance', { key: live })).status, 200);
    });
  });

  it('fires RendersFailing, and no other, when every render fails (refunded) for a stretch', async (tc) => {
    await fault(tc, 'renders that fail and are refunded', [at(22, 0, 1), at(22, 5, 1), at(22, 10, 1)], () => everyRender('render'));
  });

  it('pages no one in prod for the same faults in dev, whose functions write the same metrics with their own stage', async (tc) => {
    await loadAlarms(tc);
    // dev and prod share an account and region (docs/deploy.md): dev's functions write the lines prod's wrote above,
    // with STAGE dev. One process runs one stage (its STAGE is read at start), so dev's lines are prod's business
    // metrics of the faults' day as dev writes them: the stage dimension, where the metrics carry one, is dev's. AWS's
    // own metrics are per resource, and each stage has its own resources.
    const faults = [at(0, 0, 1), at(24, 0, 1)];
    const dev = recorded().flatMap((p) => {
      const v = clock.virtual(p.at);
      if (p.namespace !== 'VideoService' || v < faults[0]! || v >= faults[1]!) return [];
      return [{ ...p, at: v + 24 * H, dimensions: 'stage' in p.dimensions ? { ...p.dimensions, stage: 'dev' } : p.dimensions }];
    });
    assert.ok(dev.some((p) => p.name === 'WebhookDeliveriesDropped'));
    const { fired } = evaluate(at(0, 0, 2), at(24, 0, 2), dev);
    assert.deepEqual(names(fired), [], `prod alarms that fired on dev's metrics:\n  ${show(fired)}`);
  });
});
