/**
 * The scale model (issue 27): no server, a simulated clock. Arrivals at 1x, 10x and 100x of the baseline (1,000 orders
 * an hour with a burst of 50 in one minute) drive the service's own admission (core/capacity.ts RenderQueue), eta
 * (core/eta.ts QueueViews, queuedEta, the adapter's QueueReader) and audit sweep (core/sweep.ts) through the domain
 * tests' in-memory stores, each port call counted against the DynamoDB partitions the DynamoDB adapter's call would
 * touch (functions/adapters/capacity.ts), and each Step Functions call taken from a token bucket with
 * eu-central-1's quotas (a throttle answered as AWS does, after the SDK's retries). The same model drives today's main
 * before the issue (commit 46678a8, taken out of git at bench time: bench/scale-old.ts). docs/benchmarks.md, "Scale
 * model", lists what it assumes.
 */
import { shardReader } from '../functions/adapters/capacity.ts';
import { isTransient } from '../functions/adapters/transient.ts';
import {
  type CapacityStore,
  type Claim,
  emptyShardState,
  type Recount,
  RenderQueue,
  type Slot,
  START_AT_ADMISSION,
  type NewWait,
  type Waiter,
} from '../functions/core/capacity.ts';
import { QueueViews, queuedEta } from '../functions/core/eta.ts';
import { shardOf } from '../functions/core/ids.ts';
import type { Channel, Order } from '../functions/core/orders.ts';
import { SWEEP_BUDGET, sweep as auditSweep } from '../functions/core/sweep.ts';
import { slotsFor } from '../lib/sizing.ts';
import { MemoryCapacity, MemoryEvents, MemoryMetrics, MemoryOrders, MemoryTable } from '../test/domain/memory.ts';
import { seeded } from '../test/reliability/hostile.ts';
import { loadOldCode, OLD_COMMIT, type OldCode } from './scale-old.ts';
import {
  callWithRetries,
  EventQueue,
  ITEM_KB,
  PARTITION_LIMITS,
  PartitionLoad,
  quantile,
  readUnits,
  SFN_QUOTAS,
  type SfnApi,
  TokenBucket,
  throttled,
  writeUnits,
} from './scale-model.ts';

/** The scenario (docs/benchmarks.md, "Scale model"). */
export const SCENARIO = {
  baseOrdersPerHour: 1000,
  baseBurstPerMinute: 50,
  arrivalMinutes: 10,
  burstMinute: 3,
  /** After the arrivals, the run goes on this long for the queue to drain. */
  drainMinutes: 10,
  botShare: 0.1,
  /** Of the API orders. */
  directorShare: 0.1,
  reviewMeanSeconds: 2 * 3600,
  webhookShare: 0.3,
  /** Creations whose StartExecution fails after the commit (the audit's work). */
  lostStartShare: 0.002,
  /**
   * Of the API orders: created with `deadline_seconds`, one of these, drawn from a stream of their own (the arrivals
   * stay those of the runs before). Past ~30%, at 100x, markers left by orders that ended fall due faster than a run
   * reads them (500): the case of issue 28. Modelled for this branch only; the orders there before the run have none.
   */
  deadlineShare: 0.5,
  deadlineSeconds: [120, 300, 600],
  /** Slot seconds of an order: a fixed part and a part per video second (video 10 to 30 s), times a noise. */
  slotFixedSeconds: 3,
  slotPerVideoSecond: 0.6,
  slotNoise: 0.15,
  /** Prod's demand figures (lib/stages.ts), scaled. */
  slotSecondsPerOrder: 15,
  targetUtilisation: 0.7,
  oldSlots: 4,
  snapshotMaxAgeMs: 2000,
  /** A run whose queue passes this stops there: it grows without bound, and its reads only grow with it. */
  waitingCap: 5000,
  /** Transactions one item can take a second, one at a time (about 30 ms each): an estimate, not a documented limit. */
  serialTransactionsPerSecond: 33,
  seed: 27,
} as const;

export type DesignName = 'new' | 'old' | 'old-sized';
export const DESIGNS: Record<DesignName, string> = {
  new: 'this branch',
  old: `today's main (${OLD_COMMIT}), 4 slots as configured`,
  'old-sized': `today's main (${OLD_COMMIT}), slots by the formula`,
};

/** Warm API processes, each refreshing its queue snapshot at most every 2 s while requests arrive: 4 + one per creation a second. */
export const warmProcesses = (scale: number) => 4 + Math.ceil((SCENARIO.baseOrdersPerHour * scale) / 3600);

interface SimOrder {
  id: string;
  channel: Channel;
  director: boolean;
  webhook: boolean;
  videoSeconds: number;
  slotSeconds: number;
  createdAt: number;
  eta?: number;
  admittedAt?: number;
  doneAt?: number;
  lostStart: boolean;
  started: boolean;
  tokens: number;
  deadlineSeconds?: number;
}

type SimEvent =
  | { kind: 'arrive'; order: SimOrder }
  | { kind: 'begin'; id: string }
  | { kind: 'awaitSlot'; id: string }
  | { kind: 'review'; id: string }
  | { kind: 'done'; id: string }
  | { kind: 'release'; id: string }
  | { kind: 'settle'; eventId: string }
  | { kind: 'snapshot'; process: number }
  | { kind: 'sweep' };

export interface ScaleResult {
  design: DesignName;
  scale: number;
  slots: number;
  shards: number;
  processes: number;
  seconds: number;
  stoppedAt?: number;
  arrivals: number;
  arrivalsPerSecond: number;
  peakArrivalsPerSecond: number;
  admissions: number;
  admissionsPerSecond: number;
  utilisation: number;
  waitingAtArrivalsEnd: number;
  waitingAtEnd: number;
  keepsUp: boolean;
  etaP50: number;
  etaP90: number;
  etaCount: number;
  sweep: { runs: number; rejected: number; describesPerRunMax: number; startsPerRunMax: number; eventsPassReached: number; throttles: number };
  lost: { count: number; recovered: number };
  /**
   * This branch's deadlines: orders created with one, due markers at a run's start (most), open orders more than a
   * minute past their deadline at a run's start (most) and at the end, and the deadline's cancels: how many, and how
   * long after the deadline (s).
   */
  deadlines?: {
    orders: number;
    dueMax: number;
    dueAtEnd: number;
    overdueMax: number;
    overdueAtEnd: number;
    canceled: number;
    lateP50: number;
    lateMax: number;
  };
  sfnPeakMinute: Record<SfnApi, number>;
  sfnThrottled: Record<SfnApi, number>;
  writes: { key: string; perSecond: number };
  reads: { key: string; perSecond: number };
  transactions: { key: string; perSecond: number };
  seconds_wall: number;
}

