/**
 * The recovery sweep on in-memory ports: every open order and every unsettled event stays carried by a running
 * workflow (started when missing, started anew under a recorded name when ended), dead slots are reclaimed and
 * waiting orders admitted.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { cancel, type CancelPorts, DEADLINE_EXCEEDED } from '../../functions/core/cancel-order.ts';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { CHANNELS, RenderLanes, RenderQueue, START_AT_ADMISSION, WAIT_WRITE_SECONDS, waitingIn } from '../../functions/core/capacity.ts';
import { deliver } from '../../functions/core/deliveries.ts';
import { eventExecution } from '../../functions/core/executions.ts';
import { type AuditCursor, recoverEnded, sweep, SWEEP_BUDGET, type SweepPorts } from '../../functions/core/sweep.ts';
import {
  MemoryCapacity,
  memoryCreation,
  MemoryDeliveryWorkflow,
  MemoryEvents,
  MemoryMetrics,
  MemoryOrders,
  MemoryTable,
  MemoryWebhooks,
  MemoryWorkflow,
  memoryAssets,
  recordEvent,
  ScriptedReceiver,
  uploadedAsset,
} from './memory.ts';

let table: MemoryTable;
let workflow: MemoryWorkflow;
let delivery: MemoryDeliveryWorkflow;
let capacity: MemoryCapacity;
let metrics: MemoryMetrics;
let clock: number;
let ports: SweepPorts;
let queue: RenderQueue;
let cursor: AuditCursor;
const now = () => new Date(clock);

beforeEach(() => {
  table = new MemoryTable();
  workflow = new MemoryWorkflow();
  delivery = new MemoryDeliveryWorkflow();
  capacity = new MemoryCapacity();
  metrics = new MemoryMetrics();
  clock = Date.parse('2026-11-23T10:00:00Z');
  queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 2, leaseSeconds: 60, botRun: 3, now });
  const orders = new MemoryOrders(table);
  const cancellation: CancelPorts = {
    orders,
    accounts: { get: async (userId) => table.account(userId) },
    capacity: new RenderLanes({
      live: queue,
      test: new RenderQueue({ store: new MemoryCapacity(), wakeup: capacity, slots: 1, leaseSeconds: 60, botRun: 3, now }),
    }),
    announce: async () => {},
    metrics,
    now,
    stopWorkflow: (order) => workflow.stop(order),
    log: { warn: () => {} },
  };
  ports = {
    orders,
    workflow,
    events: new MemoryEvents(table),
    delivery,
    queue,
    metrics,
    graceSeconds: 60,
    reviewWaitSeconds: 900,
    now,
    expire: async (order) => void (await cancel(cancellation, order, DEADLINE_EXCEEDED)),
    cursor: {
      load: async () => cursor,
      save: async (c) => {
        cursor = c;
      },
    },
    budget: { ...SWEEP_BUDGET },
    isBusy: (err) => (err as Error).name === 'ThrottlingException',
    log: { warn: () => {} },
  };
  cursor = {};
  table.addAccount({ userId: 'U', balance: 1000 });
});

/** An order's video.done event, recorded unsettled (no delivery started). */
const doneEvent = (orderId: string) =>
  recordEvent(table, { id: `${orderId}:done`, type: 'video.done', orderId, userId: 'U', record: { id: orderId } as never, createdAt: now().toISOString() });

/** What a run recovered and freed (its calls and items are asserted apart). */
const counts = ({ started, sent, reclaimed, admitted }: Awaited<ReturnType<typeof sweep>>) => ({ started, sent, reclaimed, admitted });

const create = async (topic: string) =>
  (
    await memoryCreation(table, workflow, metrics).create({
      account: table.account('U'),
      request: { kind: 'explicit', params: createVideoBody.parse({ topic }) },
      now: now(),
    })
  ).response.id;

