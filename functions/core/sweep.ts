/**
 * Recovery, on both runtimes, in two parts (docs/decisions.md "Recovery driven by events"):
 *
 * - `recoverEnded`: an execution of either workflow that ended failed, timed out or aborted is reported at once (AWS:
 *   EventBridge's Step Functions status-change event; one machine: the local endpoint's same event) for that one order
 *   or event. When it was the order's (event's) current execution and the order is still open (the event unsettled),
 *   a new execution is named on it and started; an order past its deadline is canceled and refunded instead.
 * - `sweep`, the minute audit (AWS: a schedule; one machine: a timer, and once at start): the safety net for what no
 *   event reports (a StartExecution that failed after the commit, a lost event, a local stop). Its cost grows with the
 *   work it finds, not with the open orders: it walks the open orders and the unsettled events from a kept cursor,
 *   interleaved, settles each item on its own (one throttle defers the rest of the run, never fails it), skips orders
 *   waiting for review (their wait's end is an event; a review answers a lost wait itself), and spends at most a
 *   stated budget of Step Functions calls a run. It also frees dead render slots, admits waiting orders in case a
 *   wake-up was lost, recounts a turn of each render queue lane's shards (a wait counted that is not there), and
 *   measures the queue.
 */
import { type AssetFiles, copyAssets } from './assets.ts';
import { pastDeadline } from './cancel-order.ts';
import type { RenderLanes } from './capacity.ts';
import { type EventRef, type EventStore, type EventWorkflow, isSettled, type StoredEvent } from './deliveries.ts';
import { eventExecution, newExecution, orderExecution } from './executions.ts';
import { SHARDS } from './ids.ts';
import type { Order } from './orders.ts';
import type { MarkerPage, Metrics, OrderStore, Workflow } from './ports.ts';
import { present } from './present.ts';

export interface AuditCursor {
  orders?: string;
  events?: string;
  /** The marker shard the next run's read of due deadlines starts at (a run moves it on by one). */
  deadlines?: number;
  /** The next run's number: its turn of the render queue's shards (RenderQueue.recount and the rest; a run moves it on by one). */
  recount?: number;
}

/** What one audit run may spend: Step Functions calls (a share of the account's quotas) and items read. */
export interface AuditBudget {
  describes: number;
  starts: number;
  items: number;
}

type OpenMarker = Pick<Order, 'id' | 'queueShard'>;

export interface RecoveryPorts {
  orders: Pick<OrderStore, 'get' | 'dropOpen' | 'patch'>;
  workflow: Workflow;
  events: Pick<EventStore, 'settled' | 'get' | 'restartAs'>;
  delivery: EventWorkflow;
  metrics: Metrics;
  /** Cancels and refunds an open order past its deadline (creation's `deadline_seconds`). */
  expire(order: Order): Promise<void>;
  now: () => Date;
}

export interface SweepPorts extends RecoveryPorts {
  orders: RecoveryPorts['orders'] & Pick<OrderStore, 'openPage' | 'unstarted' | 'started' | 'deadlinesDue' | 'dropDeadline'>;
  events: RecoveryPorts['events'] & Pick<EventStore, 'pendingPage'>;
  queue: Pick<RenderLanes, 'reclaim' | 'admit' | 'recount' | 'stats' | 'awaitsAdmission'>;
  cursor: { load(): Promise<AuditCursor>; save(cursor: AuditCursor): Promise<void> };
  budget: AuditBudget;
  /**
   * The orders' copies of their assets: an order whose creation died after its commit has none yet, so the audit
   * makes them before it starts the order.
   */
  assetCopies?: Pick<AssetFiles, 'copyToOrder'>;
  /** A marker younger than this is left alone: its workflow's start is normally on its way. */
  graceSeconds: number;
  /** How long a review wait lasts before it lapses: an order at review longer than that (and an hour) is checked. */
  reviewWaitSeconds: number;
  /** A failure that passes by itself (a throttle, an outage): the run stops calling and the item waits for the next. */
  isBusy(err: unknown): boolean;
  log: { warn(message: string, ...extra: Record<string, unknown>[]): void };
}

