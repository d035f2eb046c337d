/**
 * A render that dies, on the local stack with one render slot and a second order waiting for it: a render killed
 * mid-way (out of memory: GENERATOR_FAIL=crash-once crashes each order's first render with Runtime.ExitError, as
 * Lambda reports it) is tried once more by RenderVideo's Retry, and an execution stopped from outside mid-render is
 * taken over by a new execution within seconds, which waits the running render out instead of rendering beside it.
 * Either way the order ends done, charged once, and the waiting order gets the slot only after it. No audit runs on
 * its timer (SWEEP_SECONDS is an hour): the recovery is its status-change event's.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { StopExecutionCommand } from '@aws-sdk/client-sfn';
import { onAwsMetric } from '../../local/metrics.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ RENDER_SLOTS: '1', SWEEP_SECONDS: '3600', SWEEP_GRACE_SECONDS: '0' });
const services = async () => (await import('../../functions/app/services.ts')).services();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The shortest video, with no voice or music: the render's retry is tested, not what it shows. */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

/** The render function's invocations and errors, as Lambda's metrics of it count them. */
const render = { calls: 0, errors: 0 };
const stopMetrics = onAwsMetric((p) => {
  if (p.namespace !== 'AWS/Lambda' || p.dimensions.FunctionName !== 'render-video') return;
  if (p.name === 'Invocations') render.calls += p.value;
  if (p.name === 'Errors') render.errors += p.value;
});
after(() => stopMetrics());

/** Two users' orders, the second created while the first holds the one slot. */
async function twoOrders(first: Record<string, unknown>) {
  const a = await t.user({ balance: 1000, trialVideos: 0 });
  const b = await t.user({ balance: 1000, trialVideos: 0 });
  const one = await t.api('POST', '/videos', { key: a.apiKey, body: first });
  const two = await t.api('POST', '/videos', { key: b.apiKey, body: { topic: 'Black tea', ...VIDEO } });
  assert.deepEqual([one.status, two.status], [201, 201], `${one.text} ${two.text}`);
  return { a, b, id: one.body.id as string, cost: one.body.cost as number, second: two.body.id as string };
}

/** The order was done once, charged once and never refunded; the waiting order began only after it was done. */
async function chargedOnceAndSlotHeld(o: Awaited<ReturnType<typeof twoOrders>>) {
  const done = await waitForStatus(t, o.a.apiKey, o.id, ['done', 'error'], 120_000);
  assert.deepEqual([done.status, done.error?.code, done.refund], ['done', undefined, undefined]);
  assert.equal((await t.api('GET', '/balance', { key: o.a.apiKey })).body.balance, 1000 - o.cost, 'charged once');
  const { accounts, orders } = (await services()).stores;
  const lines = (await accounts.ledger(o.a.userId)).filter((l) => l.orderId === o.id);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.amount]),
    [['charge', -o.cost]],
    'one charge line, no refund',
  );
  assert.equal((await waitForStatus(t, o.b.apiKey, o.second, ['done', 'error'], 120_000)).status, 'done');
  const [first, next] = [await orders.get(o.id), await orders.get(o.second)];
  assert.ok(
    Date.parse(next!.startedAt!) >= Date.parse(first!.finishedAt!),
    `the waiting order started at ${next!.startedAt}, before the first was done at ${first!.finishedAt}: its slot was handed on`,
  );
  return first!;
}

describe('a render that dies', () => {
  it('killed mid-way (out of memory) is tried once more: done, charged once, its slot held', async () => {
    const before = { ...render };
    process.env.GENERATOR_FAIL = 'crash-once';
    try {
      const o = await twoOrders({ topic: 'Green tea', ...VIDEO });
      const first = await chargedOnceAndSlotHeld(o);
      assert.equal(first.renderExecution, first.execution ?? first.id, "the retry is the same execution's");
    } finally {
      delete process.env.GENERATOR_FAIL;
    }
    // Each order's first render crashed, and its retry rendered: four invocations, two errors (a rate alarm's 10 calls
    // a period and 3 periods of 5 are far off).
    assert.deepEqual({ calls: render.calls - before.calls, errors: render.errors - before.errors }, { calls: 4, errors: 2 });
  });

  it('stopped from outside mid-render is taken over within seconds, and the running render is waited out, not doubled', async () => {
    const { orders, files } = (await services()).stores;
    const { aws } = await import('../../functions/adapters/aws.ts');
    const sfn = await aws().sfn();
    // 20 seconds of video: a render of several seconds, long enough to stop its execution in the middle of it.
    const o = await twoOrders({ topic: 'Green tea', duration_seconds: 20 });
    const end = Date.now() + 60_000;
    let rendering = await orders.get(o.id);
    while (!rendering?.renderStartedAt) {
      assert.ok(Date.now() < end && rendering?.status !== 'done' && rendering?.status !== 'error', `the render did not start (${rendering?.status})`);
      await sleep(50);
      rendering = await orders.get(o.id);
    }
    const name = rendering.execution ?? rendering.id;
    const machine = t.stack.env.ORDER_STATE_MACHINE_ARN!;
    const stopped = Date.now();
    await sfn.send(new StopExecutionCommand({ executionArn: `${machine.replace(':stateMachine:', ':execution:')}:${name}`, error: 'Operator' }));
    assert.equal(await files.exists(o.id, 'video'), false, 'stopped mid-render');
    let taken = await orders.get(o.id);
    while (taken?.execution === rendering.execution) {
      assert.ok(Date.now() - stopped < 5000, 'a new execution named within seconds');
      await sleep(50);
      taken = await orders.get(o.id);
    }
    assert.match(taken!.execution ?? '', new RegExp(`^${o.id}-e\\d+$`));
    const first = await chargedOnceAndSlotHeld(o);
    assert.equal(first.renderExecution, name, "the new execution took the stopped one's render, and rendered none of its own");
    assert.equal(first.renderStartedAt, rendering.renderStartedAt);
    assert.ok(Date.parse(first.finishedAt!) - stopped < 60_000, `done ${Date.parse(first.finishedAt!) - stopped} ms after the stop`);
  });
});