describe('the recovery sweep', () => {
  it('cancels and refunds an open order past its deadline, stops its workflow, and leaves one within it alone', async () => {
    const request = (topic: string, deadlineSeconds: number) => ({
      account: table.account('U'),
      request: { kind: 'explicit' as const, params: createVideoBody.parse({ topic, director_mode: true }), deadlineSeconds },
      now: now(),
    });
    const creation = memoryCreation(table, workflow, metrics);
    const late = (await creation.create(request('Tea', 120))).response.id;
    const onTime = (await creation.create(request('Coffee', 3600))).response.id;
    assert.equal(table.account('U').balance, 1000 - 2 * 100);
    clock += 121_000;
    await sweep(ports);
    const order = table.orders.get(late)!;
    assert.deepEqual([order.status, order.error?.code, order.refunded], ['error', 'deadline_exceeded', true]);
    assert.equal(table.orders.get(onTime)!.status, 'queued');
    assert.equal(table.account('U').balance, 1000 - 100, 'the late order refunded once');
    assert.deepEqual(workflow.stopped, [late]);
    // A second sweep finds it closed: nothing more.
    await sweep(ports);
    assert.equal(table.ledger.filter((l) => l.orderId === late && l.kind === 'refund').length, 1);
  });

  it('makes the copies of an order whose creation died before them, of the versions checked, then starts it', async () => {
    const assets = memoryAssets(table);
    const logo = await uploadedAsset(assets, 'U', now());
    const real = assets.files.copyToOrder.bind(assets.files);
    // The creation dies between its commit and its copies (here: the store refuses them).
    assets.files.copyToOrder = async () => {
      throw new Error('the process died');
    };
    const creation = memoryCreation(table, workflow, metrics, () => undefined, undefined, undefined, undefined, assets);
    const request = { kind: 'explicit' as const, params: createVideoBody.parse({ topic: 'Tea', logo }) };
    const { id } = (await creation.create({ account: table.account('U'), request, now: now() })).response;
    assert.deepEqual([workflow.started, [...assets.files.copies.keys()]], [[], []]);
    assets.files.copyToOrder = real;
    clock += 61_000;
    const warned: string[] = [];
    assert.equal((await sweep({ ...ports, assetCopies: assets.files, log: { warn: (m) => void warned.push(m) } })).started, 1);
    assert.deepEqual([workflow.started, [...assets.files.copies.keys()], warned], [[id], [`${id}/${logo}`], []]);
    // One whose asset went meanwhile is started all the same (its creation may have copied it): its render decides.
    assets.files.copyToOrder = async () => {
      throw new Error('the process died');
    };
    const other = (await creation.create({ account: table.account('U'), request, now: now() })).response.id;
    assets.files.copyToOrder = real;
    await assets.files.delete({ id: logo });
    clock += 61_000;
    assert.equal((await sweep({ ...ports, assetCopies: assets.files, log: { warn: (m) => void warned.push(m) } })).started, 1);
    assert.deepEqual([workflow.started, warned], [[id, other], ['an asset went before the audit copied it']]);
  });

  it('starts an order charged while its workflow could not start, once it is past the grace, and nothing twice', async () => {
    workflow.failStarts = true;
    const id = await create('Tea');
    workflow.failStarts = false;
    assert.deepEqual(counts(await sweep(ports)), { started: 0, sent: 0, reclaimed: 0, admitted: 0 }, 'too young: its start may be on its way');
    clock += 61_000;
    assert.deepEqual(counts(await sweep(ports)), { started: 1, sent: 0, reclaimed: 0, admitted: 0 });
    assert.deepEqual(workflow.started, [id]);
    assert.equal((await sweep(ports)).started, 0, 'its execution runs: the next sweep leaves it alone');
    assert.equal(metrics.of('OrdersRecovered'), 1);
    assert.equal(table.account('U').balance, 900, 'charged once');
  });

  it('gives an open order whose execution ended a new one, its name recorded first; one lost with a stop, its own again', async () => {
    const ended = await create('Tea');
    const lost = await create('Coffee');
    clock += 61_000;
    assert.equal((await sweep(ports)).started, 0, 'both run');
    // One execution failed before it closed its order (or was stopped); the other vanished with a local stop.
    workflow.end(ended);
    workflow.lose(lost);
    assert.equal((await sweep(ports)).started, 2);
    const restarted = table.orders.get(ended)!.execution!;
    assert.equal(restarted, `${ended}-s${clock}`);
    assert.deepEqual(workflow.started.slice(2).sort(), [lost, restarted].sort());
    assert.equal((await sweep(ports)).started, 0);
    assert.equal(metrics.of('OrdersRecovered'), 2);
  });

  it('forgets closed orders: the transition to done or error removes the marker, and a stray marker goes', async () => {
    const id = await create('Tea');
    const order = table.orders.get(id)!;
    await new MemoryOrders(table).transition({ order, to: 'running', now: now() });
    await new MemoryOrders(table).transition({ order: { ...order, status: 'running' }, to: 'done', now: now() });
    assert.equal(table.open.has(id), false);
    table.open.add('vid_gone');
    workflow.end(id);
    clock += 61_000;
    assert.equal((await sweep(ports)).started, 0);
    assert.equal(table.open.size, 0);
  });

  it('frees the slot of a closed order or an ended lease and admits the order waiting for it', async () => {
    table.orders.set('vid_done', { id: 'vid_done', status: 'done' } as never);
    table.orders.set('vid_stuck', { id: 'vid_stuck', status: 'running' } as never);
    for (const id of ['vid_done', 'vid_stuck', 'vid_next']) await queue.awaitSlot({ id, channel: 'api', userId: id }, `t-${id}`);
    assert.deepEqual(capacity.holders().sort(), ['vid_done', 'vid_stuck']);
    assert.deepEqual(counts(await sweep(ports)), { started: 0, sent: 0, reclaimed: 1, admitted: 1 }, 'the done order released late');
    assert.deepEqual(capacity.holders().sort(), ['vid_next', 'vid_stuck']);
    clock += 61_000;
    // The stuck holder's lease has ended, and so has the new holder's: both are freed; nobody waits.
    assert.deepEqual(counts(await sweep(ports)), { started: 0, sent: 0, reclaimed: 2, admitted: 0 });
    assert.equal(metrics.of('SlotsReclaimed'), 3);
    // Every run measures the queue for the operators.
    for (const id of ['vid_a', 'vid_b', 'vid_c']) {
      table.orders.set(id, { id, status: 'queued' } as never);
      await queue.awaitSlot({ id, channel: 'api', userId: id }, `t-${id}`);
    }
    clock += 30_000;
    await sweep(ports);
    assert.deepEqual(Object.fromEntries(metrics.gauges), {
      QueueDepthApi: 1,
      QueueDepthBot: 0,
      OldestWaitingApiSeconds: 30,
      OldestWaitingBotSeconds: 0,
      SlotsInUse: 2,
    });
  });

  it('keeps every unsettled event carried by a delivery: starts a lost one, restarts an ended one, leaves a settled one', async () => {
    const event = (orderId: string) =>
      recordEvent(table, { id: `${orderId}:done`, type: 'video.done', orderId, userId: 'U', record: { id: orderId } as never, createdAt: now().toISOString() });
    const settled = event('vid_01jz0000000000000000000001');
    const lost = event('vid_01jz0000000000000000000002');
    const died = event('vid_01jz0000000000000000000003');
    const webhooks = new MemoryWebhooks(table);
    await webhooks.save({ id: 'wh_1', userId: 'U', url: 'https://hooks.example/v', secret: 's', active: true, createdAt: now().toISOString() }, undefined);
    const events = new MemoryEvents(table);
    await delivery.start(settled);
    const step = await deliver({ events, webhooks, sender: new ScriptedReceiver(), retryBaseMs: 1000, metrics, now }, settled.orderId, settled.id);
    assert.equal(step.outcome, 'delivered');
    assert.equal(table.pending.has(settled.id), false, 'a delivered event is settled');
    await delivery.start(died);
    delivery.end(died.id);
    assert.equal((await sweep(ports)).sent, 0, 'too young: its start may be on its way');
    clock += 61_000;
    assert.deepEqual(counts(await sweep(ports)), { started: 0, sent: 2, reclaimed: 0, admitted: 0 });
    const restarted = table.events.get(died.id)!.execution!;
    assert.deepEqual(delivery.started, [settled.id, died.id, lost.id, restarted]);
    assert.equal((await sweep(ports)).sent, 0, 'both run now');
    assert.equal(metrics.of('DeliveriesRecovered'), 2);
  });

  it('settles each item on its own: a throttled DescribeExecution defers that order, and the events are still reached', async () => {
    const first = await create('Tea');
    const second = await create('Coffee');
    workflow.lose(first);
    workflow.lose(second);
    const lost = doneEvent('vid_01jz0000000000000000000009');
    clock += 61_000;
    // Today's main ran every check in one Promise.all: this throttle rejected the run before the events were read.
    workflow.throttleDescribes = 1;
    const run = await sweep(ports);
    assert.deepEqual(counts(run), { started: 1, sent: 1, reclaimed: 0, admitted: 0 }, 'one order deferred, the other and the event recovered');
    assert.equal(run.deferred, 1);
    assert.deepEqual(delivery.started, [lost.id]);
    assert.equal(cursor.orders, undefined, 'the cursor stays before the deferred order (the first)');
    const next = await sweep(ports);
    assert.equal(next.started, 1, 'the next run resumes at the deferred order');
    assert.deepEqual(workflow.started.slice(-2).sort(), [first, second].sort());
  });

  it('spends at most its budget of Step Functions calls a run and resumes from its cursor, skipping orders at review', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push(await create(`Topic ${i}`));
    const reviewed = ids.filter((_, i) => i % 3 === 0);
    for (const id of reviewed) table.orders.get(id)!.status = 'awaiting_review';
    for (const id of ids) workflow.lose(id);
    clock += 61_000;
    ports.budget = { describes: 2, starts: 2, items: 2000 };
    const runs: number[] = [];
    for (let run = 0; run < 10; run++) {
      const before = workflow.describes;
      const r = await sweep(ports);
      assert.ok(workflow.describes - before <= 2 && r.calls <= 4, `run ${run}: ${r.calls} calls, ${workflow.describes - before} describes`);
      runs.push(r.started);
      if (r.started === 0) break;
    }
    const restarted = workflow.started.slice(ids.length);
    assert.deepEqual(restarted, ids.filter((id) => !reviewed.includes(id)).sort(), 'every order but those at review, once each, in order');
    assert.deepEqual(runs, [2, 2, 2, 0], 'two a run, each run resuming where the last one stopped');
    assert.deepEqual(
      workflow.described.filter((n) => reviewed.includes(n)),
      [],
      'no order at review was described',
    );
  });

  it('walks past a page whose markers are all within the grace (a burst), reading each page once', async () => {
    const old: string[] = [];
    for (let i = 0; i < 9; i++) old.push(await create(`Topic ${i}`));
    for (const id of old) workflow.lose(id);
    clock += 61_000;
    // A burst: 60 orders created within the grace, after the 9 (ids sort by creation), so the walk's second page holds
    // none it may check; 9 taken two at a time leave one, and the walk reads on while it holds one.
    const template = table.orders.get(old[0]!)!;
    for (let i = 0; i < 60; i++) {
      const id = `vid_zz${String(i).padStart(4, '0')}`;
      table.orders.set(id, { ...structuredClone(template), id, createdAt: now().toISOString() });
      table.open.add(id);
    }
    const orders = ports.orders as MemoryOrders;
    const openPage = orders.openPage.bind(orders);
    let reads = 0;
    orders.openPage = async (...a) => {
      // Bounded, so that a walk reading the same page again fails here instead of never ending.
      if (++reads > 10) throw new Error(`${reads} reads of the open-order index in one run`);
      return openPage(...a);
    };
    const run = await sweep(ports);
    assert.equal(run.started, 9, 'the 9 orders past the grace');
    assert.equal(reads, 2, 'two pages of 50: the 9 with 41 of the burst, then the other 19');
  });

  it('interleaves orders and events: a budget spent on orders still reaches an event', async () => {
    for (let i = 0; i < 10; i++) workflow.lose(await create(`Topic ${i}`));
    const lost = doneEvent('vid_01jz0000000000000000000009');
    clock += 61_000;
    ports.budget = { describes: 4, starts: 4, items: 2000 };
    const run = await sweep(ports);
    assert.equal(run.sent, 1);
    assert.deepEqual(delivery.started, [lost.id]);
  });
  it('starts an order whose start failed from its unstarted marker, with no DescribeExecution, and cancels a due deadline past the budget', async () => {
    workflow.failStarts = true;
    const unstarted = await create('Tea');
    workflow.failStarts = false;
    assert.equal(table.unstarted.has(unstarted), true, 'the failed start leaves its marker');
    clock += 1;
    const started = await create('Coffee');
    assert.equal(table.unstarted.has(started), false, 'a start that succeeded drops it');
    // Created last, so the walk (in id order, which is time order) would reach it last.
    clock += 1;
    const late = (
      await memoryCreation(table, workflow, metrics).create({
        account: table.account('U'),
        request: { kind: 'explicit', params: createVideoBody.parse({ topic: 'Cocoa', director_mode: true }), deadlineSeconds: 60 },
        now: now(),
      })
    ).response.id;
    clock += 61_000;
    // No DescribeExecution at all this run: the walk can check nothing that needs one.
    ports.budget = { describes: 0, starts: 5, items: 2000 };
    const run = await sweep(ports);
    assert.equal(run.started, 1);
    assert.deepEqual(workflow.started.slice(-1), [unstarted]);
    assert.equal(workflow.describes, 0);
    assert.equal(table.unstarted.size, 0);
    assert.deepEqual([table.orders.get(late)!.status, table.orders.get(late)!.error?.code], ['error', 'deadline_exceeded']);
    assert.equal(table.deadlines.size, 0, 'the marker of the due deadline is dropped');
  });
});

