/**
 * The audit sweep on the local stack, on its timer as on its AWS schedule, with a failure caused for real: the local
 * Step Functions endpoint stops listening while an order is created (the API still answers 201 and charges), then
 * comes back, and the sweep starts the order, which reaches done, charged once. (An execution stopped from outside is
 * the status-change event's to recover: recovery.test.ts.) So is a balance.low event whose delivery start was throttled
 * past the SDK's retries at the charge that recorded it: the sweep starts its delivery, once. An unstarted marker left
 * behind by a creation whose start did happen (it died before dropping the marker) is dropped with no recovery counted:
 * Step Functions answers the repeated start as the running execution's own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { captureEmf } from '../support/emf.ts';
import { receiver } from '../support/receiver.ts';
import { useStack, waitForStatus } from '../support/stack.ts';
import { sfnFaults } from '../support/sfn-faults.ts';

const t = useStack({ SWEEP_SECONDS: '1', SWEEP_GRACE_SECONDS: '2', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', POWERTOOLS_METRICS_DISABLED: 'false' });
const emf = captureEmf();
/** The shortest video, with no voice or music: the sweep is tested, not what the videos show. */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

describe('the recovery sweep', () => {
  it('delivers a balance.low whose delivery failed to start with the charge that crossed the threshold', async () => {
    const { apiKey: key } = await t.user({ balance: 500, trialVideos: 0 });
    const r = await receiver();
    assert.equal((await t.api('POST', '/webhooks', { key, body: { url: r.url } })).status, 201);
    assert.equal((await t.api('POST', '/balance/alerts', { key, body: { below: 450 } })).status, 200);
    // The next 20 starts of a delivery execution are throttled, more than the SDK's retries of one call: the creation's
    // hand-off of the event fails (its answer is 201 all the same), and the pending marker is the sweep's to act on.
    const THROTTLED = 20;
    let starts = 0;
    const delivery = t.stack.env.DELIVERY_STATE_MACHINE_ARN;
    sfnFaults(t.stack.sfn).failNext('StartExecution', 'ThrottlingException', 400, THROTTLED, (input) => input.stateMachineArn === delivery && ++starts > 0);
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Lemonade', ...VIDEO, director_mode: true } });
    assert.equal(created.status, 201, created.text);
    // Every start the creation tried was refused (the throttle was not used up): its hand-off failed.
    const tried = starts;
    assert.ok(tried >= 1 && tried < THROTTLED, `the creation tried ${tried} starts`);
    const lows = () => r.hits.filter((h) => h.headers['x-service-event'] === 'balance.low');
    for (let i = 0; i < 300 && !lows().length; i++) await new Promise((ok) => setTimeout(ok, 100));
    assert.ok(starts > THROTTLED, `delivered by a start after the throttle, the sweep's (${starts} starts)`);
    assert.equal(lows().length, 1, 'delivered by the sweep');
    assert.equal(JSON.parse(lows()[0]!.raw.toString('utf8')).order_id, created.body.id);
    // Once: not "still one after a while", but after three sweep runs have ended since the delivery (each writes its
    // queue gauges at its end), at least two of which began after it, no other delivery of the event was started
    // (executions of an event are named by its id), however slow the machine.
    const eventId = String(lows()[0]!.headers['webhook-id']);
    const startsOfEvent = () => t.stack.sfn.executionNames(delivery!).filter((n) => n.startsWith(eventId.replace(/[^A-Za-z0-9_-]/g, '-'))).length;
    assert.equal(startsOfEvent(), 1, `one delivery of ${eventId} started`);
    const delivered = emf.mark();
    const runsSince = () => emf.records(delivered).filter((rec) => rec.values.QueueDepthApi !== undefined).length;
    for (const end = Date.now() + 60_000; runsSince() < 3 && Date.now() < end; ) await new Promise((ok) => setTimeout(ok, 100));
    assert.ok(runsSince() >= 3, `${runsSince()} sweep runs ended since the delivery`);
    assert.equal(startsOfEvent(), 1, 'no second delivery started');
    assert.equal(lows().length, 1, 'once');
  });

  it('starts an order whose StartExecution failed after its charge, and it reaches done', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000, trialVideos: 0 });
    await t.stack.sfn.goAway();
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Lemonade', ...VIDEO } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await t.api('GET', `/videos/${created.body.id}`, { key })).body.status, 'queued');
    await t.stack.sfn.listen();
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error'], 90_000);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const { services } = await import('../../functions/app/services.ts');
    const ledger = await services().stores.accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount]).filter(([k]) => k !== 'top_up'),
      [['charge', -100]],
    );
  });

  it('keeps in its cursor item the shard its next read of due deadlines starts at, one on each run', async () => {
    const { AuditCursors } = await import('../../functions/adapters/audit.ts');
    const { aws } = await import('../../functions/adapters/aws.ts');
    const cursors = new AuditCursors(aws().ddb, t.stack.env.TABLE_NAME!);
    const seen: number[] = [];
    for (const end = Date.now() + 15_000; seen.length < 3 && Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const { deadlines } = await cursors.load();
      if (deadlines !== undefined && deadlines !== seen.at(-1)) seen.push(deadlines);
    }
    // Runs on the timer, a second apart: each moves it on by one (mod the 10 marker shards).
    assert.equal(seen.length, 3, `the shards seen: ${seen}`);
    assert.deepEqual([(seen[1]! - seen[0]! + 10) % 10, (seen[2]! - seen[1]! + 10) % 10], [1, 1]);
  });

  it('drops an unstarted marker whose start had happened, and counts no recovery: the running execution answers the start', async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 0 });
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Perry', ...VIDEO, director_mode: true } });
    assert.equal(created.status, 201, created.text);
    await waitForStatus(t, key, created.body.id, ['awaiting_review']);
    const from = emf.mark();
    // The creation started it and died before it dropped its marker: the marker as its transaction wrote it.
    const { keys } = await import('../../functions/adapters/keys.ts');
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { services } = await import('../../functions/app/services.ts');
    const order = (await services().stores.orders.get(created.body.id))!;
    const marker = keys.unstartedOrder(order.queueShard, order.id);
    await aws().ddb.send(new PutCommand({ TableName: t.stack.env.TABLE_NAME, Item: { ...marker, orderId: order.id, createdAt: order.createdAt } }));
    const left = async () => (await aws().ddb.send(new GetCommand({ TableName: t.stack.env.TABLE_NAME, Key: marker, ConsistentRead: true }))).Item;
    for (const end = Date.now() + 15_000; (await left()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 200));
    assert.equal(await left(), undefined, 'the audit dropped the marker');
    // The run counts what it recovered at its end, with its queue gauges: the first gauges written from here on are
    // that run's (or a later one's).
    const dropped = emf.mark();
    for (const end = Date.now() + 10_000; !emf.records(dropped).some((r) => r.values.QueueDepthApi !== undefined) && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      emf.records(dropped).some((r) => r.values.QueueDepthApi !== undefined),
      'the run wrote its metrics',
    );
    assert.equal(emf.sums(from).OrdersRecovered ?? 0, 0);
    assert.equal((await t.api('GET', `/videos/${order.id}`, { key })).body.status, 'awaiting_review');
  });
});
