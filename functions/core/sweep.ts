/**
 * The recovery sweep, one use case on both runtimes (AWS: a schedule; one machine: a timer, and once at start): it
 * keeps every open order and every undelivered event carried by a running workflow, frees render slots whose lease
 * ended or whose holder is closed, and admits waiting orders, in case a wake-up was lost. Every run also measures the
 * queue: its depth and its oldest wait per channel, and the slots in use.
 *
 * An order's (or event's) workflow is missing when its StartExecution failed after the commit, or when a local stop
 * took it: the sweep starts it under its name (a no-op if it started meanwhile). It has ended with the order still
 * open when it failed before closing the order (on AWS: its failure handling itself failed) or was stopped: the
 * sweep records a new execution name on the order, then starts that, so a second sweep cannot start two. An open
 * order past its deadline, its render not started, is canceled and refunded instead.
 */
import { pastDeadline } from './cancel-order.ts';
import type { RenderQueue } from './capacity.ts';
import { type EventRef, isSettled, type PendingEvents, type StoredEvent } from './deliveries.ts';
import { newExecution } from './executions.ts';
import type { Order } from './orders.ts';
import type { ExecutionState, Metrics, OrderStore, Workflow } from './ports.ts';

export interface SweepPorts {
  orders: Pick<OrderStore, 'get' | 'open' | 'dropOpen' | 'patch'>;
  workflow: Workflow;
  events: PendingEvents & {
    get(orderId: string, eventId: string): Promise<StoredEvent | undefined>;
    /** Records the name of the event's new delivery execution; false when the event moved on meanwhile. */
    restartAs(event: StoredEvent, execution: string): Promise<boolean>;
  };
  delivery: {
    start(event: EventRef & { execution?: string }): Promise<void>;
    state(event: EventRef & { execution?: string }): Promise<ExecutionState>;
  };
  queue: Pick<RenderQueue, 'reclaim' | 'admit' | 'stats'>;
  metrics: Metrics;
  /** A marker younger than this is left alone: its workflow's start is normally on its way. */
  graceSeconds: number;
  /** Cancels and refunds an open order past its deadline (creation's `deadline_seconds`). */
  expire(order: Order): Promise<void>;
  now: () => Date;
}

export interface SweepResult {
  /** Orders whose workflow the sweep started (missing) or started anew (ended with the order open). */
  started: number;
  /** Events whose delivery the sweep started or started anew. */
  sent: number;
  reclaimed: number;
  admitted: number;
}

const isClosed = (o: Order | undefined) => !o || o.status === 'done' || o.status === 'error';

async function keepOrder(p: SweepPorts, marked: Pick<Order, 'id' | 'queueShard'>): Promise<boolean> {
  const order = await p.orders.get(marked.id);
  if (isClosed(order)) {
    await p.orders.dropOpen(marked);
    return false;
  }
  if (pastDeadline(order!, p.now())) {
    await p.expire(order!);
    return false;
  }
  const state = await p.workflow.state(order!);
  if (state === 'running') return false;
  if (state === 'missing') {
    await p.workflow.start(order!);
    return true;
  }
  // Ended: read again, since an execution that just closed the order ends right after.
  const now = await p.orders.get(marked.id);
  if (isClosed(now)) {
    await p.orders.dropOpen(marked);
    return false;
  }
  const execution = newExecution(now!.id, 's', p.now());
  if (!(await p.orders.patch(now!.id, { status: now!.status, set: { execution } }, p.now()))) return false;
  await p.workflow.start({ ...now!, execution });
  return true;
}

async function keepEvent(p: SweepPorts, ref: EventRef): Promise<boolean> {
  const event = await p.events.get(ref.orderId, ref.id);
  if (!event || isSettled(event)) {
    await p.events.settled(ref);
    return false;
  }
  const state = await p.delivery.state(event);
  if (state === 'running') return false;
  if (state === 'missing') {
    await p.delivery.start(event);
    return true;
  }
  const now = await p.events.get(ref.orderId, ref.id);
  if (!now || isSettled(now)) {
    await p.events.settled(ref);
    return false;
  }
  const execution = newExecution(now.id, 's', p.now());
  if (!(await p.events.restartAs(now, execution))) return false;
  await p.delivery.start({ ...now, execution });
  return true;
}

/** How many items the sweep checks at once: a few calls in flight, under Step Functions' DescribeExecution rate. */
const AT_ONCE = 4;

/** Runs `check` over the items, AT_ONCE at a time; how many it answered true for. */
async function countChecked<T>(items: T[], check: (item: T) => Promise<boolean>): Promise<number> {
  let count = 0;
  for (let i = 0; i < items.length; i += AT_ONCE) {
    for (const hit of await Promise.all(items.slice(i, i + AT_ONCE).map(check))) if (hit) count++;
  }
  return count;
}

export async function sweep(p: SweepPorts): Promise<SweepResult> {
  // The slots first: cheap, and not left undone should a long run below reach the job's timeout.
  const reclaimed = await p.queue.reclaim(async (orderId) => isClosed(await p.orders.get(orderId)));
  for (let i = 0; i < reclaimed; i++) p.metrics.count('SlotsReclaimed');
  const admitted = await p.queue.admit();
  const stats = await p.queue.stats();
  p.metrics.gauge('QueueDepthApi', stats.waiting.api, 'Count');
  p.metrics.gauge('QueueDepthBot', stats.waiting.bot, 'Count');
  p.metrics.gauge('OldestWaitingApiSeconds', stats.oldestSeconds.api, 'Seconds');
  p.metrics.gauge('OldestWaitingBotSeconds', stats.oldestSeconds.bot, 'Seconds');
  p.metrics.gauge('SlotsInUse', stats.inUse, 'Count');
  const before = new Date(p.now().getTime() - p.graceSeconds * 1000);
  const started = await countChecked(await p.orders.open(before), (marked) => keepOrder(p, marked));
  for (let i = 0; i < started; i++) p.metrics.count('OrdersRecovered');
  const sent = await countChecked(await p.events.pending(before), (ref) => keepEvent(p, ref));
  for (let i = 0; i < sent; i++) p.metrics.count('DeliveriesRecovered');
  return { started, sent, reclaimed, admitted };
}