/** What a partition key names, for the report (an order's own partition is one of many). */
function partitionKind(pk: string): string {
  if (pk.startsWith('ORDER#')) return 'ORDER#<id>';
  if (pk.startsWith('SLOT#')) return 'SLOT#<n>';
  if (/^(QUEUE|OPEN|START|PENDING|DEADLINE)#\d+$/.test(pk)) return pk.replace(/\d+$/, '<k>');
  if (/^WAITING#\d+#/.test(pk)) return pk.replace(/^WAITING#\d+#/, 'WAITING#<k>#');
  return pk;
}

/** The queue as the model drives it: either design's code behind one face. */
interface Design {
  slots: number;
  shards: number;
  awaitSlot(o: SimOrder, token: string): Promise<void>;
  /** This branch: a new order queued by its creation, its place and the end of its unstarted marker in the same write. */
  enqueue(o: SimOrder): Promise<void>;
  release(id: string): Promise<void>;
  eta(process: number, o: SimOrder): Promise<number>;
  snapshot(process: number): Promise<void>;
  waiting(): number;
  /** Whether the run read the unsettled events' index. */
  sweep(): Promise<{ eventsReached: boolean }>;
  /** The creation's writes, and the order in the store the sweep reads. */
  create(o: SimOrder): void;
  /** The creation saw its StartExecution succeed: this branch drops its unstarted marker. */
  startSeen(o: SimOrder): void;
  setStatus(id: string, status: Order['status'], set?: Partial<Order>): void;
  /** Done or in error (a review arriving for a canceled order is refused). */
  closed(id: string): boolean;
  /** Due deadline markers, and open orders more than a minute past their deadline (this branch; none modelled for the other). */
  deadlineState(): { due: number; overdue: number };
  recordEvent(o: SimOrder, key: string, settled: boolean): string;
  settleEvent(eventId: string): void;
}

export async function runScale(designName: DesignName, scale: number, old?: OldCode): Promise<ScaleResult> {
  const wallStart = performance.now();
  const S = SCENARIO;
  const rng = seeded(S.seed * 1000 + scale);
  const deadlineRng = seeded(S.seed * 1000 + scale + 500);
  let now = 0;
  /** The orders there before the run (waiting for their review) are set up uncounted. */
  let counting = false;
  /** During an audit run: the moment of its Step Functions calls (a few in flight, ~50 ms each). */
  let sweepAt: number | undefined;
  const sfnAt = () => sweepAt ?? now;
  const counted = new PartitionLoad();
  // An order's own partition (ORDER#<id>, USER#<user>) takes a few writes in the order's life: not counted, as it
  // cannot be the busiest and counting it is most of a large run's memory.
  const own = (pk: string) => pk.startsWith('ORDER#') || pk.startsWith('USER#');
  const load = {
    write: (pk: string, units: number, atMs: number, tx?: { item: string }) => counting && !own(pk) && counted.write(pk, units, atMs, tx),
    read: (pk: string, units: number, atMs: number) => counting && !own(pk) && counted.read(pk, units, atMs),
  } as unknown as PartitionLoad;
  const buckets = Object.fromEntries(Object.entries(SFN_QUOTAS).map(([k, q]) => [k, new TokenBucket(q.burst, q.perSecond)])) as Record<SfnApi, TokenBucket>;
  const sfnBySecond = Object.fromEntries(Object.keys(SFN_QUOTAS).map((k) => [k, new Map<number, number>()])) as Record<SfnApi, Map<number, number>>;
  const sfnThrottled = Object.fromEntries(Object.keys(SFN_QUOTAS).map((k) => [k, 0])) as Record<SfnApi, number>;
  const sweepCalls = { describes: 0, starts: 0, throttles: 0 };
  /** One Step Functions call: its bucket with the SDK's retries; a throttle past them throws as AWS answers. */
  const sfn = (api: SfnApi, n = 1) => {
    for (let i = 0; i < n; i++) {
      const at = callWithRetries(buckets[api], sfnAt());
      if (sweepAt !== undefined) sweepAt += 12.5;
      if (at === undefined) {
        sfnThrottled[api]++;
        if (sweepAt !== undefined) sweepCalls.throttles++;
        throw throttled(api);
      }
      const second = Math.floor(at / 1000);
      sfnBySecond[api].set(second, (sfnBySecond[api].get(second) ?? 0) + 1);
    }
  };
  /** State transitions are counted, not refused (a throttled transition is delayed by Step Functions, not lost). */
  const transitions = (n: number) => {
    const second = Math.floor(now / 1000);
    sfnBySecond.StateTransition.set(second, (sfnBySecond.StateTransition.get(second) ?? 0) + n);
  };

  const peak = S.baseOrdersPerHour * scale;
  const sized = slotsFor({ peakOrdersPerHour: peak, slotSecondsPerOrder: S.slotSecondsPerOrder, targetUtilisation: S.targetUtilisation });
  const slots = designName === 'old' ? S.oldSlots : sized;
  const processes = warmProcesses(scale);
  const orders = new Map<string, SimOrder>();
  const tokenOwner = new Map<string, string>();
  const queue = new EventQueue<SimEvent>();
  const executions = new Map<string, 'running'>();
  const deliveries = new Map<string, 'running'>();
  let admissions = 0;
  const admittedAt: number[] = [];

  /** The order workflow's wake-up: SendTaskSuccess, then its steps hold the slot for the order's slot seconds. */
  const wakeup = {
    async wake(token: string, slot: number, orderId: string): Promise<boolean> {
      // An order queued by its creation: its admission starts its execution (the Admission choice, then its steps).
      const starts = token === START_AT_ADMISSION;
      sfn(starts ? 'StartExecution' : 'SendTaskSuccess');
      const o = orders.get(starts ? orderId : tokenOwner.get(token)!)!;
      if (starts) {
        executions.set(o.id, 'running');
        o.started = true;
      }
      o.admittedAt = now;
      admissions++;
      admittedAt.push(now);
      // Started by its admission: Admission, Prepare, Render, Publish, Done; else from its wait on: 8 (3 after a review).
      transitions(starts ? 5 : o.director ? 3 : 8);
      design.setStatus(o.id, 'running', { renderStartedAt: new Date(now).toISOString() });
      queue.push(now + o.slotSeconds * 1000, { kind: 'done', id: o.id });
      void slot;
      return true;
    },
  };
  /** Executions by name, as Step Functions keeps them; the audit's calls go through the buckets. */
  const workflow = {
    async start(order: Order) {
      sfn('StartExecution');
      if (sweepAt !== undefined) sweepCalls.starts++;
      const name = order.execution ?? order.id;
      if (executions.has(name)) return false;
      executions.set(name, 'running');
      const o = orders.get(order.id);
      if (o && !o.started) {
        o.started = true;
        queue.push(now + 300, { kind: 'begin', id: o.id });
      }
      return true;
    },
    async state(order: Order) {
      if (sweepAt !== undefined) sweepCalls.describes++;
      sfn('DescribeExecution');
      return executions.has(order.execution ?? order.id) ? ('running' as const) : ('missing' as const);
    },
    async stop() {},
  };
  const delivery = {
    async start(e: { id: string; execution?: string }) {
      sfn('StartExecution');
      if (sweepAt !== undefined) sweepCalls.starts++;
      const name = e.execution ?? e.id;
      if (deliveries.has(name)) return false;
      deliveries.set(name, 'running');
      return true;
    },
    async state(e: { id: string; execution?: string }) {
      if (sweepAt !== undefined) sweepCalls.describes++;
      sfn('DescribeExecution');
      return deliveries.has(e.execution ?? e.id) ? ('running' as const) : ('missing' as const);
    },
  };

  /** The deadline's cancels: how long after its deadline each came (s); what the audit runs found due. */
  const late: number[] = [];
  const deadlineRuns = { dueMax: 0, overdueMax: 0 };
  const expired = async (order: Order) => {
    late.push((now - Date.parse(order.deadlineAt!)) / 1000);
    announce(orders.get(order.id)!, 'error');
  };
  const wiring = { slots, load, at: () => sfnAt(), wakeup, workflow, delivery, now: () => now, processes, expired };
  const design: Design = designName === 'new' ? newDesign(wiring) : oldDesign(old!, wiring);

  // Arrivals: per minute a steady count, one minute a burst, at random moments within the minute.
  const total = (peak * S.arrivalMinutes) / 60;
  const burst = S.baseBurstPerMinute * scale;
  const steady = (total - burst) / (S.arrivalMinutes - 1);
  let seq = 0;
  let peakMinute = 0;
  const newOrder = (createdAt: number, director: boolean, channel: Channel): SimOrder => {
    const videoSeconds = 10 + Math.floor(rng() * 21);
    const noise = Math.exp(S.slotNoise * gaussian(rng));
    const o: SimOrder = {
      id: `o${String(Math.round(createdAt) + 1e9).padStart(11, '0')}${String(seq++).padStart(7, '0')}`,
      channel,
      director,
      webhook: channel === 'api' && rng() < S.webhookShare,
      videoSeconds,
      slotSeconds: (S.slotFixedSeconds + S.slotPerVideoSecond * videoSeconds) * noise,
      createdAt,
      lostStart: rng() < S.lostStartShare,
      started: false,
      tokens: 0,
    };
    if (designName === 'new' && channel === 'api' && createdAt >= 0 && deadlineRng() < S.deadlineShare)
      o.deadlineSeconds = S.deadlineSeconds[Math.floor(deadlineRng() * S.deadlineSeconds.length)]!;
    orders.set(o.id, o);
    return o;
  };
  for (let m = 0; m < S.arrivalMinutes; m++) {
    const count = Math.round(m === S.burstMinute ? burst : steady);
    peakMinute = Math.max(peakMinute, count);
    const at = Array.from({ length: count }, () => (m * 60 + rng() * 60) * 1000).sort((a, b) => a - b);
    for (const t of at) {
      const bot = rng() < S.botShare;
      queue.push(t, { kind: 'arrive', order: newOrder(t, !bot && rng() < S.directorShare, bot ? 'bot' : 'api') });
    }
  }
  const end = (S.arrivalMinutes + S.drainMinutes) * 60 * 1000;
  // Director-mode orders already waiting for their review (created over the hours before), as many as the steady
  // state holds: the arrival rate of director orders times the mean wait. Their review comes at an exponential time.
  const waitingReview = Math.round(((peak * (1 - S.botShare) * S.directorShare) / 3600) * S.reviewMeanSeconds);
  // In creation order, as the stores hold them (their walks read the markers in id order).
  const before = Array.from({ length: waitingReview }, () => -Math.round(rng() * 2 * S.reviewMeanSeconds * 1000) - 120_000).sort((a, b) => a - b);
  for (const createdAt of before) {
    const o = newOrder(createdAt, true, 'api');
    design.create(o);
    design.startSeen(o);
    o.started = true;
    executions.set(o.id, 'running');
    design.setStatus(o.id, 'awaiting_review', { updatedAt: new Date(createdAt + 30_000).toISOString() });
    const reviewAt = -Math.log(1 - rng()) * S.reviewMeanSeconds * 1000;
    if (reviewAt < end) queue.push(reviewAt, { kind: 'review', id: o.id });
  }
  counting = true;
  for (let p = 0; p < processes; p++) queue.push(Math.round((p * S.snapshotMaxAgeMs) / processes), { kind: 'snapshot', process: p });
  queue.push(30_000, { kind: 'sweep' });

  const sweepRuns = { runs: 0, rejected: 0, describesPerRunMax: 0, startsPerRunMax: 0, eventsPassReached: 0 };
  let waitingAtArrivalsEnd = -1;
  let stoppedAt: number | undefined;
  /** Creations so far: each goes to the next warm process in turn. */
  let created = 0;
  const retry = (ev: SimEvent) => queue.push(now + 2000, ev);

  /** An event recorded at a status change: a delivery execution, as the design starts them, settled a moment later. */
  const announce = (o: SimOrder, key: string) => {
    const withExecution = designName !== 'new' || o.webhook;
    const eventId = design.recordEvent(o, key, !withExecution);
    if (!withExecution) return;
    try {
      sfn('StartExecution');
      deliveries.set(eventId, 'running');
      transitions(3);
      queue.push(now + 1000, { kind: 'settle', eventId });
    } catch {
      // Its pending marker stays: the audit starts it.
    }
  };

  for (let ev = queue.pop(); ev && ev.at <= end; ev = queue.pop()) {
    now = ev.at;
    if (waitingAtArrivalsEnd < 0 && now >= S.arrivalMinutes * 60_000) waitingAtArrivalsEnd = design.waiting();
    const e = ev.item;
    switch (e.kind) {
      case 'arrive': {
        const o = e.order;
        // Today's main computes an eta for every 4th creation only (its view is still taken): its estimate walks
        // every order ahead over every slot, most of the model's time at 100x; the error is of that sample.
        const process = created++ % processes;
        if (designName === 'new' || created % 4 === 0) o.eta = await design.eta(process, o);
        else await design.snapshot(process);
        design.create(o);
        if (o.lostStart) break;
        if (designName === 'new' && !o.director) {
          // Queued for the admission that starts its execution: no Step Functions call at its arrival.
          try {
            await design.enqueue(o);
          } catch (err) {
            if (!isTransient(err)) throw err;
          }
          break;
        }
        try {
          sfn('StartExecution');
        } catch {
          break;
        }
        design.startSeen(o);
        executions.set(o.id, 'running');
        o.started = true;
        queue.push(now + 300, { kind: 'begin', id: o.id });
        break;
      }
      case 'begin': {
        const o = orders.get(e.id)!;
        if (!o.director) {
          transitions(2);
          queue.push(now + 200, { kind: 'awaitSlot', id: o.id });
          break;
        }
        // Plan and script without a slot, then the review wait and its event.
        transitions(8);
        design.setStatus(o.id, 'awaiting_review');
        announce(o, 'awaiting_review:1');
        const reviewAt = now + 10_000 - Math.log(1 - rng()) * S.reviewMeanSeconds * 1000;
        if (reviewAt < end) queue.push(reviewAt, { kind: 'review', id: o.id });
        break;
      }
      case 'review': {
        // A canceled order's review is refused (409).
        if (design.closed(e.id)) break;
        // The client's approval hands the review wait its answer (SendTaskSuccess), then the order waits for a slot.
        try {
          sfn('SendTaskSuccess');
        } catch {
          retry(e);
          break;
        }
        transitions(2);
        design.setStatus(e.id, 'running', { reviewed: true });
        queue.push(now + 200, { kind: 'awaitSlot', id: e.id });
        break;
      }
      case 'awaitSlot': {
        const o = orders.get(e.id)!;
        const token = `t-${o.id}-${++o.tokens}`;
        tokenOwner.set(token, o.id);
        try {
          await design.awaitSlot(o, token);
        } catch (err) {
          // The step's Retry on ServiceUnavailable (a transient error) waits and runs it again.
          if (!isTransient(err)) throw err;
          retry(e);
        }
        break;
      }
      case 'done': {
        const o = orders.get(e.id)!;
        o.doneAt = now;
        design.setStatus(o.id, 'done', { rendered: true, finishedAt: new Date(now).toISOString() });
        announce(o, 'done');
        queue.push(now, { kind: 'release', id: o.id });
        break;
      }
      case 'release': {
        try {
          await design.release(e.id);
        } catch (err) {
          if (!isTransient(err)) throw err;
          retry(e);
        }
        break;
      }
      case 'settle':
        deliveries.delete(e.eventId);
        design.settleEvent(e.eventId);
        break;
      case 'snapshot':
        await design.snapshot(e.process);
        queue.push(now + S.snapshotMaxAgeMs + 1, e);
        break;
      case 'sweep': {
        sweepAt = now;
        sweepCalls.describes = 0;
        sweepCalls.starts = 0;
        sweepRuns.runs++;
        const dl = design.deadlineState();
        deadlineRuns.dueMax = Math.max(deadlineRuns.dueMax, dl.due);
        deadlineRuns.overdueMax = Math.max(deadlineRuns.overdueMax, dl.overdue);
        try {
          const r = await design.sweep();
          if (r.eventsReached) sweepRuns.eventsPassReached++;
        } catch {
          sweepRuns.rejected++;
        }
        sweepRuns.describesPerRunMax = Math.max(sweepRuns.describesPerRunMax, sweepCalls.describes);
        sweepRuns.startsPerRunMax = Math.max(sweepRuns.startsPerRunMax, sweepCalls.starts);
        sweepAt = undefined;
        queue.push(now + 60_000, e);
        break;
      }
    }
    if (design.waiting() > S.waitingCap) {
      stoppedAt = now;
      break;
    }
  }
  const seconds = (stoppedAt ?? end) / 1000;
  if (waitingAtArrivalsEnd < 0) waitingAtArrivalsEnd = design.waiting();
  const arrivalSeconds = Math.min(seconds, S.arrivalMinutes * 60);
  const arrived = [...orders.values()].filter((o) => o.createdAt >= 0 && o.createdAt < arrivalSeconds * 1000);
  const errors = arrived
    .filter((o) => !o.director && o.doneAt !== undefined && o.eta !== undefined)
    .map((o) => Math.abs(o.eta! - (o.doneAt! - o.createdAt) / 1000) / ((o.doneAt! - o.createdAt) / 1000));
  const lost = arrived.filter((o) => o.lostStart);
  const busy = arrived.filter((o) => !o.director).reduce((s, o) => s + o.slotSeconds, 0);
  const peakMinuteOf = (m: Map<number, number>) => {
    let best = 0;
    const secs = [...m.keys()];
    if (!secs.length) return 0;
    const lo = Math.min(...secs);
    const hi = Math.max(...secs);
    let sum = 0;
    for (let s = lo; s <= hi; s++) {
      sum += m.get(s) ?? 0;
      if (s - 60 >= lo) sum -= m.get(s - 60) ?? 0;
      best = Math.max(best, sum);
    }
    return best / 60;
  };
  const waitingAtEnd = design.waiting();
  const deadlinesAtEnd = design.deadlineState();
  const needed = arrived.filter((o) => !o.director && !o.lostStart);
  const keepsUp = stoppedAt === undefined && waitingAtEnd === 0 && needed.every((o) => o.doneAt !== undefined);
  return {
    design: designName,
    scale,
    slots,
    shards: design.shards,
    processes,
    seconds,
    ...(stoppedAt !== undefined ? { stoppedAt: stoppedAt / 1000 } : {}),
    arrivals: arrived.length,
    arrivalsPerSecond: arrived.length / arrivalSeconds,
    peakArrivalsPerSecond: peakMinute / 60,
    admissions,
    admissionsPerSecond: admittedAt.filter((t) => t < arrivalSeconds * 1000).length / arrivalSeconds,
    utilisation: busy / (slots * arrivalSeconds),
    waitingAtArrivalsEnd,
    waitingAtEnd,
    keepsUp,
    etaP50: quantile(errors, 0.5),
    etaP90: quantile(errors, 0.9),
    etaCount: errors.length,
    sweep: { ...sweepRuns, throttles: sweepCalls.throttles },
    lost: { count: lost.length, recovered: lost.filter((o) => o.started).length },
    ...(designName === 'new'
      ? {
          deadlines: {
            orders: arrived.filter((o) => o.deadlineSeconds !== undefined).length,
            dueMax: deadlineRuns.dueMax,
            dueAtEnd: deadlinesAtEnd.due,
            overdueMax: deadlineRuns.overdueMax,
            overdueAtEnd: deadlinesAtEnd.overdue,
            canceled: late.length,
            lateP50: quantile(late, 0.5),
            lateMax: late.length ? Math.max(...late) : 0,
          },
        }
      : {}),
    sfnPeakMinute: Object.fromEntries(Object.entries(sfnBySecond).map(([k, m]) => [k, peakMinuteOf(m)])) as Record<SfnApi, number>,
    sfnThrottled,
    writes: counted.busiestWrites(partitionKind),
    reads: counted.busiestReads(partitionKind),
    transactions: counted.busiestTransactions((k) => {
      const [pk, sk] = k.split(' ');
      return `${partitionKind(pk!)} ${sk}`;
    }),
    seconds_wall: (performance.now() - wallStart) / 1000,
  };
}

/** A standard normal draw (Box-Muller). */
function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

interface Wiring {
  slots: number;
  load: PartitionLoad;
  /** The moment a DynamoDB call is counted at. */
  at: () => number;
  wakeup: { wake(token: string, slot: number, orderId: string): Promise<boolean> };
  workflow: { start(o: Order): Promise<boolean>; state(o: Order): Promise<'running' | 'missing'>; stop(): Promise<void> };
  delivery: { start(e: { id: string; execution?: string }): Promise<boolean>; state(e: { id: string; execution?: string }): Promise<'running' | 'missing'> };
  now: () => number;
  processes: number;
  /** After the model's cancel of an order past its deadline (the audit's `expire`): its lateness and its event. */
  expired(order: Order): Promise<void>;
}

const W = ITEM_KB;

/** An order as the stores keep it, with the fields the sweep and the queue read. */
function orderOf(o: SimOrder): Order {
  const at = new Date(o.createdAt).toISOString();
  return {
    id: o.id,
    userId: `u-${o.id}`,
    status: 'queued',
    kind: 'quick',
    channel: o.channel,
    params: { duration_seconds: o.videoSeconds, director_mode: o.director },
    createdAt: at,
    updatedAt: at,
    etaSeconds: o.eta ?? 0,
    queueShard: shardOf(o.id),
    ...(o.deadlineSeconds ? { deadlineAt: new Date(o.createdAt + o.deadlineSeconds * 1000).toISOString() } : {}),
  } as unknown as Order;
}

/** The stores' calls the sweep makes, counted on the partitions the adapters' calls touch (adapters/order-markers.ts). */
function countOrders<T extends object>(orders: T, w: Wiring): T {
  const { load, at } = w;
  const markers = (pk: (k: number) => string, ids: string[]) => {
    const perShard = new Map<number, number>();
    for (const id of ids) perShard.set(shardOf(id), (perShard.get(shardOf(id)) ?? 0) + 1);
    for (let k = 0; k < 10; k++) load.read(pk(k), readUnits((perShard.get(k) ?? 0) * W.marker), at());
  };
  const o = orders as Record<string, (...a: any[]) => Promise<any>>;
  const wrap: Record<string, (...a: any[]) => Promise<any>> = {
    get: async (id: string) => {
      load.read(`ORDER#${id}`, readUnits(W.order), at());
      return o.get!(id);
    },
    dropOpen: async (m: { id: string }) => {
      load.write(`OPEN#${shardOf(m.id)}`, writeUnits(W.marker), at());
      return o.dropOpen!(m);
    },
    patch: async (id: string, ...rest: unknown[]) => {
      load.write(`ORDER#${id}`, writeUnits(W.order), at());
      return o.patch!(id, ...rest);
    },
  };
  for (const [name, pk] of [
    ['openPage', (k: number) => `OPEN#${k}`],
    ['open', (k: number) => `OPEN#${k}`],
    ['unstarted', (k: number) => `START#${k}`],
    ['deadlinesDue', (k: number) => `DEADLINE#${k}`],
  ] as const) {
    if (!o[name]) continue;
    wrap[name] = async (...a: unknown[]) => {
      const r = await o[name]!(...a);
      const list: { id: string }[] = Array.isArray(r) ? r : r.items.map((i: { ref: { id: string } }) => i.ref);
      markers(
        pk,
        list.map((x) => x.id),
      );
      return r;
    };
  }
  for (const name of ['started', 'dropDeadline'])
    if (o[name])
      wrap[name] = async (m: { id: string }) => {
        load.write(`${name === 'started' ? 'START' : 'DEADLINE'}#${shardOf(m.id)}`, writeUnits(W.marker), at());
        return o[name]!(m);
      };
  return new Proxy(orders, { get: (t, k) => wrap[k as string] ?? (t as any)[k] }) as T;
}

function countEvents<T extends object>(events: T, w: Wiring): T {
  const { load, at } = w;
  const e = events as Record<string, (...a: any[]) => Promise<any>>;
  const wrap: Record<string, (...a: any[]) => Promise<any>> = {
    get: async (orderId: string, id: string) => {
      load.read(`ORDER#${orderId}`, readUnits(W.event), at());
      return e.get!(orderId, id);
    },
    settled: async (ref: { id: string }) => {
      load.write(`PENDING#${shardOf(ref.id)}`, writeUnits(W.marker), at());
      return e.settled!(ref);
    },
    restartAs: async (ev: { orderId: string }, ...rest: unknown[]) => {
      load.write(`ORDER#${ev.orderId}`, writeUnits(W.event), at());
      return e.restartAs!(ev, ...rest);
    },
  };
  for (const name of ['pendingPage', 'pending'])
    if (e[name])
      wrap[name] = async (...a: unknown[]) => {
        const r = await e[name]!(...a);
        const list: { id: string }[] = Array.isArray(r) ? r : r.items.map((i: { ref: { id: string } }) => i.ref);
        const perShard = new Map<number, number>();
        for (const x of list) perShard.set(shardOf(x.id), (perShard.get(shardOf(x.id)) ?? 0) + 1);
        for (let k = 0; k < 10; k++) load.read(`PENDING#${k}`, readUnits((perShard.get(k) ?? 0) * W.marker), at());
        return r;
      };
  return new Proxy(events, { get: (t, k) => wrap[k as string] ?? (t as any)[k] }) as T;
}

/**
 * The shared part of both designs: the orders and events in the domain tests' table, as the steps write them; this
 * branch's (`thisBranch`) with its unstarted and deadline markers.
 */
function tableSide(table: any, w: Wiring, thisBranch: boolean) {
  const { load, at } = w;
  return {
    create(o: SimOrder) {
      const order = orderOf(o);
      table.orders.set(o.id, order);
      table.open.add(o.id);
      // The creation's transaction: the order, its reference and the user, the open marker (and the unstarted and
      // deadline ones).
      load.write(`ORDER#${o.id}`, writeUnits(W.order, true), at(), { item: 'ORDER' });
      load.write(`USER#${order.userId}`, writeUnits(W.small, true) * 2, at(), { item: 'PROFILE' });
      load.write(`OPEN#${shardOf(o.id)}`, writeUnits(W.marker, true), at(), { item: o.id });
      if (thisBranch) {
        table.unstarted.add(o.id);
        load.write(`START#${shardOf(o.id)}`, writeUnits(W.marker, true), at(), { item: o.id });
      }
      if (thisBranch && order.deadlineAt) {
        table.deadlines.set(o.id, order.deadlineAt);
        load.write(`DEADLINE#${shardOf(o.id)}`, writeUnits(W.marker, true), at(), { item: o.id });
      }
    },
    startSeen(o: SimOrder) {
      if (!thisBranch) return;
      table.unstarted.delete(o.id);
      load.write(`START#${shardOf(o.id)}`, writeUnits(W.marker), at());
    },
    setStatus(id: string, status: Order['status'], set: Partial<Order> = {}) {
      const order = table.orders.get(id);
      Object.assign(order, { updatedAt: new Date(w.now()).toISOString() }, set, { status });
      load.write(`ORDER#${id}`, writeUnits(W.order, true), at(), { item: 'ORDER' });
      if (status === 'done' || status === 'error') {
        table.open.delete(id);
        load.write(`OPEN#${shardOf(id)}`, writeUnits(W.marker, true), at(), { item: id });
        // This branch's close deletes the deadline marker in the same transaction (adapters/order-transitions.ts).
        if (thisBranch && order.deadlineAt) {
          table.deadlines.delete(id);
          load.write(`DEADLINE#${shardOf(id)}`, writeUnits(W.marker, true), at(), { item: id });
        }
      }
    },
    closed(id: string) {
      const status = table.orders.get(id)?.status;
      return status === 'done' || status === 'error';
    },
    deadlineState() {
      if (!thisBranch) return { due: 0, overdue: 0 };
      const now = w.now();
      const iso = new Date(now).toISOString();
      let due = 0;
      for (const at of table.deadlines.values()) if (at <= iso) due++;
      let overdue = 0;
      for (const o of table.orders.values() as Iterable<Order>)
        if (o.deadlineAt && o.status !== 'done' && o.status !== 'error' && !o.renderStartedAt && Date.parse(o.deadlineAt) + 60_000 < now) overdue++;
      return { due, overdue };
    },
    recordEvent(o: SimOrder, key: string, settled: boolean) {
      const id = `${o.id}:${key}`;
      table.events.set(id, {
        id,
        orderId: o.id,
        userId: `u-${o.id}`,
        type: 'video.done',
        createdAt: new Date(w.now()).toISOString(),
        ...(settled ? { delivery: 'no_webhook' } : {}),
      });
      load.write(`ORDER#${o.id}`, writeUnits(W.event, true), at(), { item: `EVENT#${id}` });
      if (!settled) {
        table.pending.add(id);
        load.write(`PENDING#${shardOf(id)}`, writeUnits(W.marker, true), at(), { item: id });
      }
      return id;
    },
    settleEvent(id: string) {
      const ev = table.events.get(id);
      if (ev) ev.delivery = 'delivered';
      table.pending.delete(id);
      load.write(`PENDING#${shardOf(id)}`, writeUnits(W.marker), at());
    },
  };
}

/** This branch: the sharded queue's store counted as adapters/capacity.ts's calls touch the table. */
class CountedCapacity extends MemoryCapacity {
  constructor(
    private readonly w: Wiring,
    table: MemoryTable,
  ) {
    super(table);
  }
  private r(pk: string, units: number) {
    this.w.load.read(pk, units, this.w.at());
  }
  private wr(pk: string, units: number, item?: string) {
    this.w.load.write(pk, units, this.w.at(), item === undefined ? undefined : { item });
  }
  override async slots(ns: readonly number[]) {
    for (const n of ns) this.r(`SLOT#${n}`, readUnits(W.slot));
    return ns.map((n) => ({ ...(this.held.get(n) ?? { n }) }));
  }
  override async states(shards: readonly number[]) {
    for (const k of shards) this.r(`QUEUE#${k}`, readUnits(W.state));
    // The store's copies, made by hand: structuredClone of every state on every read is most of the model's time.
    return shards.map((k) => {
      const s = this.shardStates.get(k) ?? emptyShardState();
      return {
        ...s,
        issued: { ...s.issued },
        served: { ...s.served },
        headsIssued: { ...s.headsIssued },
        headsServed: { ...s.headsServed },
        marks: { ...s.marks },
      };
    });
  }
  override async head(shard: number, channel: Channel) {
    this.r(`WAITING#${shard}#${channel}`, readUnits(W.waiter));
    return super.head(shard, channel);
  }
  /** The key's item of a shard's channel (keys.queueKey), read strongly consistent. */
  private keyRead(w: Pick<Waiter, 'shard' | 'channel' | 'key'>) {
    this.r(`QUEUEKEY#${w.shard}#${w.channel}#${w.key}`, readUnits(W.marker));
  }
  private keyWrite(w: Pick<Waiter, 'shard' | 'channel' | 'key'>) {
    this.wr(`QUEUEKEY#${w.shard}#${w.channel}#${w.key}`, writeUnits(W.marker, true), 'STATE');
  }
  /** A wait's leaving: its key's item read, and its key's next parked wait queried and promoted when it was the head. */
  private leaving(w: Waiter) {
    this.keyRead(w);
    this.keyWrite(w);
    const kx = this.keyStates.get(`${w.shard}#${w.channel}#${w.key}`);
    if (kx?.head?.orderId === w.orderId && kx.n > 1) {
      this.r(`WAITING#${w.shard}#${w.channel}`, readUnits(W.waiter));
      this.wr(`WAITING#${w.shard}#${w.channel}`, 2 * writeUnits(W.waiter, true), 'PROMOTED');
    }
  }
  override async waiter(shard: number, channel: Channel, orderId: string, key: string) {
    this.keyRead({ shard, channel, key });
    this.r(`WAITING#${shard}#${channel}`, readUnits(W.waiter));
    return super.waiter(shard, channel, orderId, key);
  }
  override async wait(w: NewWait) {
    const pk = `WAITING#${w.shard}#${w.channel}`;
    this.keyRead(w);
    // The update of a wait already there (its condition fails for a new one, at the same cost).
    this.wr(pk, writeUnits(W.waiter));
    const before = this.waiting.get(w.orderId);
    if (!(before && before.shard === w.shard && before.channel === w.channel)) {
      // The ticket from the shard's counter (an update in place), then the wait's transaction with its key's item.
      this.wr(`QUEUE#${w.shard}`, writeUnits(W.state), 'STATE');
      this.wr(pk, writeUnits(W.waiter, true), w.orderId);
      this.keyWrite(w);
    }
    return super.wait(w);
  }
  override async enqueue(w: NewWait, order: Pick<Order, 'id' | 'queueShard'>) {
    // Its key's item read, the ticket from the shard's counter (an update in place), then one transaction: the wait,
    // its key's item, the order's place, the marker's end.
    this.keyRead(w);
    this.wr(`QUEUE#${w.shard}`, writeUnits(W.state), 'STATE');
    this.wr(`WAITING#${w.shard}#${w.channel}`, writeUnits(W.waiter, true), w.orderId);
    this.keyWrite(w);
    this.wr(`ORDER#${order.id}`, writeUnits(W.order, true), 'ORDER');
    this.wr(`START#${shardOf(order.id)}`, writeUnits(W.marker, true), order.id);
    return super.enqueue(w, order);
  }
  override async unwait(shard: number, channel: Channel, orderId: string, key: string) {
    const w = this.waiting.get(orderId);
    this.keyRead({ shard, channel, key });
    this.r(`WAITING#${shard}#${channel}`, readUnits(W.waiter));
    if (w?.shard === shard && w.channel === channel) {
      this.leaving(w);
      this.wr(`WAITING#${shard}#${channel}`, writeUnits(W.waiter, true), orderId);
      this.wr(`QUEUE#${shard}`, writeUnits(W.state, true), 'STATE');
    }
    return super.unwait(shard, channel, orderId, key);
  }
  override async claim(c: Claim) {
    this.leaving(c.waiter);
    this.wr(`SLOT#${c.slot.n}`, writeUnits(W.slot, true), 'SLOT');
    this.wr(`WAITING#${c.waiter.shard}#${c.waiter.channel}`, writeUnits(W.waiter, true), c.waiter.orderId);
    this.wr(`QUEUE#${c.waiter.shard}`, writeUnits(W.state, true), 'STATE');
    this.wr(`ORDER#${c.waiter.orderId}`, writeUnits(W.hold, true), 'SLOT');
    if (c.slotShard !== c.waiter.shard) this.wr(`QUEUE#${c.slotShard}`, writeUnits(W.state, true), 'STATE');
    if (c.slot.holder) this.wr(`ORDER#${c.slot.holder}`, writeUnits(W.hold, true), 'SLOT');
    return super.claim(c);
  }
  override async renew(n: number, orderId: string, leaseUntil: Date) {
    this.wr(`SLOT#${n}`, writeUnits(W.slot));
    return super.renew(n, orderId, leaseUntil);
  }
  override async release(s: Slot, slotShard: number, rate?: number) {
    if (s.holder) {
      this.wr(`SLOT#${s.n}`, writeUnits(W.slot, true), 'SLOT');
      this.wr(`QUEUE#${slotShard}`, writeUnits(W.state, true), 'STATE');
      this.wr(`ORDER#${s.holder}`, writeUnits(W.hold, true), 'SLOT');
    }
    return super.release(s, slotShard, rate);
  }
  override async holding(orderId: string) {
    this.r(`ORDER#${orderId}`, readUnits(W.hold));
    return super.holding(orderId);
  }
  override async tickets(shard: number, channel: Channel) {
    const tickets = await super.tickets(shard, channel);
    // A Query reads the channel's waits whole, however little of them it returns.
    this.r(`WAITING#${shard}#${channel}`, readUnits(W.waiter * tickets.length));
    return tickets;
  }
  override async recount(r: Recount) {
    this.wr(`QUEUE#${r.shard}`, writeUnits(W.state), 'STATE');
    return super.recount(r);
  }
}

function newDesign(w: Wiring): Design {
  const table = new MemoryTable();
  const store = new CountedCapacity(w, table);
  const settings = { slots: w.slots, leaseSeconds: 1800, botRun: 3, now: () => new Date(w.now()) };
  const queue = new RenderQueue({ store: store as CapacityStore, wakeup: w.wakeup, ...settings });
  const reader = shardReader(store as never, { slots: w.slots, shards: queue.shards });
  const viewSettings = { shards: queue.shards, botRun: 3, defaultSecondsPerVideoSecond: SCENARIO.slotSecondsPerOrder / 20 };
  const views = Array.from({ length: w.processes }, () => new QueueViews(reader, viewSettings, SCENARIO.snapshotMaxAgeMs, 10_000, w.now));
  const side = tableSide(table, w, true);
  const orders = countOrders(new MemoryOrders(table), w);
  const eventsBase = countEvents(new MemoryEvents(table), w);
  let eventsReached = false;
  const events = new Proxy(eventsBase, {
    get: (t, k) =>
      k === 'pendingPage'
        ? (...a: Parameters<MemoryEvents['pendingPage']>) => {
            eventsReached = true;
            return t.pendingPage(...a);
          }
        : (t as any)[k],
  });
  let cursor = {};
  const metrics = new MemoryMetrics();
  return {
    slots: w.slots,
    shards: queue.shards,
    ...side,
    async awaitSlot(o, token) {
      await queue.awaitSlot({ id: o.id, channel: o.channel, userId: `u-${o.id}`, videoSeconds: o.videoSeconds }, token, async (place) => {
        w.load.write(`ORDER#${o.id}`, writeUnits(W.order), w.at());
        table.orders.get(o.id)!.queuePlace = place;
      });
    },
    enqueue: (o) => queue.enqueue(table.orders.get(o.id)!),
    release: (id) => queue.release(id, true),
    async eta(p, o) {
      const view = await views[p]!.view([{ id: o.id }], o.director ? undefined : { id: o.id, channel: o.channel });
      return queuedEta(view, { id: o.id, channel: o.channel, videoSeconds: o.videoSeconds }, w.now());
    },
    async snapshot(p) {
      await views[p]!.view();
    },
    waiting: () => store.waiting.size,
    async sweep() {
      eventsReached = false;
      await auditSweep({
        orders,
        workflow: w.workflow,
        events,
        delivery: w.delivery,
        metrics,
        // The deadline's cancel (core/cancel-order.ts): the transition to error (its markers as the adapter's), the
        // order out of the render queue, its event.
        async expire(order) {
          side.setStatus(order.id, 'error', { finishedAt: new Date(w.now()).toISOString(), refunded: true });
          await queue.release(order.id, false, order.channel && { channel: order.channel, key: order.userId });
          await w.expired(order);
        },
        now: () => new Date(w.now()),
        queue,
        cursor: {
          load: async () => {
            w.load.read('AUDIT', readUnits(W.small), w.at());
            return cursor;
          },
          save: async (c) => {
            w.load.write('AUDIT', writeUnits(W.small), w.at());
            cursor = c;
          },
        },
        budget: SWEEP_BUDGET,
        graceSeconds: 60,
        reviewWaitSeconds: 7 * 24 * 3600,
        isBusy: isTransient,
        log: { warn: () => undefined },
      });
      return { eventsReached };
    },
  };
}

/** Today's main: its one CAPACITY partition (slots, ADMISSIONS, STATS) and WAITING#<channel> partitions, counted. */
function oldDesign(old: OldCode, w: Wiring): Design {
  const table = new old.memory.MemoryTable();
  const base = new old.memory.MemoryCapacity();
  const { load, at } = w;
  /** Each channel's waiting ids, oldest first, kept beside the store's map (what a query of WAITING#<channel> returns). */
  const ids: Record<Channel, string[]> = { api: [], bot: [] };
  const place = (list: string[], id: string) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const add = (c: Channel, id: string) => {
    const i = place(ids[c], id);
    if (ids[c][i] !== id) ids[c].splice(i, 0, id);
  };
  const remove = (c: Channel, id: string) => {
    const i = place(ids[c], id);
    if (ids[c][i] === id) ids[c].splice(i, 1);
  };
  const cap = (units: number) => load.write('CAPACITY', units, at());
  const free: Slot[] = Array.from({ length: w.slots }, (_, n) => ({ n }));
  /** The query of every slot item of the CAPACITY partition (consistent): one read of all of them. */
  const slotQuery = (count: number) => load.read('CAPACITY', readUnits(count * W.slot), at());
  const waitingQuery = (c: Channel, consistent: boolean) => load.read(`WAITING#${c}`, readUnits(ids[c].length * W.waiter, consistent), at());
  const store = {
    async slots(count: number) {
      slotQuery(count);
      // The held slots as stored (the old queue only reads them), free ones as made once: no copy per read.
      const out: Slot[] = [];
      for (let n = 0; n < count; n++) out.push(base.held.get(n) ?? free[n]!);
      return out;
    },
    async head(c: Channel) {
      load.read(`WAITING#${c}`, readUnits(W.waiter), at());
      const id = ids[c][0];
      return id === undefined ? undefined : { ...base.waiting.get(id) };
    },
    async waitingCount(c: Channel) {
      waitingQuery(c, false);
      return ids[c].length;
    },
    async wait(wt: any) {
      load.write(`WAITING#${wt.channel}`, writeUnits(W.waiter), at());
      add(wt.channel, wt.orderId);
      return base.wait(wt);
    },
    async unwait(c: Channel, id: string) {
      load.write(`WAITING#${c}`, writeUnits(W.waiter), at());
      if (base.waiting.get(id)?.channel === c) remove(c, id);
      return base.unwait(c, id);
    },
    async claim(n: number, wt: any, leaseUntil: Date, now: Date, streak: unknown) {
      // One transaction: the slot and ADMISSIONS (both in CAPACITY) and the waiter.
      load.write('CAPACITY', writeUnits(W.slot, true), at(), { item: `SLOT#${n}` });
      load.write('CAPACITY', writeUnits(W.small, true), at(), { item: 'ADMISSIONS' });
      load.write(`WAITING#${wt.channel}`, writeUnits(W.waiter, true), at(), { item: wt.orderId });
      const ok = await base.claim(n, wt, leaseUntil, now, streak);
      if (ok) remove(wt.channel, wt.orderId);
      return ok;
    },
    async renew(n: number, id: string, until: Date) {
      cap(writeUnits(W.slot));
      return base.renew(n, id, until);
    },
    async release(n: number, id: string) {
      cap(writeUnits(W.slot));
      return base.release(n, id);
    },
    async botRun() {
      load.read('CAPACITY', readUnits(W.small), at());
      return base.botRun();
    },
    async rate() {
      load.read('CAPACITY', readUnits(W.small), at());
      return base.rate();
    },
    async saveRate(v: number) {
      cap(writeUnits(W.small));
      return base.saveRate(v);
    },
    /** The adapter's query of a whole WAITING#<channel> partition (eventually consistent), for the eta snapshot. */
    async waitingIds(c: Channel) {
      waitingQuery(c, false);
      return [...ids[c]];
    },
  };
  const queue = new old.capacity.RenderQueue({ store, wakeup: w.wakeup, slots: w.slots, leaseSeconds: 1800, botRun: 3, now: () => new Date(w.now()) });
  const reader = new old.adapter.QueueReader(store, { slots: w.slots, botRun: 3, defaultSecondsPerVideoSecond: SCENARIO.slotSecondsPerOrder / 20 });
  const views = Array.from({ length: w.processes }, () => new old.eta.QueueViews(() => reader.read(w.now()), SCENARIO.snapshotMaxAgeMs, 10_000, w.now));
  const side = tableSide(table, w, false);
  const orders = countOrders(new old.memory.MemoryOrders(table), w);
  const eventsBase = countEvents(new old.memory.MemoryEvents(table), w);
  let eventsReached = false;
  const events = new Proxy(eventsBase, {
    get: (t, k) =>
      k === 'pending'
        ? (...a: unknown[]) => {
            eventsReached = true;
            return t.pending(...a);
          }
        : t[k],
  });
  return {
    slots: w.slots,
    shards: 1,
    ...side,
    awaitSlot: (o, token) => queue.awaitSlot({ id: o.id, channel: o.channel, videoSeconds: o.videoSeconds }, token),
    enqueue: () => Promise.reject(new Error("today's main starts every order's execution at its creation")),
    release: (id) => queue.release(id, true),
    async eta(p, o) {
      const view = await views[p]!.view(o.director ? undefined : { id: o.id, channel: o.channel });
      return old.eta.queuedEta(view, { id: o.id, channel: o.channel, videoSeconds: o.videoSeconds }, w.now());
    },
    async snapshot(p) {
      await views[p]!.view();
    },
    waiting: () => ids.api.length + ids.bot.length,
    async sweep() {
      eventsReached = false;
      await old.sweep.sweep({
        orders,
        workflow: w.workflow,
        events,
        delivery: w.delivery,
        queue,
        metrics: new MemoryMetrics(),
        graceSeconds: 60,
        expire: async () => undefined,
        now: () => new Date(w.now()),
      });
      return { eventsReached };
    },
  };
}

export const SCALES = [1, 10, 100] as const;

/** Every design at every scale. */
export async function runAll(): Promise<ScaleResult[]> {
  const old = await loadOldCode();
  try {
    const out: ScaleResult[] = [];
    for (const design of ['new', 'old', 'old-sized'] as const) for (const scale of SCALES) out.push(await runScale(design, scale, old));
    return out;
  } finally {
    old.dispose();
  }
}

export const LIMITS = { ...PARTITION_LIMITS, sfnShare: 0.5, etaP50: 0.25 };

/** A resource's load as a share of its limit (1: saturated). */
export interface Share {
  what: string;
  share: number;
}

/** Each resource's peak load over its limit, most loaded first. */
export function shares(r: ScaleResult): Share[] {
  const q = SFN_QUOTAS;
  const list: Share[] = [
    { what: 'render slots', share: r.keepsUp ? r.utilisation : Math.max(1, r.utilisation) },
    {
      what: 'DescribeExecution (audit)',
      share:
        r.sweep.rejected > 0 || r.sfnThrottled.DescribeExecution > 0
          ? Math.max(1, r.sfnPeakMinute.DescribeExecution / q.DescribeExecution.perSecond)
          : r.sfnPeakMinute.DescribeExecution / q.DescribeExecution.perSecond,
    },
    { what: 'StartExecution', share: r.sfnPeakMinute.StartExecution / q.StartExecution.perSecond },
    { what: 'SendTaskSuccess', share: r.sfnPeakMinute.SendTaskSuccess / q.SendTaskSuccess.perSecond },
    { what: 'state transitions', share: r.sfnPeakMinute.StateTransition / q.StateTransition.perSecond },
    { what: `writes of ${r.writes.key}`, share: r.writes.perSecond / PARTITION_LIMITS.writeUnits },
    { what: `reads of ${r.reads.key}`, share: r.reads.perSecond / PARTITION_LIMITS.readUnits },
    { what: `transactions on ${r.transactions.key}`, share: r.transactions.perSecond / SCENARIO.serialTransactionsPerSecond },
  ];
  return list.sort((a, b) => b.share - a.share);
}

const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
const num = (x: number) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** What saturates at this scale (all of it), or what is nearest to. */
export function verdict(r: ScaleResult): { saturated: Share[]; next: Share } {
  const all = shares(r);
  return { saturated: all.filter((s) => s.share >= 1), next: all.find((s) => s.share < 1) ?? all[0]! };
}

/** The Done-means targets at 100x, for this branch. */
export function targets(r: ScaleResult) {
  const q = SFN_QUOTAS;
  const sfn = (['StartExecution', 'DescribeExecution', 'SendTaskSuccess', 'StateTransition'] as const).map((api) => ({
    api,
    share: r.sfnPeakMinute[api] / q[api].perSecond,
  }));
  return [
    {
      what: `no partition over ${PARTITION_LIMITS.writeUnits} write units a second`,
      met: r.writes.perSecond <= PARTITION_LIMITS.writeUnits,
      value: `${num(r.writes.perSecond)} (${r.writes.key})`,
    },
    {
      what: `no partition over ${PARTITION_LIMITS.readUnits} read units a second`,
      met: r.reads.perSecond <= PARTITION_LIMITS.readUnits,
      value: `${num(r.reads.perSecond)} (${r.reads.key})`,
    },
    ...sfn.map((s) => ({ what: `${s.api} under 50% of its refill (peak minute)`, met: s.share < LIMITS.sfnShare, value: pct(s.share) })),
    { what: 'admissions keep up with arrivals', met: r.keepsUp, value: `${num(r.admissionsPerSecond)} vs ${num(r.arrivalsPerSecond)} a second` },
    { what: 'eta error p50 within 25%', met: r.etaP50 <= LIMITS.etaP50, value: pct(r.etaP50) },
    {
      what: 'an order past its deadline canceled within the minute (issue 28)',
      met: r.deadlines !== undefined && r.deadlines.lateMax <= 60 && r.deadlines.overdueMax === 0 && r.deadlines.overdueAtEnd === 0,
      value: r.deadlines ? `${num(r.deadlines.lateMax)} s at most; ${r.deadlines.overdueMax} over a minute late at a run` : '-',
    },
  ];
}

/** One design's markdown table: a row per figure, a column per scale (and the 100x targets for this branch). */
export function designTable(results: ScaleResult[], design: DesignName): string {
  const rs = SCALES.map((s) => results.find((r) => r.design === design && r.scale === s)!);
  const q = SFN_QUOTAS;
  const row = (label: string, f: (r: ScaleResult) => string) => `| ${label} | ${rs.map(f).join(' | ')} |`;
  const stopped = (r: ScaleResult) => (r.stoppedAt !== undefined ? ` (run stopped at ${r.stoppedAt.toFixed(0)} s: ${SCENARIO.waitingCap} waiting)` : '');
  const lines = [
    `| ${DESIGNS[design]} | ${SCALES.map((s) => `${s}x`).join(' | ')} |`,
    `|---|${SCALES.map(() => '---').join('|')}|`,
    row('render slots (shards)', (r) => `${r.slots} (${r.shards})`),
    row('warm API processes (a snapshot each every 2 s)', (r) => `${r.processes}`),
    row('arrivals a second: mean (burst minute)', (r) => `${num(r.arrivalsPerSecond)} (${num(r.peakArrivalsPerSecond)})`),
    row('admissions a second (mean over the arrivals)', (r) => num(r.admissionsPerSecond)),
    row('slot utilisation (work arrived / slot time)', (r) => pct(r.utilisation)),
    row('waiting at the arrivals’ end, at the run’s end', (r) => `${r.waitingAtArrivalsEnd}, ${r.waitingAtEnd}${stopped(r)}`),
    row('keeps up', (r) => (r.keepsUp ? 'yes' : 'no: the queue grows')),
    row('eta error at creation, p50 / p90 (orders done; today’s main: every 4th)', (r) => `${pct(r.etaP50)} / ${pct(r.etaP90)} (${r.etaCount})`),
    row('audit: DescribeExecution a run, max (refill: 600 a minute)', (r) => `${r.sweep.describesPerRunMax} (${pct(r.sweep.describesPerRunMax / 600)})`),
    row('audit: StartExecution a run, max', (r) => `${r.sweep.startsPerRunMax}`),
    row('audit runs rejected / runs (events pass reached)', (r) => `${r.sweep.rejected} / ${r.sweep.runs} (${r.sweep.eventsPassReached})`),
    row('lost starts recovered', (r) => `${r.lost.recovered} of ${r.lost.count}`),
    row('orders with a deadline; due deadline markers at a run’s start, most (at the end)', (r) =>
      r.deadlines ? `${r.deadlines.orders}; ${r.deadlines.dueMax} (${r.deadlines.dueAtEnd})` : '-',
    ),
    row('deadline cancels; seconds after the deadline, p50 / most', (r) =>
      r.deadlines ? `${r.deadlines.canceled}; ${num(r.deadlines.lateP50)} / ${num(r.deadlines.lateMax)}` : '-',
    ),
    row('open orders over a minute past their deadline at a run’s start, most (at the end)', (r) =>
      r.deadlines ? `${r.deadlines.overdueMax} (${r.deadlines.overdueAtEnd})` : '-',
    ),
    ...(['StartExecution', 'DescribeExecution', 'SendTaskSuccess', 'StateTransition'] as const).map((api) =>
      row(
        `${api === 'StateTransition' ? 'state transitions' : api} a second, peak minute (of ${q[api].perSecond}; throttled)`,
        (r) => `${num(r.sfnPeakMinute[api])} (${pct(r.sfnPeakMinute[api] / q[api].perSecond)}; ${r.sfnThrottled[api]})`,
      ),
    ),
    row('busiest partition, write units a second (of 1,000)', (r) => `${num(r.writes.perSecond)} ${r.writes.key}`),
    row('busiest partition, read units a second (of 3,000)', (r) => `${num(r.reads.perSecond)} ${r.reads.key}`),
    row(
      `busiest item, transactions a second (one at a time: ~${SCENARIO.serialTransactionsPerSecond})`,
      (r) => `${num(r.transactions.perSecond)} ${r.transactions.key}`,
    ),
    row('saturated', (r) => {
      const v = verdict(r);
      return v.saturated.length ? v.saturated.map((s) => `${s.what} (${pct(s.share)})`).join('; ') : `nothing; nearest: ${v.next.what} (${pct(v.next.share)})`;
    }),
  ];
  return lines.join('\n');
}

/** The Capacity table of docs/architecture.md: per design and scale, what holds and what breaks first. */
export function capacityTable(results: ScaleResult[]): string {
  const lines = ['| design | scale | holds | saturated (load / limit) | next to break |', '|---|---|---|---|---|'];
  for (const design of Object.keys(DESIGNS) as DesignName[])
    for (const s of SCALES) {
      const r = results.find((x) => x.design === design && x.scale === s)!;
      const all = shares(r);
      const holds = all.filter((x) => x.share < 1).map((x) => x.what.replace(/ of .*| on .*/, ''));
      const broken = all.filter((x) => x.share >= 1);
      const next = all.find((x) => x.share < 1);
      lines.push(
        `| ${DESIGNS[design]} | ${s}x | ${broken.length ? [...new Set(holds)].join(', ') : 'everything'} | ${broken.map((x) => `${x.what} (${pct(x.share)})`).join('; ') || '-'} | ${next ? `${next.what} (${pct(next.share)})` : '-'} |`,
      );
    }
  return lines.join('\n');
}