export interface SweepResult {
  /** Orders whose workflow the sweep started (missing) or started anew (ended with the order open). */
  started: number;
  /** Events whose delivery the sweep started or started anew. */
  sent: number;
  reclaimed: number;
  admitted: number;
  /** Items looked at, Step Functions calls made, and items left for the next run (out of budget or busy). */
  checked: number;
  calls: number;
  deferred: number;
}

/**
 * A run a minute, against the smaller regions' Step Functions quotas (eu-central-1: DescribeExecution refills 10 a
 * second, StartExecution 150): 120 describes a minute is 20% of DescribeExecution's refill, 60 starts under 1% of
 * StartExecution's; 2,000 markers read a run keep it well inside the job's timeout.
 */
export const SWEEP_BUDGET: AuditBudget = { describes: 120, starts: 60, items: 2000 };

const isClosed = (o: Order | undefined) => !o || o.status === 'done' || o.status === 'error';

/** An ended execution, as EventBridge (or the local endpoint) reports it. */
export interface EndedExecution {
  machine: 'order' | 'delivery';
  /** The execution's name. */
  name: string;
  /** The execution's input: the order's id, or the event's order and id. */
  input: { orderId?: string | undefined; eventId?: string | undefined };
  status: 'FAILED' | 'TIMED_OUT' | 'ABORTED';
}

export type Recovery = 'restarted' | 'expired' | 'closed' | 'superseded';

/**
 * Starts the order anew under a recorded name, unless it closed or moved to another execution meanwhile. At once, even
 * mid-render: a stopped execution does not stop the render it had invoked, and the new execution's render step waits
 * that render out (OrderSteps.render, RenderInFlight), holding the order's slot meanwhile. `renderGone`: no render of
 * the order can still run (one machine's first audit after a start: its renders died with the process), so the new
 * execution renders at once.
 */
async function restartOrder(p: RecoveryPorts, order: Order, why: 's' | 'e', renderGone = false): Promise<boolean> {
  const execution = newExecution(order.id, why, p.now());
  const remove: (keyof Order)[] = renderGone && order.renderExecution !== undefined ? ['renderExecution'] : [];
  if (!(await p.orders.patch(order.id, { status: order.status, set: { execution }, ...(remove.length ? { remove } : {}) }, p.now()))) return false;
  return p.workflow.start({ ...order, execution });
}

async function restartEvent(p: RecoveryPorts, event: StoredEvent, why: 's' | 'e'): Promise<boolean> {
  const execution = newExecution(event.id, why, p.now());
  if (!(await p.events.restartAs(event, execution))) return false;
  return p.delivery.start({ ...event, execution });
}

/**
 * One ended execution: the order or event it carried goes on under a new execution when it was still the current
 * one and the work is not finished. Idempotent: a repeated event finds the new execution named, so `superseded`.
 */
export async function recoverEnded(p: RecoveryPorts, ended: EndedExecution): Promise<Recovery> {
  if (ended.machine === 'order') {
    const order = ended.input.orderId ? await p.orders.get(ended.input.orderId) : undefined;
    if (isClosed(order)) {
      if (order) await p.orders.dropOpen(order);
      return 'closed';
    }
    if (orderExecution(order!) !== ended.name) return 'superseded';
    if (ended.status === 'ABORTED') p.metrics.count('ExecutionsAbortedUnexpectedly');
    if (pastDeadline(order!, p.now())) {
      await p.expire(order!);
      return 'expired';
    }
    if (!(await restartOrder(p, order!, 'e'))) return 'superseded';
    p.metrics.count('OrdersRecovered');
    return 'restarted';
  }
  const { orderId, eventId } = ended.input;
  const event = orderId && eventId ? await p.events.get(orderId, eventId) : undefined;
  if (!event || isSettled(event)) {
    if (orderId && eventId) await p.events.settled({ orderId, id: eventId });
    return 'closed';
  }
  if (eventExecution(event) !== ended.name) return 'superseded';
  if (ended.status === 'ABORTED') p.metrics.count('ExecutionsAbortedUnexpectedly');
  if (!(await restartEvent(p, event, 'e'))) return 'superseded';
  p.metrics.count('DeliveriesRecovered');
  return 'restarted';
}

