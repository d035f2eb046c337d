/**
 * Recovery on the local stack, with no sweep on its timer (SWEEP_SECONDS is an hour: only the run at start happens):
 * an execution stopped from outside reaches the recovery through its status-change event, as EventBridge's rule sends
 * it on AWS, and the order (or event) goes on under a new execution within seconds. Then the audit sweep, run by
 * hand, survives a DescribeExecution that stays throttled past the SDK's retries and still reaches the events. A stop
 * from outside counts ExecutionsAbortedUnexpectedly (an alarm pages on it); a customer's cancel, which stops the
 * execution too, does not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DescribeExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { invoke, onInvocation } from '../../local/invocations.ts';
import { lambdaContext } from '../../local/gateway.ts';
import { captureEmf } from '../support/emf.ts';
import { useStack, waitForStatus } from '../support/stack.ts';
import { sfnFaults } from '../support/sfn-faults.ts';

const t = useStack({
  SWEEP_SECONDS: '3600',
  SWEEP_GRACE_SECONDS: '0',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
  WEBHOOK_RETRY_BASE_MS: '2000',
  POWERTOOLS_METRICS_DISABLED: 'false',
});
const emf = captureEmf();
/** The shortest video, with no voice or music: recovery is tested, not what the videos show. */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

const executionArn = (machineArn: string, name: string) => `${machineArn.replace(':stateMachine:', ':execution:')}:${name}`;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() - start > ms) return { value, ms: Date.now() - start };
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('recovery driven by events', () => {
  it('gives an order whose execution was stopped from outside a new execution within seconds, with no sweep run', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000, trialVideos: 0 });
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Cider', ...VIDEO, director_mode: true } });
    assert.equal(created.status, 201);
    await waitForStatus(t, key, created.body.id, ['awaiting_review']);
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { services } = await import('../../functions/app/services.ts');
    const sfn = await aws().sfn();
    const first = executionArn(t.stack.env.ORDER_STATE_MACHINE_ARN!, created.body.id);
    await sfn.send(new StopExecutionCommand({ executionArn: first }));
    const { value: order, ms } = await until(
      () => services().stores.orders.get(created.body.id),
      (o) => Boolean(o?.execution),
      10_000,
    );
    assert.match(order?.execution ?? '', new RegExp(`^${created.body.id}-e\\d+$`), 'a new execution, named by the recovery');
    assert.ok(ms < 5000, `recovered in ${ms} ms`);
    const next = executionArn(t.stack.env.ORDER_STATE_MACHINE_ARN!, order!.execution!);
    // The recovery writes the new name on the order before it starts the execution: wait for the start.
    const described = await until(
      () => sfn.send(new DescribeExecutionCommand({ executionArn: next })).catch((err: Error) => err),
      (d) => !(d instanceof Error && d.name === 'ExecutionDoesNotExist'),
      5000,
    );
    assert.equal((described.value as { status?: string }).status, 'RUNNING');
    // Its review wait takes a new token: the review goes on, and the order reaches done, charged once.
    await until(
      async () => t.stack.sfn.transitions(next),
      (n) => n >= 4,
      30_000,
    );
    assert.equal((await t.api('POST', `/videos/${created.body.id}/review`, { key, body: { action: 'approve' } })).status, 200);
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error'], 90_000);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const ledger = await services().stores.accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount]).filter(([k]) => k !== 'top_up'),
      [['charge', -100]],
    );
  });

  it("counts an execution stopped from outside as aborted unexpectedly, and a customer's cancel (a stop too) not", async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 0 });
    const { aws } = await import('../../functions/adapters/aws.ts');
    const sfn = await aws().sfn();
    /** Runs `act`, then waits for the recovery's run on the status-change event it causes. */
    const recovered = async (act: () => Promise<unknown>) => {
      let done: () => void;
      const ran = new Promise<void>((ok) => {
        done = ok;
      });
      const off = onInvocation((name) => name === 'recover' && done());
      try {
        await act();
        await Promise.race([ran, new Promise((_, no) => setTimeout(() => no(new Error('no recovery ran')), 10_000))]);
      } finally {
        off();
      }
    };
    const [canceled, stopped] = await Promise.all(
      ['Mead', 'Sbiten'].map(async (topic) => (await t.api('POST', '/videos', { key, body: { topic, ...VIDEO, director_mode: true } })).body.id as string),
    );
    for (const id of [canceled, stopped]) await waitForStatus(t, key, id!, ['awaiting_review']);
    const from = emf.mark();
    await recovered(() => t.api('POST', `/videos/${canceled}/cancel`, { key }));
    assert.equal(emf.sums(from).ExecutionsAbortedUnexpectedly ?? 0, 0, 'the service stopped it');
    await recovered(() => sfn.send(new StopExecutionCommand({ executionArn: executionArn(t.stack.env.ORDER_STATE_MACHINE_ARN!, stopped!) })));
    assert.equal(emf.sums(from).ExecutionsAbortedUnexpectedly, 1);
    const counted = emf.records(from).find((r) => r.metrics.some((m) => m.name === 'ExecutionsAbortedUnexpectedly'))!;
    assert.deepEqual(counted.dimensions, [['service', 'stage']]);
  });

  it('gives a delivery stopped from outside between its attempts a new execution, and the event is delivered', async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 0 });
    const { services } = await import('../../functions/app/services.ts');
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { eventExecution } = await import('../../functions/core/executions.ts');
    const { createServer } = await import('node:http');
    // The first attempt is refused: the delivery waits out its backoff (2 s here) before the next.
    let attempts = 0;
    const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(++attempts === 1 ? 503 : 204).end()));
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      assert.equal((await t.api('POST', '/webhooks', { key, body: { url } })).status, 201);
      const created = await t.api('POST', '/videos', { key, body: { topic: 'Kvass', ...VIDEO, director_mode: true } });
      await waitForStatus(t, key, created.body.id, ['awaiting_review']);
      const eventId = `${created.body.id}:awaiting_review:1`;
      await until(
        async () => attempts,
        (n) => n >= 1,
        30_000,
      );
      const event = await services().stores.events.get(created.body.id, eventId);
      assert.ok(event, `the event ${eventId} is recorded`);
      assert.equal(event.delivery, 'pending', 'its first attempt failed: it waits for the next');
      const sfn = await aws().sfn();
      await sfn.send(new StopExecutionCommand({ executionArn: executionArn(t.stack.env.DELIVERY_STATE_MACHINE_ARN!, eventExecution(event)) }));
      const { value: restarted, ms } = await until(
        () => services().stores.events.get(created.body.id, eventId),
        (e) => Boolean(e?.execution),
        10_000,
      );
      assert.match(restarted?.execution ?? '', /-e\d+$/, 'a new delivery execution, named by the recovery');
      assert.ok(ms < 5000, `recovered in ${ms} ms`);
      const { value: settled } = await until(
        () => services().stores.events.get(created.body.id, eventId),
        (e) => e?.delivery === 'delivered',
        30_000,
      );
      assert.equal(settled?.delivery, 'delivered');
      assert.equal(attempts, 2, 'one refused attempt, then the new execution delivered it');
    } finally {
      await new Promise<void>((ok) => receiver.close(() => ok()));
    }
  });

  it('the audit settles each item on its own: a throttled DescribeExecution defers one order, and the lost event is still delivered', async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 0 });
    const { services } = await import('../../functions/app/services.ts');
    const { handler: sweepJob } = await import('../../functions/jobs/sweep.ts');
    const { handler: markFailed } = await import('../../functions/steps/mark-failed.ts');
    // Receives the webhook deliveries.
    const { createServer } = await import('node:http');
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(String(req.headers['webhook-id']));
      req.resume().on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      assert.equal((await t.api('POST', '/webhooks', { key, body: { url } })).status, 201);
      // A director order at review; then, with Step Functions away, an order charged (its start fails) and the review's
      // lapse recorded (its event's delivery fails to start): an order and an event no workflow carries.
      const review = await t.api('POST', '/videos', { key, body: { topic: 'Soda', ...VIDEO, director_mode: true } });
      await waitForStatus(t, key, review.body.id, ['awaiting_review']);
      await t.stack.sfn.goAway();
      // (A director-mode order: its creation starts its execution; any other waits in the queue for its admission.)
      const unstarted = await t.api('POST', '/videos', { key, body: { topic: 'Juice', ...VIDEO, director_mode: true } });
      assert.equal(unstarted.status, 201);
      await invoke('mark-failed', () => markFailed({ orderId: review.body.id, failure: { Error: 'States.Timeout' } }, lambdaContext('mark-failed')));
      await t.stack.sfn.listen();
      // Its unstarted marker is dropped, as if its start had succeeded and the execution had then been lost with its
      // status-change event: only the audit's walk, with a DescribeExecution, can find it now.
      await services().stores.orders.started((await services().stores.orders.get(unstarted.body.id))!);
      // Every DescribeExecution of that order is throttled, past the SDK's three attempts.
      const throttled = executionArn(t.stack.env.ORDER_STATE_MACHINE_ARN!, unstarted.body.id);
      sfnFaults(t.stack.sfn).failNext('DescribeExecution', 'ThrottlingException', 400, 3, (input) => input.executionArn === throttled);
      const run = await invoke('sweep', () => sweepJob({ graceSeconds: 0 }, lambdaContext('sweep')));
      assert.ok(run.deferred >= 1, `the throttled order was left for the next run: ${JSON.stringify(run)}`);
      assert.ok(run.sent >= 1, `the lost event was reached in the same run: ${JSON.stringify(run)}`);
      assert.equal((await services().stores.orders.get(unstarted.body.id))!.status, 'queued');
      const errorEvent = `${review.body.id}:error`;
      const { value: delivered } = await until(
        async () => received.includes(errorEvent),
        (v) => v,
        30_000,
      );
      assert.ok(delivered, 'the error event reached the receiver');
      const second = await invoke('sweep', () => sweepJob({ graceSeconds: 0 }, lambdaContext('sweep')));
      assert.equal(second.started, 1, 'the next run resumes at the deferred order and starts it');
      assert.equal((await waitForStatus(t, key, unstarted.body.id, ['awaiting_review', 'error'], 90_000)).status, 'awaiting_review');
    } finally {
      await new Promise<void>((ok) => receiver.close(() => ok()));
    }
  });
});
