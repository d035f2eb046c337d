/**
 * The recovery sweep, one use case on both runtimes (AWS: a schedule; one machine: a timer): it starts the orders
 * that were charged but whose workflow never ran a first step (StartExecution is idempotent by the order's execution
 * name), starts the webhook delivery of events that no delivery took (idempotent by the event's execution name),
 * frees render slots whose lease ended or whose holder is closed, and admits waiting orders, in case a wake-up was
 * lost. Every run also measures the queue: its depth and its oldest wait per channel, and the slots in use.
 */
import type { RenderQueue } from './capacity.ts';
import type { EventRef, UnsentEvents } from './deliveries.ts';
import type { Metrics, OrderStore, Workflow } from './ports.ts';

export interface SweepPorts {
  orders: Pick<OrderStore, 'get' | 'unstarted' | 'markStarted'>;
  workflow: Workflow;
  events: UnsentEvents;
  delivery: { start(event: EventRef): Promise<void> };
  queue: Pick<RenderQueue, 'reclaim' | 'admit' | 'stats'>;
  metrics: Metrics;
  /** An order younger than this is left alone: its first step is normally seconds away. */
  graceSeconds: number;
  now: () => Date;
}

export interface SweepResult {
  started: number;
  /** Events whose delivery the sweep started. */
  sent: number;
  reclaimed: number;
  admitted: number;
}

export async function sweep(p: SweepPorts): Promise<SweepResult> {
  const before = new Date(p.now().getTime() - p.graceSeconds * 1000);
  let started = 0;
  for (const marked of await p.orders.unstarted(before)) {
    const order = await p.orders.get(marked.id);
    if (!order || order.status === 'done' || order.status === 'error') {
      await p.orders.markStarted(marked);
      continue;
    }
    await p.workflow.start(order);
    started++;
    p.metrics.count('OrdersRecovered');
  }
  let sent = 0;
  for (const event of await p.events.unsent(before)) {
    // An execution of this event that exists already (it ran, or runs) makes the start a no-op: the marker goes.
    await p.delivery.start(event);
    await p.events.taken(event);
    sent++;
    p.metrics.count('DeliveriesRecovered');
  }
  const reclaimed = await p.queue.reclaim(async (orderId) => {
    const order = await p.orders.get(orderId);
    return !order || order.status === 'done' || order.status === 'error';
  });
  for (let i = 0; i < reclaimed; i++) p.metrics.count('SlotsReclaimed');
  const admitted = await p.queue.admit();
  const stats = await p.queue.stats();
  p.metrics.gauge('QueueDepthApi', stats.waiting.api, 'Count');
  p.metrics.gauge('QueueDepthBot', stats.waiting.bot, 'Count');
  p.metrics.gauge('OldestWaitingApiSeconds', stats.oldestSeconds.api, 'Seconds');
  p.metrics.gauge('OldestWaitingBotSeconds', stats.oldestSeconds.bot, 'Seconds');
  p.metrics.gauge('SlotsInUse', stats.inUse, 'Count');
  return { started, sent, reclaimed, admitted };
}
