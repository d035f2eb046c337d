/** The recovery sweep on in-memory ports: unstarted orders started, dead slots reclaimed, waiting orders admitted. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { RenderQueue } from '../../functions/core/capacity.ts';
import { sweep } from '../../functions/core/sweep.ts';
import { deliver } from '../../functions/core/deliveries.ts';
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
  recordEvent,
  ScriptedReceiver,
} from './memory.ts';

describe('the recovery sweep', () => {
  it('starts an order charged while its workflow could not start, once it is past the grace, and nothing twice', async () => {
    const table = new MemoryTable();
    const workflow = new MemoryWorkflow();
    const metrics = new MemoryMetrics();
    const capacity = new MemoryCapacity();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const now = () => new Date(clock);
    const orders = new MemoryOrders(table);
    const queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 1, leaseSeconds: 60, botRun: 3, now });
    table.addAccount({ userId: 'U', balance: 1000 });
    workflow.failStarts = true;
    const r = await memoryCreation(table, workflow, metrics).create({
      account: table.account('U'),
      request: { route: 'POST /videos', params: createVideoBody.parse({ topic: 'Tea' }) },
      now: now(),
    });
    workflow.failStarts = false;
    const ports = { orders, workflow, events: new MemoryEvents(table), delivery: new MemoryDeliveryWorkflow(), queue, metrics, graceSeconds: 60, now };
    assert.deepEqual(await sweep(ports), { started: 0, sent: 0, reclaimed: 0, admitted: 0 }, 'too young: its first step may be on its way');
    clock += 61_000;
    assert.deepEqual(await sweep(ports), { started: 1, sent: 0, reclaimed: 0, admitted: 0 });
    assert.deepEqual(workflow.started, [r.response.id]);
    // Its first step marks it started: the next sweep leaves it alone.
    await orders.markStarted({ id: r.response.id, queueShard: 0 });
    assert.equal((await sweep(ports)).started, 0);
    assert.equal(metrics.of('OrdersRecovered'), 1);
    assert.equal(table.account('U').balance, 900, 'charged once');
  });

  it('frees the slot of a closed order or an ended lease and admits the order waiting for it', async () => {
    const table = new MemoryTable();
    const capacity = new MemoryCapacity();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const now = () => new Date(clock);
    const queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 2, leaseSeconds: 60, botRun: 3, now });
    table.orders.set('vid_done', { id: 'vid_done', status: 'done' } as never);
    table.orders.set('vid_stuck', { id: 'vid_stuck', status: 'running' } as never);
    for (const id of ['vid_done', 'vid_stuck', 'vid_next']) await queue.awaitSlot({ id, channel: 'api' }, `t-${id}`);
    assert.deepEqual(capacity.holders().sort(), ['vid_done', 'vid_stuck']);
    const metrics = new MemoryMetrics();
    const ports = {
      orders: new MemoryOrders(table),
      workflow: new MemoryWorkflow(),
      events: new MemoryEvents(table),
      delivery: new MemoryDeliveryWorkflow(),
      queue,
      metrics,
      graceSeconds: 60,
      now,
    };
    assert.deepEqual(await sweep(ports), { started: 0, sent: 0, reclaimed: 1, admitted: 1 }, 'the done order released late');
    assert.deepEqual(capacity.holders().sort(), ['vid_next', 'vid_stuck']);
    clock += 61_000;
    // The stuck holder's lease has ended, and so has the new holder's: both are freed; nobody waits.
    assert.deepEqual(await sweep(ports), { started: 0, sent: 0, reclaimed: 2, admitted: 0 });
    assert.equal(metrics.of('SlotsReclaimed'), 3);
    // Every run measures the queue for the operators.
    for (const id of ['vid_a', 'vid_b', 'vid_c']) table.orders.set(id, { id, status: 'queued' } as never);
    await queue.awaitSlot({ id: 'vid_a', channel: 'api' }, 't-a');
    await queue.awaitSlot({ id: 'vid_b', channel: 'api' }, 't-b');
    await queue.awaitSlot({ id: 'vid_c', channel: 'api' }, 't-c');
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

  it('starts the delivery of an event no delivery took, once past the grace, and leaves a taken one alone', async () => {
    const table = new MemoryTable();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const now = () => new Date(clock);
    const capacity = new MemoryCapacity();
    const queue = new RenderQueue({ store: capacity, wakeup: capacity, slots: 1, leaseSeconds: 60, botRun: 3, now });
    const events = new MemoryEvents(table);
    const delivery = new MemoryDeliveryWorkflow();
    const metrics = new MemoryMetrics();
    const ports = { orders: new MemoryOrders(table), workflow: new MemoryWorkflow(), events, delivery, queue, metrics, graceSeconds: 60, now };
    const event = (orderId: string) =>
      recordEvent(table, { id: `${orderId}:done`, type: 'video.done', orderId, userId: 'U', record: { id: orderId } as never, createdAt: now().toISOString() });
    // Two events recorded; the delivery of the first starts and takes it, the second's start failed.
    const taken = event('vid_01jz0000000000000000000001');
    const lost = event('vid_01jz0000000000000000000002');
    const webhooks = new MemoryWebhooks(table);
    await webhooks.save({ id: 'wh_1', userId: 'U', url: 'https://hooks.example/v', secret: 's', active: true, createdAt: now().toISOString() });
    const step = await deliver({ events, webhooks, sender: new ScriptedReceiver(), retryBaseMs: 1000, metrics, now }, taken.orderId, taken.id);
    assert.equal(step.outcome, 'delivered');
    assert.deepEqual((await sweep(ports)).sent, 0, 'too young: its start may be on its way');
    clock += 61_000;
    assert.deepEqual(await sweep(ports), { started: 0, sent: 1, reclaimed: 0, admitted: 0 });
    assert.deepEqual(delivery.started, [lost.id]);
    assert.equal((await sweep(ports)).sent, 0, 'the sweep took it: the next one leaves it alone');
    assert.equal(metrics.of('DeliveriesRecovered'), 1);
  });
});