/** What one item's check came to: done with (whatever it did), or left for the next run. */
type Checked = { kind: 'done'; recovered?: 'order' | 'event' } | { kind: 'deferred' };
const DONE: Checked = { kind: 'done' };
const DEFERRED: Checked = { kind: 'deferred' };

/** The run's allowance of Step Functions calls; spent before each call. */
class Allowance {
  calls = 0;
  private busy = false;
  private strikes = 0;
  constructor(private readonly left: { describes: number; starts: number }) {}
  take(kind: 'describes' | 'starts'): boolean {
    if (this.busy || this.left[kind] <= 0) return false;
    this.left[kind]--;
    this.calls++;
    return true;
  }
  /**
   * A call failed busy (throttled past the SDK's own retries, or Step Functions out): the item waits for the next run.
   * A second one means the quota is spent for now: no more calls this run.
   */
  strike(): void {
    if (++this.strikes >= 2) this.busy = true;
  }
}

async function auditOrder(p: SweepPorts, a: Allowance, marked: OpenMarker, full: boolean): Promise<Checked> {
  const order = await p.orders.get(marked.id);
  if (isClosed(order)) {
    await p.orders.dropOpen(marked);
    return DONE;
  }
  if (pastDeadline(order!, p.now())) {
    await p.expire(order!);
    return DONE;
  }
  if (!full && order!.status === 'awaiting_review' && Date.parse(order!.updatedAt) + (p.reviewWaitSeconds + 3600) * 1000 > p.now().getTime()) return DONE;
  // Waiting in the render queue for the admission that starts its execution: none by design, and the queue's own
  // admissions (the audit's among them) start it. One read of its wait, no Step Functions call.
  if (order!.status === 'queued' && order!.queuePlace && (await p.queue.awaitsAdmission(order!))) return DONE;
  if (!a.take('describes')) return DEFERRED;
  const state = await p.workflow.state(order!);
  if (state === 'running') return DONE;
  if (!a.take('starts')) return DEFERRED;
  // Missing: lost (a start that never happened); a start that finds it there after all recovered nothing.
  if (state === 'missing') return (await p.workflow.start(order!)) ? { kind: 'done', recovered: 'order' } : DONE;
  // Ended: read again, since an execution that just closed the order ends right after.
  const now = await p.orders.get(marked.id);
  if (isClosed(now)) {
    await p.orders.dropOpen(marked);
    return DONE;
  }
  return (await restartOrder(p, now!, 's', full)) ? { kind: 'done', recovered: 'order' } : DONE;
}

async function auditEvent(p: SweepPorts, a: Allowance, ref: EventRef): Promise<Checked> {
  const event = await p.events.get(ref.orderId, ref.id);
  if (!event || isSettled(event)) {
    await p.events.settled(ref);
    return DONE;
  }
  if (!a.take('describes')) return DEFERRED;
  const state = await p.delivery.state(event);
  if (state === 'running') return DONE;
  if (!a.take('starts')) return DEFERRED;
  if (state === 'missing') return (await p.delivery.start(event)) ? { kind: 'done', recovered: 'event' } : DONE;
  const now = await p.events.get(ref.orderId, ref.id);
  if (!now || isSettled(now)) {
    await p.events.settled(ref);
    return DONE;
  }
  return (await restartEvent(p, now, 's')) ? { kind: 'done', recovered: 'event' } : DONE;
}

/** How many items the audit checks at once: a few calls in flight. */
const AT_ONCE = 4;
/** Markers read per page of a walk. */
const PAGE = 50;
/** At most this many unstarted orders and due deadlines are read a run (the rest wait a minute). */
const MARKERS_READ = 500;

/** A walk over one marker index from the kept cursor; it stops at the first item left for the next run. */
class Walk<T> {
  private page: { ref: T; after: string }[] = [];
  private fetched = false;
  private next: string | undefined;
  /** Where the next run resumes: past the last item done in order. */
  position: string | undefined;
  stopped = false;
  private end = false;