describe('the audit and the render queue (an execution started at admission)', () => {
  /** When set, an admission's start of the order's execution is lost (the process died after the slot was taken). */
  let loseStarts: boolean;
  let lane: RenderQueue;
  /** The creation through a queue of one slot, whose admission starts the order's execution, as on AWS. */
  const queued = () => {
    loseStarts = false;
    const store = new MemoryCapacity(table);
    const wakeup = {
      wake: async (token: string, slot: number, orderId: string) => {
        if (token !== START_AT_ADMISSION) return store.wake(token, slot);
        if (!loseStarts) await workflow.start(table.orders.get(orderId)!);
        return true;
      },
    };
    lane = new RenderQueue({ store, wakeup, slots: 1, leaseSeconds: 600, botRun: 3, now });
    ports.queue = lane;
    const creation = memoryCreation(table, workflow, metrics, undefined, undefined, undefined, undefined, undefined, lane);
    return async (topic: string) =>
      (await creation.create({ account: table.account('U'), request: { kind: 'explicit', params: createVideoBody.parse({ topic }) }, now: now() })).response.id;
  };

  it('leaves orders waiting for their admission past the grace alone: no Step Functions call, nothing started or counted', async () => {
    const create = queued();
    const ids: string[] = [];
    // A millisecond apart: the queue admits by order id, which sorts by the moment of creation.
    for (const topic of ['Tea', 'Coffee', 'Cocoa', 'Cider']) {
      ids.push(await create(topic));
      clock += 1;
    }
    assert.deepEqual(workflow.started, [ids[0]], 'the first admitted and started; three wait');
    clock += 61_000;
    for (let run = 0; run < 3; run++) {
      assert.deepEqual(counts(await sweep(ports)), { started: 0, sent: 0, reclaimed: 0, admitted: 0 });
      clock += 60_000;
    }
    assert.deepEqual(workflow.described, [ids[0], ids[0], ids[0]], 'only the running order described');
    assert.deepEqual([workflow.started, metrics.of('OrdersRecovered')], [[ids[0]], 0]);
    // Its slot freed, the next is admitted and started by the queue, not by the audit.
    await lane.release(ids[0]!, true);
    assert.deepEqual(workflow.started, ids.slice(0, 2));
  });

  it('starts an order admitted whose start was lost, holding its slot or past its lease', async () => {
    const create = queued();
    loseStarts = true;
    const holding = await create('Tea');
    const waiting = await create('Coffee');
    assert.deepEqual(workflow.started, [], 'the admission took the slot, its start lost');
    clock += 61_000;
    assert.deepEqual(counts(await sweep(ports)), { started: 1, sent: 0, reclaimed: 0, admitted: 0 });
    assert.deepEqual(workflow.started, [holding], 'the lost one started; the waiting one left to the queue');
    // The next admission's start is lost too, and its lease ends before the audit looks: the slot is reclaimed, and
    // the order, no longer waiting and holding nothing, is started all the same.
    await lane.release(holding, true);
    clock += 601_000;
    assert.deepEqual(counts(await sweep(ports)), { started: 1, sent: 0, reclaimed: 1, admitted: 0 });
    assert.deepEqual(workflow.started, [holding, waiting]);
    assert.equal(metrics.of('OrdersRecovered'), 2);
  });
});