  constructor(
    private readonly read: (from: string | undefined, limit: number) => Promise<MarkerPage<T>>,
    from: string | undefined,
  ) {
    this.position = from;
  }

  /** The next items, at most `n`, without taking them. */
  async peek(n: number): Promise<{ ref: T; after: string }[]> {
    if (this.stopped) return [];
    while (this.page.length < n && !this.end) {
      // On from where the last read ended (its `next`), not from its last item: markers within the grace after that
      // item are skipped by the read, and reading from the item again would return the same page forever (a burst).
      const got = await this.read(this.fetched ? this.next : this.position, PAGE);
      this.fetched = true;
      this.page.push(...got.items);
      this.next = got.next;
      if (got.next === undefined) this.end = true;
    }
    this.advance(0);
    return this.page.slice(0, n);
  }

  /** The first `n` items are done: the cursor moves past them; at the index's end the next run starts over. */
  advance(n: number): void {
    const done = this.page.splice(0, n);
    if (done.length) this.position = done.at(-1)!.after;
    if (this.page.length === 0 && this.end) {
      this.position = undefined;
      this.stopped = true;
    }
  }

  /** An item is left for the next run: the walk stops where it is. */
  halt(): void {
    this.stopped = true;
  }
}

/**
 * `full`: every open order and event is checked, reviews included, with no budget. Only for one machine's first run
 * after a start: executions live in its process, so a stop lost every one of them (on AWS nothing is lost that way).
 */