describe("the render queue's recount", () => {
  /** Two shards, and the recount's calls of the store counted. */
  const sharded = () => {
    const calls = { tickets: 0, recount: 0 };
    // Spies on the real store's two calls (what the run costs), passed through.
    const tickets = capacity.tickets.bind(capacity);
    const recount = capacity.recount.bind(capacity);
    capacity.tickets = (...a) => {
      calls.tickets++;
      return tickets(...a);
    };
    capacity.recount = (...a) => {
      calls.recount++;
      return recount(...a);
    };
    ports.queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 2, shards: 2, leaseSeconds: 60, botRun: 3, now });
    return calls;
  };
  const wait = (orderId: string) => ({ orderId, channel: 'api' as const, key: orderId, token: 'token', since: now().toISOString(), shard: 1 });

  it('counts served a ghost ticket, so the queue depth returns to 0: each shard and channel of the turn a run, one Query and one write each at most', async () => {
    const calls = sharded();
    // A wait's write that failed after its ticket: shard 1 counts an API order that does not wait.
    capacity.ticketOnly(wait('vid_ghost'));
    const depths: number[] = [];
    // Two shards: both in every run's turn, two channels each.
    const each = 2 * CHANNELS.length;
    for (let run = 0; run < 9; run++) {
      const before = { ...calls };
      await sweep(ports);
      depths.push(metrics.gauges.get('QueueDepthApi')!);
      assert.ok(calls.tickets - before.tickets <= each && calls.recount - before.recount <= each, `run ${run}: ${JSON.stringify(calls)}`);
      clock += 60_000;
    }
    // Marked at run 0; its mark WAIT_WRITE_SECONDS (3 minutes) old at run 3, which finds the ghost; again at 6.
    assert.equal(WAIT_WRITE_SECONDS, 3 * 60);
    assert.deepEqual(depths, [1, 1, 1, 0, 0, 0, 0, 0, 0]);
    assert.equal(cursor.recount, 9);
    assert.deepEqual([calls.tickets, calls.recount], [3 * each, 3 * each], 'a Query and a write per shard and channel, a mark age apart');
  });

  it('counts in a wait its served counter missed (a give-back applied twice), and leaves exact counters as they are', async () => {
    const queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 2, shards: 2, leaseSeconds: 60, botRun: 3, now });
    const API_OF_SHARD_1 = 2 + CHANNELS.indexOf('api');
    await capacity.wait(wait('vid_real'));
    const state = () => capacity.shardStates.get(1)!;
    state().served.api++;
    assert.equal(waitingIn(state(), 'api'), 0);
    assert.equal(await queue.recount(API_OF_SHARD_1), 1, 'counted in at the first recount');
    assert.equal(waitingIn(state(), 'api'), 1);
    for (let run = 0; run < 3; run++) {
      clock += WAIT_WRITE_SECONDS * 1000;
      assert.equal(await queue.recount(API_OF_SHARD_1), 0);
    }
    assert.deepEqual([state().issued.api, state().served.api], [1, 0]);
  });
});

describe('what the audit counts as recovered', () => {
  it('nothing for an unstarted marker whose start had happened after all (its execution there)', async () => {
    const id = await create('Tea');
    // The creation started it, and died before it dropped the marker.
    table.unstarted.add(id);
    clock += 61_000;
    assert.equal((await sweep(ports)).started, 0);
    assert.deepEqual([workflow.started, table.unstarted.size, metrics.of('OrdersRecovered')], [[id], 0, 0]);
  });
});

describe('the due deadlines', () => {
  const withDeadline = async (topic: string) =>
    (
      await memoryCreation(table, workflow, metrics).create({
        account: table.account('U'),
        request: { kind: 'explicit', params: createVideoBody.parse({ topic }), deadlineSeconds: 60 },
        now: now(),
      })
    ).response.id;

  it('an order that ends before its deadline takes its marker with it: nothing due is read for it', async () => {
    const id = await withDeadline('Tea');
    assert.equal(table.deadlines.has(id), true);
    const orders = new MemoryOrders(table);
    assert.equal(await orders.transition({ order: (await orders.get(id))!, to: 'done', now: now() }), true);
    assert.equal(table.deadlines.has(id), false);
    clock += 61_000;
    assert.deepEqual(await ports.orders.deadlinesDue(now(), 500), []);
  });

  it('reads them from a shard that moves on by one each run, kept with the cursor, so that no shard comes first every run', async () => {
    const orders = ports.orders;
    const firsts: (number | undefined)[] = [];
    ports.orders = Object.assign(Object.create(orders), {
      deadlinesDue: (at: Date, limit: number, first?: number) => {
        firsts.push(first);
        return orders.deadlinesDue(at, limit, first);
      },
    });
    for (let run = 0; run < 11; run++) await sweep(ports);
    assert.deepEqual(firsts, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    assert.equal(cursor.deadlines, 1);
    // A kept value that is no whole number (an item written by hand) starts from shard 0; one past the shards wraps.
    for (const kept of [-3, 2.5, 12]) {
      cursor = { deadlines: kept };
      await sweep(ports);
    }
    assert.deepEqual(firsts.slice(-3), [0, 0, 2]);
  });

  it('keeps a due marker whose cancel lost to a move for the next run, and drops one whose render has started', async () => {
    const moved = await withDeadline('Tea');
    const rendering = await withDeadline('Coffee');
    Object.assign(table.orders.get(rendering)!, { status: 'running', renderStartedAt: now().toISOString() });
    clock += 61_000;
    // The walk passes these orders by (younger than its grace): only the due deadlines act on them.
    ports.graceSeconds = 300;
    const expire = ports.expire;
    // A step moves the order between the audit's read and its cancel: the cancel's transition finds it moved.
    ports.expire = async (order) => {
      table.orders.get(order.id)!.status = 'running';
      await expire(order);
    };
    await sweep(ports);
    assert.equal(table.orders.get(moved)!.status, 'running');
    assert.deepEqual([...table.deadlines.keys()], [moved], 'the moved order keeps its marker; the rendering one is past its deadline');
    ports.expire = expire;
    clock += 60_000;
    await sweep(ports);
    assert.deepEqual([table.orders.get(moved)!.status, table.orders.get(moved)!.error?.code], ['error', 'deadline_exceeded']);
    assert.equal(table.orders.get(rendering)!.status, 'running', 'a started render is finished, whatever its deadline');
    assert.equal(table.deadlines.size, 0);
  });
});

/** An order's done event whose delivery execution started and ended with `status`, and its status-change event. */
async function endedDelivery(orderId: string, status: 'TIMED_OUT' | 'ABORTED') {
  const event = doneEvent(orderId);
  await delivery.start(event);
  delivery.end(event.id);
  return { event, ended: { machine: 'delivery' as const, name: eventExecution(event), input: { orderId: event.orderId, eventId: event.id }, status } };
}

describe('recovery of an ended execution (its status-change event)', () => {
  it('counts an execution stopped from outside (aborted, current, its order open or event unsettled), and no other end', async () => {
    const stopped = await create('Tea');
    const failed = await create('Coffee');
    const canceled = await create('Cocoa');
    const ended = (id: string, status: 'FAILED' | 'ABORTED', name = id) => ({ machine: 'order' as const, name, input: { orderId: id }, status });
    for (const id of [stopped, failed]) workflow.end(id);
    assert.equal(await recoverEnded(ports, ended(stopped, 'ABORTED')), 'restarted');
    assert.equal(metrics.of('ExecutionsAbortedUnexpectedly'), 1);
    assert.equal(await recoverEnded(ports, ended(failed, 'FAILED')), 'restarted', 'a failed one pages as failed, not here');
    // A stop of a superseded execution (the order names its new one), and the service's own stop (a deadline's cancel,
    // as a customer's: the order closed, then its execution stopped).
    assert.equal(await recoverEnded(ports, ended(stopped, 'ABORTED')), 'superseded');
    await ports.expire(table.orders.get(canceled)!);
    assert.deepEqual(workflow.stopped, [canceled]);
    assert.equal(await recoverEnded(ports, ended(canceled, 'ABORTED')), 'closed');
    assert.equal(metrics.of('ExecutionsAbortedUnexpectedly'), 1);
    // A delivery stopped from outside, its event unsettled.
    const { ended: stoppedDelivery } = await endedDelivery('vid_01jz0000000000000000000004', 'ABORTED');
    assert.equal(await recoverEnded(ports, stoppedDelivery), 'restarted');
    assert.equal(metrics.of('ExecutionsAbortedUnexpectedly'), 2);
  });

  it('names and starts a new execution for an open order whose current execution failed or was stopped; a repeat does nothing', async () => {
    const id = await create('Tea');
    workflow.end(id);
    const ended = { machine: 'order' as const, name: id, input: { orderId: id }, status: 'ABORTED' as const };
    assert.equal(await recoverEnded(ports, ended), 'restarted');
    const execution = table.orders.get(id)!.execution!;
    assert.equal(execution, `${id}-e${clock}`);
    assert.deepEqual(workflow.started, [id, execution]);
    assert.equal(await recoverEnded(ports, ended), 'superseded', 'the same event again: the order names its new execution');
    assert.equal(metrics.of('OrdersRecovered'), 1);
    assert.equal(workflow.describes, 0, 'no DescribeExecution: the event says how it ended');
  });

  it("restarts an order stopped mid-render at once, keeping its render's execution (the new one waits that render out)", async () => {
    const id = await create('Tea');
    workflow.end(id);
    const ended = { machine: 'order' as const, name: id, input: { orderId: id }, status: 'ABORTED' as const };
    await ports.orders.patch(id, { status: 'queued', set: { renderStartedAt: now().toISOString(), renderExecution: id } }, now());
    assert.equal(await recoverEnded(ports, ended), 'restarted');
    assert.equal(table.orders.get(id)!.renderExecution, id, 'the stopped render is still on record, for the new execution to wait out');
  });

  it("has one machine's first audit after a start forget the render's execution: that render died with the process", async () => {
    const id = await create('Tea');
    workflow.end(id);
    await ports.orders.patch(id, { status: 'queued', set: { renderStartedAt: now().toISOString(), renderExecution: id } }, now());
    clock += 61_000;
    await sweep(ports, { full: true });
    const o = table.orders.get(id)!;
    assert.deepEqual([o.execution, o.renderExecution, o.renderStartedAt !== undefined], [`${id}-s${clock}`, undefined, true]);
  });

  it('leaves a closed order (its marker dropped), cancels one past its deadline, and restarts an unsettled event', async () => {
    const creation = memoryCreation(table, workflow, metrics);
    const late = (
      await creation.create({
        account: table.account('U'),
        request: { kind: 'explicit', params: createVideoBody.parse({ topic: 'Tea' }), deadlineSeconds: 60 },
        now: now(),
      })
    ).response.id;
    clock += 61_000;
    assert.equal(await recoverEnded(ports, { machine: 'order', name: late, input: { orderId: late }, status: 'FAILED' }), 'expired');
    assert.deepEqual([table.orders.get(late)!.status, table.orders.get(late)!.error?.code], ['error', 'deadline_exceeded']);
    assert.equal(await recoverEnded(ports, { machine: 'order', name: late, input: { orderId: late }, status: 'FAILED' }), 'closed');
    assert.equal(table.open.has(late), false);
    const { event, ended } = await endedDelivery('vid_01jz0000000000000000000003', 'TIMED_OUT');
    assert.equal(await recoverEnded(ports, ended), 'restarted');
    assert.deepEqual(delivery.started, [event.id, table.events.get(event.id)!.execution]);
    assert.equal(await recoverEnded(ports, ended), 'superseded');
  });
});