export async function sweep(p: SweepPorts, { full = false } = {}): Promise<SweepResult> {
  const cursor = await p.cursor.load();
  // The run's number: its turn of the render queue's shards (SWEEP_SHARDS of them) and of the recount's shard and channel.
  const recount = Number.isInteger(cursor.recount) && cursor.recount! >= 0 ? cursor.recount! : 0;
  // The slots first: cheap, and not left undone should a long run below reach the job's timeout.
  const reclaimed = await p.queue.reclaim(async (orderId) => isClosed(await p.orders.get(orderId)), recount);
  for (let i = 0; i < reclaimed; i++) p.metrics.count('SlotsReclaimed');
  const admitted = await p.queue.admit(recount);
  // One shard's channel a run, in turn: a repair, so its failure is logged and the audit goes on.
  try {
    const corrected = await p.queue.recount(recount);
    if (corrected) p.log.warn('the render queue recount corrected its counters', { recount, corrected });
  } catch (err) {
    p.log.warn('the render queue recount failed', { cause: String(err) });
  }
  const stats = await p.queue.stats(recount);
  p.metrics.gauge('QueueDepthApi', stats.waiting.api, 'Count');
  p.metrics.gauge('QueueDepthBot', stats.waiting.bot, 'Count');
  p.metrics.gauge('OldestWaitingApiSeconds', stats.oldestSeconds.api, 'Seconds');
  p.metrics.gauge('OldestWaitingBotSeconds', stats.oldestSeconds.bot, 'Seconds');
  p.metrics.gauge('SlotsInUse', stats.inUse, 'Count');

  const before = new Date(p.now().getTime() - p.graceSeconds * 1000);
  const budget = full ? { describes: Infinity, starts: Infinity, items: Infinity } : p.budget;
  const allowance = new Allowance({ describes: budget.describes, starts: budget.starts });
  const orders = new Walk<OpenMarker>((from, limit) => p.orders.openPage(before, from, limit), cursor.orders);
  const events = new Walk<EventRef>((from, limit) => p.events.pendingPage(before, from, limit), cursor.events);
  const result: SweepResult = { started: 0, sent: 0, reclaimed, admitted, checked: 0, calls: 0, deferred: 0 };

  // Orders whose start the creation did not see succeed, and deadlines due: two small reads whose cost grows with the
  // failures and the deadlines, not with the open orders; each item settled on its own.
  const now = p.now();
  const each = async <T>(items: T[], act: (item: T) => Promise<void>) => {
    for (const o of await Promise.allSettled(items.map(act))) {
      if (o.status === 'fulfilled') continue;
      if (p.isBusy(o.reason)) allowance.strike();
      else p.log.warn('the audit could not settle an item', { cause: String(o.reason) });
    }
  };
  // Both marker reads start from a shard that moves on each run: when more are marked or due than a run reads, no
  // shard comes first every time.
  const kept = cursor.deadlines ?? 0;
  const firstShard = Number.isInteger(kept) && kept >= 0 ? kept % SHARDS : 0;
  await each(await p.orders.unstarted(before, Math.min(budget.starts, MARKERS_READ), firstShard), async (marked) => {
    const order = await p.orders.get(marked.id);
    if (!isClosed(order)) {
      if (!allowance.take('starts')) return;
      // Of the versions its creation checked. One gone since is passed over: the creation may have copied it before
      // its start failed (a copy that is missing fails the render, and the order is refunded).
      const lost = p.assetCopies ? await copyAssets(p.assetCopies, order!) : [];
      if (lost.length) p.log.warn('an asset went before the audit copied it', { orderId: marked.id, assets: lost });
      // Under its name: a no-op when the creation's start did happen (the same name and input, or it already ended),
      // and then nothing was recovered.
      if (await p.workflow.start(order!)) result.started++;
    }
    await p.orders.started(marked);
  });
  await each(await p.orders.deadlinesDue(now, Math.min(budget.items, MARKERS_READ), firstShard), async (marked) => {
    const order = await p.orders.get(marked.id);
    // Its close deletes the marker with the order's transition; one that moved meanwhile keeps it for the next run.
    if (order && !isClosed(order) && pastDeadline(order, now)) return p.expire(order);
    // Gone, closed (a stray) or rendering (the deadline no longer applies).
    await p.orders.dropDeadline(marked);
  });

  // Each round takes up to two orders and two events (interleaved, so neither index starves the other), checks them
  // together, and moves each cursor past the items done in order; the first deferred item stops its walk.
  const settle = async <T>(walk: Walk<T>, items: { ref: T }[], check: (ref: T) => Promise<Checked>) => {
    const outcomes = await Promise.allSettled(items.map((i) => check(i.ref)));
    let inOrder = 0;
    let halted = false;
    for (const o of outcomes) {
      let c: Checked = DEFERRED;
      if (o.status === 'fulfilled') c = o.value;
      else if (p.isBusy(o.reason)) allowance.strike();
      else {
        // A fault of this one item (not of the service): it is logged and passed, so it cannot hold the walk.
        p.log.warn('the audit could not check an item', { cause: String(o.reason) });
        c = DONE;
      }
      if (c.kind === 'deferred') {
        result.deferred++;
        halted = true;
        continue;
      }
      result.checked++;
      if (c.recovered === 'order') result.started++;
      if (c.recovered === 'event') result.sent++;
      // The cursor moves past items done in order only: one after a deferred item is checked again next run.
      if (!halted) inOrder++;
    }
    if (halted) walk.halt();
    walk.advance(inOrder);
  };
  while (result.checked < budget.items && !(orders.stopped && events.stopped)) {
    const [o, e] = await Promise.all([orders.peek(AT_ONCE / 2), events.peek(AT_ONCE / 2)]);
    if (!o.length && !e.length) break;
    await Promise.all([
      o.length ? settle(orders, o, (m) => auditOrder(p, allowance, m, full)) : undefined,
      e.length ? settle(events, e, (r) => auditEvent(p, allowance, r)) : undefined,
    ]);
  }
  await p.cursor.save({
    ...present({ orders: orders.position }),
    ...present({ events: events.position }),
    deadlines: (firstShard + 1) % SHARDS,
    // Each lane takes it modulo its own shards times channels.
    recount: recount + 1,
  });
  result.calls = allowance.calls;
  for (let i = 0; i < result.started; i++) p.metrics.count('OrdersRecovered');
  for (let i = 0; i < result.sent; i++) p.metrics.count('DeliveriesRecovered');
  return result;
}
