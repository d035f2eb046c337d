/**
 * The scale model (docs/benchmarks.md, "Scale model"): no server, a simulated clock (scale-model.ts Sim). Clients at
 * 1x to 1,000x of the baseline create orders and poll them while the service's own render queue (core/capacity.ts),
 * eta (core/eta.ts) and audit sweep (core/sweep.ts) run on the domain tests' in-memory stores, many operations in
 * flight at once. A queue port call is the DynamoDB requests the adapter's call sends (functions/adapters/capacity.ts),
 * each taking a seeded latency and counted in capacity units on its partition; the store applies the call at its
 * write's moment under the adapter's conditions, so admissions lose claims, waits retry and transactions meet. The
 * rest of an order's life (creation, steps, GETs, webhook) is the requests the local stack made (bench/cost.ts).
 * Lambda, API Gateway and Step Functions are counted against their quotas, never refused. Past SAMPLE_SHARDS shards
 * the run is a sample: the orders of the first SAMPLE_SHARDS shards only, its figures scaled to the whole.
 */
import { shardReader, WAIT_LOSSES } from '../functions/adapters/capacity.ts';
import { CONFLICTS } from '../functions/adapters/dynamo.ts';
import { isTransient } from '../functions/adapters/transient.ts';
import {
  type Claim,
  emptyShardState,
  type NewWait,
  orderShard,
  queueOrder,
  type Recount,
  RenderLanes,
  RenderQueue,
  type Slot,
  shardCount,
  slotsOf,
  START_AT_ADMISSION,
  type Waiter,
  type Wakeup,
} from '../functions/core/capacity.ts';
import { Contended } from '../functions/core/errors.ts';
import { pollAfterSeconds, QueueViews, queuedEta, standing, standingOf } from '../functions/core/eta.ts';
import { SHARDS, shardOf } from '../functions/core/ids.ts';
import { type Channel, isActiveTask, type Order } from '../functions/core/orders.ts';
import { pause } from '../functions/core/retry.ts';
import { SWEEP_BUDGET, sweep } from '../functions/core/sweep.ts';
import { slotsFor } from '../lib/sizing.ts';
import { MemoryCapacity, MemoryEvents, MemoryMetrics, MemoryOrders, MemoryTable } from '../test/domain/memory.ts';
import { seeded } from '../test/reliability/hostile.ts';
import { InFlight, LIMITS, lognormal, Meter, PerSecond, quantile, readUnits, SFN_QUOTAS, type SfnApi, Sim, TokenBucket, writeUnits } from './scale-model.ts';

export const SCENARIO = {
  baseOrdersPerHour: 1000,
  baseBurstPerMinute: 50,
  /** Prod's demand (lib/stages.ts): the slots 70% busy at the scale's peak. */
  slotSecondsPerOrder: 15,
  targetUtilisation: 0.7,
  /** Arrivals from the start, counted after the warm-up; the burst minute within, the window long enough for it to drain. */
  warmupSeconds: 60,
  countedSeconds: 360,
  burstStartsAt: 120,
  /** Of the light keys' orders, the bot's. */
  botShare: 0.1,
  /** Of the API orders: director mode, approved after an exponential wait of this mean. */
  directorShare: 0.1,
  reviewMeanSeconds: 60,
  webhookShare: 0.3,
  /** Of the API orders: heavy keys', each key at most this many a minute and held back at 10 active (DEFAULT_LIMITS). */
  heavyShare: 0.2,
  heavyPerMinute: 12,
  maxActive: 10,
  /** Light keys per 1x: most create one order in the run, some two or three. */
  lightKeys: 500,
  /** New orders' waits whose transaction fails after the ticket (an InternalServerError): a ghost ticket each. */
  ghostShare: 0.002,
  /** Slot time: a fixed part and a part per video second (videos of 10 to 30 s), times a log-normal noise: ~15 s. */
  slotFixedSeconds: 3,
  slotPerVideoSecond: 0.6,
  slotNoise: 0.15,
  /** Of the slot time, the plan and script before the render (the rest: the render, then the publish). */
  planSeconds: 1,
  seed: 39,
} as const;

export const SCALES = [1, 10, 100, 300, 1000] as const;
/** A scale with more shards runs the orders of this many (the slots and shards of the others held, their queues empty). */
export const SAMPLE_SHARDS = 75;

/** Median latencies, ms, log-normal (sigma): a DynamoDB request by kind, a Step Functions call, a state's hop (transition and invoke), a webhook's POST. */
const LATENCY = { get: 3, query: 4, batch: 5, write: 5, tx: 12, sfn: 25, hop: 30, hook: 100, sigma: 0.35 } as const;
/** A request's own CPU, ms (docs/benchmarks.md, CPU per request), a step's. */
const COMPUTE = { create: 9, get: 2, step: 5 } as const;
/** Item sizes, KB, as bench/cost.ts's order wrote them on the local stack; a wait with a task token holds ~1 KB more. */
const KB = {
  ...{ order: 1.9, newOrder: 0.7, event: 1.9, profile: 0.3, ref: 0.13, ledger: 0.2, marker: 0.14, window: 0.1, delivery: 0.45 },
  ...{ slot: 0.17, state: 0.24, key: 0.07, hold: 0.06, wait: 0.3, tokenWait: 1.3 },
} as const;

type Op = 'get' | 'query' | 'batch' | 'write' | 'tx';
/** An item of a request: its partition, KB, and render queue shard (none: a partition of all the orders'). */
type Item = readonly [pk: string, kb: number, shard?: number];
/** One DynamoDB request: a query's items are read together, a batch's and a transaction's each on its own. */
type Req = { op: Op; items: Item[] };
const req = (op: Op, ...items: Item[]): Req => ({ op, items });
/** A transaction's item: its name (what another transaction in flight meets) and where it is. */
type TxItem = readonly [name: string, ...Item];

/** How a run's operations met each other (per 1,000 orders in the report). */
export interface Conflicts {
  /** Claims refused: the slot, the wait, the bot run or the key's item moved since read, or a transaction held one. */
  claimsLost: number;
  /** Transactions cancelled by another in flight on an item (TransactionConflict), all kinds. */
  txConflicts: number;
  /** Single writes sent again after meeting a transaction; waits recorded again (their key moved, or a conflict). */
  writeRetries: number;
  waitRetries: number;
  /** Steps run again after a transient error (the state machine's Retry); creations whose queueing failed. */
  stepRetries: number;
  startsFailed: number;
  /** Tickets left without a wait (ghosts), and counts the sweep's recounts put right. */
  ghosts: number;
  corrected: number;
}

/** A run's clock, draws and meters; `f` the share of the shards it runs (1: all). */
interface Ctx {
  sim: Sim;
  rng: () => number;
  /** New orders whose wait's transaction fails after its ticket (drawn at their arrival). */
  ghosts: Set<string>;
  meter: Meter;
  f: number;
  calls: Record<string, number>;
  conflicts: Conflicts;
  /** Items inside a transaction in flight, until when. */
  busy: Map<string, number>;
}

const latency = (x: Ctx, op: keyof typeof LATENCY) => lognormal(x.rng, LATENCY[op], LATENCY.sigma);

/**
 * Counts a request's units. In a sample, the whole table counts each 1/f times (the sweep's once: it runs a minute
 * whatever the orders), and a queue partition its own shard's requests once and the others' 1/f times.
 */
function count(x: Ctx, tag: string, r: Req, acting?: number | 'own'): void {
  x.calls[tag] = (x.calls[tag] ?? 0) + 1;
  const table = tag === 'sweep' ? 1 : 1 / x.f;
  x.meter.requests += table;
  const weight = (shard?: number) => (tag === 'sweep' || (shard !== undefined && (acting === 'own' || acting === shard)) ? 1 : 1 / x.f);
  const at = x.sim.now;
  if (r.op === 'query') x.meter.add('reads', r.items[0]![0], readUnits(r.items.reduce((s, i) => s + i[1], 0)), at, weight(r.items[0]![2]), table);
  else
    for (const [pk, kb, shard] of r.items)
      if (r.op === 'get' || r.op === 'batch') x.meter.add('reads', pk, readUnits(kb), at, weight(shard), table);
      else x.meter.add('writes', pk, writeUnits(kb, r.op === 'tx'), at, weight(shard), table);
}

/** Sends requests one after the other, each taking its latency (all counted at the first's moment, one wait). */
async function send(x: Ctx, tag: string, rs: Req[], acting?: number | 'own'): Promise<void> {
  let ms = 0;
  for (const r of rs) {
    count(x, tag, r, acting);
    ms += latency(x, r.op);
  }
  await x.sim.sleep(ms);
}

/**
 * A transaction: at its moment, cancelled when another in flight holds one of its items (TransactionConflict), else
 * `commit` applies it (its conditions may still refuse it); its items held for its latency, its units either way.
 */
async function transact<T>(x: Ctx, tag: string, items: readonly TxItem[], commit: () => Promise<T>, acting?: number): Promise<T | 'conflict'> {
  count(x, tag, req('tx', ...items.map(([, ...item]) => item)), acting);
  const [now, ms] = [x.sim.now, latency(x, 'tx')];
  if (items.some(([name]) => (x.busy.get(name) ?? 0) > now)) {
    x.conflicts.txConflicts++;
    await x.sim.sleep(ms);
    return 'conflict';
  }
  for (const [name] of items) x.busy.set(name, now + ms);
  if (x.busy.size > 50_000) for (const [name, until] of x.busy) if (until <= now) x.busy.delete(name);
  const out = commit();
  // Its answer, a failure too, comes after its latency.
  out.catch(() => undefined);
  await x.sim.sleep(ms);
  return out;
}

/** A single write, sent again while a transaction holds its item (adapters/dynamo.ts writePastConflicts). */
async function write<T>(x: Ctx, tag: string, [name, ...item]: TxItem, apply: () => Promise<T>, acting?: number): Promise<T> {
  for (let n = 0; ; n++) {
    count(x, tag, req('write', item), acting);
    const out = (x.busy.get(name) ?? 0) > x.sim.now ? undefined : apply();
    await x.sim.sleep(latency(x, 'write'));
    if (out) return out;
    x.conflicts.writeRetries++;
    if (n + 1 >= CONFLICTS.attempts) throw new Contended(`${name} stayed held by other transactions`);
    await pause(CONFLICTS, n);
  }
}

const MOVED = Symbol('the key moved');

/**
 * The in-memory store making the DynamoDB adapter's requests (the live lane's partitions, or the test lane's): a port
 * call's reads first, then its write at its moment under the adapter's conditions (its key's item as read, no other
 * transaction in flight on its items). `as(tag, acting)` is the same store for a caller acting for an order of
 * shard `acting` ('own': every shard it reads is its own), counted apart.
 */
class CountedCapacity extends MemoryCapacity {
  tag = 'api';
  acting?: number | 'own';
  constructor(
    private readonly x: Ctx,
    table: MemoryTable,
    private readonly shards: number,
    private readonly prefix = '',
  ) {
    super(table);
    // The domain tests' records of every write and claim, not kept here.
    Object.assign(this, { wrote: () => undefined, claims: { push: () => 0 } });
  }
  as(tag: string, acting?: number | 'own'): this {
    return Object.assign(Object.create(this), { tag, acting });
  }
  private send(...rs: Req[]) {
    return send(this.x, this.tag, rs, this.acting);
  }
  private act = () => (typeof this.acting === 'number' ? this.acting : undefined);
  private item = (kind: string, shard: number, kb: number, ...rest: (string | number)[]): Item => [
    `${this.prefix}${kind}#${[shard, ...rest].join('#')}`,
    kb,
    shard,
  ];
  private slot = (n: number): Item => [`${this.prefix}SLOT#${n}`, KB.slot, n % this.shards];
  private slotItem = (n: number): TxItem => [`slot ${this.prefix}${n}`, ...this.slot(n)];
  private stateItem = (k: number): TxItem => [`state ${this.prefix}${k}`, ...this.item('QUEUE', k, KB.state)];
  private keyItem = (w: Pick<Waiter, 'shard' | 'channel' | 'key'>): TxItem => [
    `key ${this.prefix}${w.shard} ${w.channel} ${w.key}`,
    ...this.item('QUEUEKEY', w.shard, KB.key, w.channel, w.key),
  ];
  private waitItem = (w: Pick<Waiter, 'shard' | 'channel' | 'orderId' | 'token'>): TxItem => [
    `wait ${w.orderId}`,
    ...this.item('WAITING', w.shard, w.token === START_AT_ADMISSION ? KB.wait : KB.tokenWait, w.channel),
  ];
  private holdItem = (orderId: string): TxItem => [`hold ${orderId}`, `ORDER#${orderId}`, KB.hold];
  private get = ([, ...item]: TxItem) => req('get', item);
  /** A key's item as read: its count and head. */
  private keyRead(w: Pick<Waiter, 'shard' | 'channel' | 'key'>) {
    const k = this.keyStates.get(`${w.shard}#${w.channel}#${w.key}`);
    return `${k?.n ?? 0} ${k?.head?.orderId ?? ''}`;
  }
  /** A head leaving with its key's orders parked: its next one queried, promoted in the transaction, its place written after. */
  private promoting(w: Waiter) {
    const k = this.keyStates.get(`${w.shard}#${w.channel}#${w.key}`);
    return k?.head?.orderId === w.orderId && k.n > 1;
  }
  /** BatchGetItem requests of at most 100 keys. */
  private batches(items: Item[]): Req[] {
    return Array.from({ length: Math.ceil(items.length / 100) }, (_, i) => req('batch', ...items.slice(i * 100, i * 100 + 100)));
  }

  override async slots(ns: readonly number[]) {
    const out = ns.map((n) => ({ ...(this.held.get(n) ?? { n }) }));
    await this.send(...this.batches(ns.map(this.slot)));
    return out;
  }
  override async states(shards: readonly number[]) {
    // Copies made by hand: a structured clone of every state read is most of a run's time.
    const out = shards.map((k) => {
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
    await this.send(...this.batches(shards.map((k) => this.item('QUEUE', k, KB.state))));
    return out;
  }
  override async head(shard: number, channel: Channel) {
    const first = [...this.waiting.in(shard, channel)].sort(queueOrder)[0];
    await this.send(req('query', this.item('WAITING', shard, first ? this.waitItem(first)[2] : 0, channel)));
    return first && { ...first };
  }
  override async waiter(shard: number, channel: Channel, orderId: string, key: string) {
    const w = this.waiting.get(orderId);
    await this.send(this.get(this.keyItem({ shard, channel, key })), req('get', this.item('WAITING', shard, w ? this.waitItem(w)[2] : 0, channel)));
    return w?.shard === shard && w.channel === channel ? { ...w } : undefined;
  }
  override async holding(orderId: string) {
    const n = this.holds.get(orderId);
    await this.send(this.get(this.holdItem(orderId)));
    return n;
  }
  override async renew(n: number, orderId: string, leaseUntil: Date) {
    return write(this.x, this.tag, this.slotItem(n), () => super.renew(n, orderId, leaseUntil), this.act());
  }
  override async recount(r: Recount) {
    return write(this.x, this.tag, this.stateItem(r.shard), () => super.recount(r), this.act());
  }
  override async tickets(shard: number, channel: Channel) {
    const kb = [...this.waiting.in(shard, channel)].reduce((s, w) => s + this.waitItem(w)[2], 0);
    const out = super.tickets(shard, channel);
    await this.send(req('query', this.item('WAITING', shard, kb, channel)));
    return out;
  }
  override async release(s: Slot, slotShard: number, rate?: number) {
    if (!s.holder) return false;
    for (let n = 0; ; n++) {
      const items = [this.slotItem(s.n), this.stateItem(slotShard), this.holdItem(s.holder)];
      const out = await transact(this.x, this.tag, items, () => super.release(s, slotShard, rate), this.act());
      if (out !== 'conflict') return out;
      if (n + 1 >= CONFLICTS.attempts) throw new Contended(`the release of slot ${s.n} lost to other transactions`);
      await pause(CONFLICTS, n);
    }
  }
  override async claim(c: Claim) {
    const w = c.waiter;
    const read = this.keyRead(w);
    const promotes = this.promoting(w);
    await this.send(this.get(this.keyItem(w)), ...(promotes ? [req('query', this.item('WAITING', w.shard, KB.tokenWait, w.channel))] : []));
    const items: TxItem[] = [this.slotItem(c.slot.n), this.waitItem(w), this.keyItem(w), this.stateItem(w.shard), this.holdItem(w.orderId)];
    const parked = (name: string): TxItem => [`${name} ${w.key}`, ...this.item('WAITING', w.shard, KB.tokenWait, w.channel)];
    if (promotes) items.push(parked('parked'), parked('promoted'));
    if (c.slotShard !== w.shard) items.push(this.stateItem(c.slotShard));
    if (c.slot.holder) items.push(this.holdItem(c.slot.holder));
    const out = await transact(this.x, this.tag, items, () => (this.keyRead(w) === read ? super.claim(c) : Promise.resolve(false as const)), this.act());
    if (out !== false && out !== 'conflict') return out;
    this.x.conflicts.claimsLost++;
    return false;
  }
  /** A promoted head's place, written on its order after the admission's start. */
  override async place(w: Waiter) {
    await this.send(req('write', [`ORDER#${w.orderId}`, KB.order]));
    return super.place(w);
  }
  override async wait(w: NewWait) {
    return this.record(w, () => super.wait(w), []);
  }
  override async enqueue(w: NewWait, order: Pick<Order, 'id' | 'queueShard'>) {
    const also: TxItem[] = [
      [`order ${order.id}`, `ORDER#${order.id}`, KB.newOrder],
      [`start ${order.id}`, `START#${order.queueShard}`, KB.marker],
    ];
    return this.record(w, () => super.enqueue(w, order), also);
  }

  /**
   * A wait as the adapter records it (Capacity.wait, enqueue): its key's item read; a wait there already takes its new
   * token; else the ticket from the shard's counter, then one transaction with the key's item as read, sent again
   * (the ticket given back) while the key moves or another transaction holds an item, up to WAIT_LOSSES.
   */
  private async record<T>(w: NewWait, apply: () => Promise<T>, also: TxItem[]): Promise<T> {
    for (let lost = 0; ; lost++) {
      const read = this.keyRead(w);
      await this.send(this.get(this.keyItem(w)));
      const before = this.waiting.get(w.orderId);
      if (before && !also.length && before.shard === w.shard && before.channel === w.channel)
        return write(this.x, this.tag, this.waitItem(w), apply, this.act());
      if (before) return apply();
      // A wait's first update finds none (its condition fails, at a write's cost); then the ticket.
      if (!also.length) await this.send(req('write', this.item('WAITING', w.shard, 1, w.channel)));
      await write(this.x, this.tag, this.stateItem(w.shard), async () => true, this.act());
      // A new order's wait whose transaction fails after its ticket (the memory store's failNextEnqueue): the counter
      // counts a wait that is not there, a ghost, and the creation leaves its order to the audit.
      const ghost = also.length > 0 && this.x.ghosts.delete(w.orderId);
      let out: T | typeof MOVED | 'conflict';
      try {
        out = await transact<T | typeof MOVED>(
          this.x,
          this.tag,
          [this.waitItem(w), this.keyItem(w), ...also],
          () => {
            if (this.keyRead(w) !== read) return Promise.resolve(MOVED);
            if (ghost) this.failNextEnqueue = true;
            return apply();
          },
          this.act(),
        );
      } catch (err) {
        this.x.conflicts.ghosts++;
        throw err;
      }
      if (out !== 'conflict' && out !== MOVED) return out;
      await this.send(req('write', this.item('QUEUE', w.shard, KB.state)));
      this.x.conflicts.waitRetries++;
      if (lost + 1 >= WAIT_LOSSES.attempts) throw new Contended(`the wait of ${w.orderId} lost ${WAIT_LOSSES.attempts} times`);
      await pause(WAIT_LOSSES, lost);
    }
  }
}

/** An order of the model: its client's facts and its measured moments. */
interface SimOrder {
  order: Order;
  key: string;
  webhook: boolean;
  slotMs: number;
  /** Director mode: how long its client takes to approve the script. */
  reviewMs: number;
  createdAt: number;
  eta?: number;
  doneAt?: number;
}

export interface ScaleResult {
  scale: number;
  slots: number;
  shards: number;
  /** The share of the shards run (1: all). */
  sampled: number;
  /** Orders created in the counted window (the whole's, in a sample), and heavy keys' creations held back at 10 active. */
  orders: number;
  heldBack: number;
  admissions: number;
  perOrder: { reads: number; writes: number; requests: number };
  table: { reads: { mean: number; peak: number }; writes: { mean: number; peak: number } };
  busiest: { reads: { pk: string; units: number }; writes: { pk: string; units: number } };
  lambda: { peak: number; renders: number };
  apiGateway: { peakSecond: number; throttled: number };
  sfn: Record<SfnApi, { peakSecond: number; peakMinute: number; throttled: number }>;
  sweep: { runs: number; maxSeconds: number; maxCalls: number };
  conflicts: Conflicts;
  waitingAtEnd: number;
  etaP50: number;
  wallSeconds: number;
}

/** What a partition key names, for the report. */
export const partitionKind = (pk: string) => pk.replace(/#\d+/g, '#<k>');

export async function runScale(scale: number, sampleShards = SAMPLE_SHARDS): Promise<ScaleResult> {
  const wall = performance.now();
  const S = SCENARIO;
  // The arrivals and each order's draws from a stream of their own, so the load is the same whatever the service does.
  const [rng, draw] = [seeded(S.seed * 1000 + scale), seeded(S.seed * 1000 + scale + 500)];
  const sim = new Sim(seeded(S.seed * 7919 + scale));
  const [from, end] = [S.warmupSeconds * 1000, (S.warmupSeconds + S.countedSeconds) * 1000];
  const counted = (t: number) => t >= from && t < end;
  const slots = slotsFor({
    peakOrdersPerHour: S.baseOrdersPerHour * scale,
    slotSecondsPerOrder: S.slotSecondsPerOrder,
    targetUtilisation: S.targetUtilisation,
  });
  const shards = shardCount(slots);
  const sample = Math.min(shards, sampleShards);
  const x: Ctx = {
    sim,
    rng,
    ghosts: new Set(),
    f: sample / shards,
    meter: new Meter(from, end, (pk) => /^(ORDER|USER|QUEUEKEY|TESTQUEUEKEY)#/.test(pk)),
    calls: {},
    conflicts: { claimsLost: 0, txConflicts: 0, writeRetries: 0, waitRetries: 0, stepRetries: 0, startsFailed: 0, ghosts: 0, corrected: 0 },
    busy: new Map(),
  };
  const failures: unknown[] = [];
  /** An operation in flight on its own (an execution, a client): a fault of the model's stops the run. */
  const spawn = (p: Promise<unknown>) => void p.catch((err) => failures.push(err));
  const ddb = (tag: string, ...rs: Req[]) => send(x, tag, rs);

  const table = new MemoryTable();
  const store = new CountedCapacity(x, table, shards);
  const now = () => new Date(sim.now);
  const settings = { leaseSeconds: 1800, botRun: 3, now, random: seeded(S.seed * 31 + scale) };
  // A sample's other shards: their slots held (their orders not run), their queues empty.
  for (let k = sample; k < shards; k++)
    for (const n of slotsOf(k, slots, shards)) {
      const holder = `phantom-${n}`;
      store.held.set(n, { n, holder, channel: 'api', leaseUntil: Number.MAX_SAFE_INTEGER, since: now().toISOString(), videoSeconds: 20 });
      store.holds.set(holder, n);
      table.orders.set(holder, { id: holder, status: 'running' } as Order);
      const state = store.shardStates.get(k) ?? emptyShardState();
      store.shardStates.set(k, { ...state, busy: state.busy + 1, busyVideoSeconds: state.busyVideoSeconds + 20 });
    }

  // Step Functions, API Gateway and Lambda: counted against their quotas, never refused. In a sample each call or
  // invocation stands for 1/f of them (the sweep's for itself: it runs a minute whatever the orders).
  const sfnCalls = Object.fromEntries(
    (Object.keys(SFN_QUOTAS) as SfnApi[]).map((api) => [
      api,
      { bucket: new TokenBucket(SFN_QUOTAS[api].burst, SFN_QUOTAS[api].perSecond), n: new PerSecond(from, end), throttled: 0 },
    ]),
  ) as Record<SfnApi, { bucket: TokenBucket; n: PerSecond; throttled: number }>;
  const stepFunctions = (api: SfnApi, n = 1, weight = 1 / x.f) => {
    const c = sfnCalls[api];
    c.n.add(sim.now, n * weight);
    if (!c.bucket.take(sim.now, n * weight) && counted(sim.now)) c.throttled += n * weight;
  };
  const sfn = async (api: SfnApi, weight?: number) => {
    stepFunctions(api, 1, weight);
    await sim.sleep(latency(x, 'sfn'));
  };
  const api = { bucket: new TokenBucket(LIMITS.apiGateway.burst, LIMITS.apiGateway.perSecond), n: new PerSecond(from, end), throttled: 0 };
  const lambda = { all: new InFlight(from, end), renders: new InFlight(from, end) };
  /** A Lambda invocation (an API request through API Gateway, or a step): one concurrent execution for its duration. */
  const invoke = async <T>(fn: string, body: () => Promise<T>, computeMs: number = COMPUTE.step): Promise<T> => {
    const w = fn === 'sweep' ? 1 : 1 / x.f;
    if (fn === 'create' || fn === 'get' || fn === 'review') {
      api.n.add(sim.now, w);
      if (!api.bucket.take(sim.now, w) && counted(sim.now)) api.throttled += w;
    }
    const render = fn === 'render-video' ? w : 0;
    lambda.all.change(w, sim.now);
    lambda.renders.change(render, sim.now);
    try {
      const out = await body();
      await sim.sleep(computeMs);
      return out;
    } finally {
      lambda.all.change(-w, sim.now);
      lambda.renders.change(-render, sim.now);
    }
  };

  const orders = new Map<string, SimOrder>();
  const keys = new Map<string, { active: number }>();
  const tokens = new Map<string, () => void>();
  const executions = new Set<string>();
  let admissions = 0;
  const wakeup: Wakeup = {
    async wake(token, _slot, orderId) {
      if (token === START_AT_ADMISSION) {
        await sfn('StartExecution');
        if (counted(sim.now)) admissions++;
        spawn(execute(orders.get(orderId)!, 'admitted'));
        return true;
      }
      await sfn('SendTaskSuccess');
      const resume = tokens.get(token);
      tokens.delete(token);
      if (resume && counted(sim.now)) admissions++;
      resume?.();
      return resume !== undefined;
    },
  };
  /** The render queue as a caller acting for an order holds it (its requests counted as its shard's). */
  const queueFor = (tag: string, orderId: string) => new RenderQueue({ store: store.as(tag, orderShard(orderId, shards)), wakeup, slots, ...settings });
  const testLane = new RenderQueue({ store: new CountedCapacity(x, table, 1, 'TEST').as('sweep'), wakeup, slots: 1, shards: 1, ...settings });
  const lanes = new RenderLanes({ live: new RenderQueue({ store: store.as('sweep'), wakeup, slots, ...settings }), test: testLane });
  const reader = shardReader(store.as('api', 'own'), { slots, shards });
  const viewSettings = { shards, botRun: 3, defaultSecondsPerVideoSecond: S.slotSecondsPerOrder / 20 };
  /** The API functions' warm environments, each with its own queue views (a shard's state read at most every 2 s). */
  const warm: Record<string, QueueViews[]> = { create: [], get: [] };
  const withViews = async <T>(fn: 'create' | 'get', body: (views: QueueViews) => Promise<T>) => {
    const views = warm[fn]!.pop() ?? new QueueViews(reader, viewSettings, 2000, 10_000, () => sim.now);
    try {
      return await body(views);
    } finally {
      warm[fn]!.push(views);
    }
  };

  const own = (o: SimOrder, kb: number = KB.order): Item => [`ORDER#${o.order.id}`, kb];
  const user = (o: SimOrder, kb: number = KB.profile): Item => [`USER#${o.key}`, kb];
  const eventId = (o: SimOrder) => `${o.order.id}:done`;

  /** A state's step: its hop and transition, its Lambda, the state machine's Retry of a transient error (2 s, doubling, 6 times). */
  const step = async (fn: string, body: () => Promise<unknown>) => {
    for (let n = 0; ; n++) {
      await sim.sleep(latency(x, 'hop'));
      stepFunctions('StateTransition');
      try {
        return await invoke(fn, body);
      } catch (err) {
        if (!isTransient(err) || n >= 6) throw err;
        x.conflicts.stepRetries++;
        await sim.sleep(2000 * 2 ** n);
      }
    }
  };
  /** The order's wait for a slot with a task token (AwaitSlot): the step records it, an admission completes it. */
  const awaitSlot = async (o: SimOrder) => {
    const token = `token-${o.order.id}-${sim.now}`;
    const woken = new Promise<void>((r) => tokens.set(token, r));
    await step('await-slot', async () => {
      await ddb('step', req('get', own(o)));
      await queueFor('step', o.order.id).awaitSlot({ ...o.order, videoSeconds: o.order.params.duration_seconds }, token, async (place) => {
        await ddb('step', req('write', own(o)));
        o.order.queuePlace = place;
      });
    });
    await woken;
  };

  /** The order workflow: from its admission (5 transitions), or from its creation (director mode) or the sweep's start, its wait to come. */
  async function execute(o: SimOrder, from: 'admitted' | 'created' | 'restarted') {
    executions.add(o.order.id);
    stepFunctions('StateTransition');
    const start = async () => {
      await ddb('step', req('get', own(o)), req('tx', own(o)));
      if (o.order.status === 'queued') Object.assign(o.order, { status: 'running', startedAt: now().toISOString() });
    };
    const plan = async () => {
      await ddb('step', req('get', own(o)), req('write', own(o)), req('get', own(o)), req('write', own(o)));
      await sim.sleep(S.planSeconds * 1000);
    };
    if (from === 'admitted')
      await step('prepare-order', async () => {
        await start();
        await plan();
      });
    else {
      if (from === 'restarted') await awaitSlot(o);
      await step('start-order', start);
      stepFunctions('StateTransition');
      await step('plan-order', plan);
      await step('write-script', () => ddb('step', req('get', own(o)), req('write', own(o))));
      if (from === 'created') {
        // The review: its step stores the token; the client approves a while later (POST review: SendTaskSuccess).
        stepFunctions('StateTransition');
        const reviewed = new Promise<void>((r) => sim.at(sim.now + o.reviewMs, r));
        await step('await-review', async () => {
          await ddb('step', req('get', own(o)), req('tx', own(o), user(o)));
          o.order.status = 'awaiting_review';
        });
        await reviewed;
        await invoke('review', async () => {
          await ddb('api', req('get', user(o)), req('get', own(o)));
          await sfn('SendTaskSuccess');
          await ddb('api', req('tx', own(o), user(o)));
          Object.assign(o.order, { status: 'running', reviewed: true });
        });
        spawn(poll(o));
        stepFunctions('StateTransition');
        await awaitSlot(o);
      }
    }
    await step('render-video', async () => {
      await ddb('step', req('get', own(o)), req('write', own(o)));
      o.order.renderStartedAt = now().toISOString();
      await queueFor('step', o.order.id).renew(o.order.id);
      await sim.sleep(Math.max(1000, o.slotMs - S.planSeconds * 1000 - 500));
      await ddb('step', req('write', own(o)));
      o.order.rendered = true;
    });
    await step('publish-order', async () => {
      await ddb('step', req('get', own(o)));
      if (o.order.status !== 'done') {
        const pending: Item[] = o.webhook ? [[`PENDING#${shardOf(eventId(o))}`, KB.marker]] : [];
        await ddb('step', req('tx', own(o), user(o), own(o, KB.event), [`OPEN#${o.order.queueShard}`, KB.marker], ...pending));
        Object.assign(o.order, { status: 'done', finishedAt: now().toISOString() });
        o.doneAt = sim.now;
        table.open.delete(o.order.id);
        keys.get(o.key)!.active--;
        const id = eventId(o);
        table.events.set(id, {
          id,
          type: 'video.done',
          orderId: o.order.id,
          userId: o.key,
          createdAt: now().toISOString(),
          ...(o.webhook ? {} : { delivery: 'no_webhook' }),
        } as never);
        if (o.webhook) table.pending.add(id);
      }
      await queueFor('step', o.order.id).release(o.order.id, true);
      await ddb('step', req('get', user(o)));
      if (o.webhook) {
        await sfn('StartExecution');
        spawn(deliver(o));
      }
    });
    stepFunctions('StateTransition');
    executions.delete(o.order.id);
  }

  /** The delivery workflow of the order's video.done (3 transitions): the POST to the key's webhook, recorded. */
  async function deliver(o: SimOrder) {
    stepFunctions('StateTransition');
    await step('deliver-event', async () => {
      await ddb('step', req('get', own(o, KB.event)), req('get', user(o)));
      await sim.sleep(latency(x, 'hook'));
      await ddb('step', req('tx', own(o, KB.event), user(o, KB.delivery)), req('write', [`PENDING#${shardOf(eventId(o))}`, KB.marker]));
      table.pending.delete(eventId(o));
      table.events.get(eventId(o))!.delivery = 'delivered';
    });
    stepFunctions('StateTransition');
  }

  /** The client polls GET /videos/{id} as its Retry-After says (core/eta.ts pollAfterSeconds) until the order is done or awaits review. */
  async function poll(o: SimOrder) {
    let wait = pollAfterSeconds(o.order.status, o.eta ?? 30);
    while (wait !== undefined && sim.now < end) {
      await sim.sleep(wait * 1000);
      const get = async (views: QueueViews) => {
        await ddb('api', req('get', user(o)), req('write', user(o, KB.window)), req('get', own(o)));
        if (!isActiveTask(o.order.status)) return undefined;
        const [at, stands] = [sim.now, standingOf(o.order)];
        return pollAfterSeconds(o.order.status, standing(await views.view([stands]), stands, at).eta);
      };
      wait = await invoke('get', () => withViews('get', get), COMPUTE.get);
    }
  }

  /** POST /videos:quick (the bot's orders through its own function): the key, the eta, the creation, the queue. */
  async function create(o: SimOrder) {
    const { order } = o;
    const k = keys.get(o.key)!;
    const body = async (views: QueueViews) => {
      await ddb('api', req('get', user(o)));
      const director = order.params.director_mode;
      const view = await views.view([{ id: order.id }], director ? undefined : { id: order.id, channel: order.channel! });
      const keyActive = order.channel === 'api' ? k.active : undefined;
      o.eta = queuedEta(view, { id: order.id, channel: order.channel!, videoSeconds: order.params.duration_seconds, keyActive }, sim.now);
      const marker = (kind: string): Item => [`${kind}#${order.queueShard}`, KB.marker];
      await ddb('api', req('tx', own(o, KB.newOrder), user(o, KB.ref), user(o), user(o, KB.ledger), marker('OPEN'), marker('START'), user(o, KB.window)));
      table.orders.set(order.id, order);
      table.open.add(order.id);
      table.unstarted.add(order.id);
      k.active++;
      try {
        if (!director) await queueFor('api', order.id).enqueue(order);
        else {
          await sfn('StartExecution');
          spawn(execute(o, 'created'));
          await ddb('api', req('write', marker('START')));
          table.unstarted.delete(order.id);
        }
      } catch (err) {
        // As the creation's start: logged, the order left to the audit (its unstarted marker stays).
        if (!isTransient(err)) throw err;
        x.conflicts.startsFailed++;
      }
      await ddb('api', req('get', user(o, KB.window)));
    };
    await invoke(order.channel === 'bot' ? 'bot' : 'create', () => withViews('create', body), COMPUTE.create);
    if (order.channel === 'api') spawn(poll(o));
  }

  // The audit sweep, a run a minute (its Lambda's timeout 60 s), on the stores as the adapters read them.
  /** A store the sweep reads as its adapter does: each call's requests (from its answer and arguments), sent at once. */
  const metered = <T extends object>(target: T, cost: { [K in keyof T]?: (out: any, ...a: any[]) => Req[] }): T =>
    new Proxy(target, {
      get: (t, k) => {
        const f = (t as any)[k];
        const c = cost[k as keyof T];
        if (typeof f !== 'function') return f;
        if (!c) return f.bind(t);
        return async (...a: unknown[]) => {
          const out = await f.apply(t, a);
          const rs = c(out, ...a);
          for (const r of rs) count(x, 'sweep', r);
          await sim.sleep(latency(x, rs[0]?.op ?? 'get'));
          return out;
        };
      },
    });
  /** A read of a marker index: a Query of each of its shards at once, with the items found in each. */
  const markers = (kind: string, ids: string[], of: (id: string) => number = shardOf) => {
    const n = Array.from({ length: SHARDS }, () => 0);
    for (const id of ids) n[of(id)]!++;
    return n.map((c, k) => req('query', [`${kind}#${k}`, c * KB.marker]));
  };
  const ofOrder = (id: string) => table.orders.get(id)?.queueShard ?? 0;
  const marker = (kind: string, k: number) => [req('write', [`${kind}#${k}`, KB.marker])];
  const page = (kind: string, of?: (id: string) => number) => (p: { items: { ref: { id: string } }[] }) =>
    markers(
      kind,
      p.items.map((i) => i.ref.id),
      of,
    );
  const sfnAnswer = async <T>(api: SfnApi, answer: () => T) => {
    await sfn(api, 1);
    return answer();
  };
  let cursor = {};
  const sweepPorts = {
    orders: metered(new MemoryOrders(table), {
      get: (_, id: string) => [req('get', [`ORDER#${id}`, KB.order])],
      patch: (_, id: string) => [req('write', [`ORDER#${id}`, KB.order])],
      dropOpen: (_, o: Order) => marker('OPEN', o.queueShard),
      started: (_, o: Order) => marker('START', o.queueShard),
      openPage: page('OPEN', ofOrder),
      unstarted: (found: Order[]) =>
        markers(
          'START',
          found.map((o) => o.id),
          ofOrder,
        ),
      deadlinesDue: () => markers('DEADLINE', []),
    }),
    events: metered(new MemoryEvents(table), {
      get: (_, orderId: string) => [req('get', [`ORDER#${orderId}`, KB.event])],
      settled: (_, e: { id: string }) => marker('PENDING', shardOf(e.id)),
      pendingPage: page('PENDING'),
    }),
    workflow: {
      async start(order: Order) {
        await sfn('StartExecution', 1);
        if (executions.has(order.id)) return false;
        spawn(execute(orders.get(order.id)!, 'restarted'));
        return true;
      },
      state: (order: Order) => sfnAnswer('DescribeExecution', () => (executions.has(order.id) ? ('running' as const) : ('missing' as const))),
      stop: async () => undefined,
    },
    delivery: { start: () => sfnAnswer('StartExecution', () => false), state: () => sfnAnswer('DescribeExecution', () => 'running' as const) },
    metrics: new MemoryMetrics(),
    expire: async () => undefined,
    now,
    queue: {
      reclaim: lanes.reclaim.bind(lanes),
      admit: lanes.admit.bind(lanes),
      stats: lanes.stats.bind(lanes),
      awaitsAdmission: lanes.awaitsAdmission.bind(lanes),
      recount: async (run: number) => {
        const corrected = await lanes.recount(run);
        x.conflicts.corrected += corrected;
        return corrected;
      },
    },
    cursor: metered(
      {
        load: async () => cursor,
        save: async (c: object) => {
          cursor = c;
        },
      },
      { load: () => [req('get', ['AUDIT', 0.2])], save: () => [req('write', ['AUDIT', 0.2])] },
    ),
    budget: SWEEP_BUDGET,
    graceSeconds: 60,
    reviewWaitSeconds: 7 * 24 * 3600,
    isBusy: isTransient,
    log: { warn: () => undefined },
  };
  const sweepRuns: { seconds: number; calls: number }[] = [];
  const sweepRun = async () => {
    const [at, calls] = [sim.now, x.calls.sweep ?? 0];
    await invoke('sweep', () => sweep(sweepPorts as never));
    if (counted(at)) sweepRuns.push({ seconds: (sim.now - at) / 1000, calls: (x.calls.sweep ?? 0) - calls });
  };
  for (let t = 30_000; t < end; t += 60_000) sim.at(t, () => spawn(sweepRun()));

  // Arrivals: the light keys' (and the bot's) at the scale's rate less the heavy keys' (the burst minute at its own),
  // each heavy key at its own pace, held back at 10 active. In a sample, only the orders of its shards are run.
  const perSecond = (S.baseOrdersPerHour * scale) / 3600;
  const heavyKeys = Math.max(1, Math.ceil((perSecond * 60 * S.heavyShare) / S.heavyPerMinute));
  const heavyRate = (perSecond * (1 - S.botShare) * S.heavyShare) / heavyKeys;
  let seq = 0;
  let heldBack = 0;
  const arrive = (key: string, channel: Channel) => {
    const id = `o${String(Math.round(sim.now)).padStart(9, '0')}${String(seq++).padStart(7, '0')}`;
    const videoSeconds = 10 + Math.floor(draw() * 21);
    const director = channel === 'api' && draw() < S.directorShare;
    const slotMs = (S.slotFixedSeconds + S.slotPerVideoSecond * videoSeconds) * lognormal(draw, 1000, S.slotNoise);
    const reviewMs = -Math.log(1 - draw()) * S.reviewMeanSeconds * 1000;
    const ghost = draw() < S.ghostShare;
    if (orderShard(id, shards) >= sample) return;
    const k = keys.get(key) ?? { active: 0 };
    keys.set(key, k);
    if (key.startsWith('h') && k.active >= S.maxActive) return void (counted(sim.now) && heldBack++);
    if (ghost) x.ghosts.add(id);
    const at = now().toISOString();
    const params = { duration_seconds: videoSeconds, director_mode: director };
    const charge = { cost: 10, trial: false, extras: [] };
    const order = {
      id,
      userId: key,
      status: 'queued',
      kind: 'quick',
      channel,
      params,
      charge,
      createdAt: at,
      updatedAt: at,
      etaSeconds: 0,
      queueShard: shardOf(id),
    };
    // Whether its key has a webhook: a fixed draw of the key's name.
    const o: SimOrder = {
      order: order as unknown as Order,
      key,
      webhook: channel === 'api' && orderShard(key, 1000) < 1000 * S.webhookShare,
      slotMs,
      reviewMs,
      createdAt: sim.now,
    };
    orders.set(id, o);
    spawn(create(o));
  };
  const poisson = (rate: (t: number) => number, next: () => void) => {
    const tick = (t: number) => {
      const gap = (-Math.log(1 - draw()) / rate(t)) * 1000;
      if (t + gap < end)
        sim.at(t + gap, () => {
          next();
          tick(sim.now);
        });
    };
    tick(0);
  };
  const burst = (t: number) => t >= S.burstStartsAt * 1000 && t < (S.burstStartsAt + 60) * 1000;
  poisson(
    (t) => (burst(t) ? (S.baseBurstPerMinute * scale) / 60 : perSecond) - heavyRate * heavyKeys,
    () => arrive(`l${Math.floor(draw() * S.lightKeys * scale)}`, draw() < S.botShare ? 'bot' : 'api'),
  );
  for (let h = 0; h < heavyKeys; h++)
    poisson(
      () => heavyRate,
      () => arrive(`h${h}`, 'api'),
    );

  await sim.run(end);
  if (failures.length) throw failures[0];

  const created = [...orders.values()].filter((o) => counted(o.createdAt));
  const whole = (n: number) => n / x.f;
  const n = whole(created.length);
  const total = (kind: 'reads' | 'writes') => ({ sum: x.meter.table[kind].sum(), peak: x.meter.table[kind].peak() });
  const [reads, writes] = [total('reads'), total('writes')];
  const errors = created
    .filter((o) => o.eta !== undefined && o.doneAt !== undefined && !o.order.params.director_mode)
    .map((o) => Math.abs(o.eta! - (o.doneAt! - o.createdAt) / 1000) / ((o.doneAt! - o.createdAt) / 1000));
  const busiest = (kind: 'reads' | 'writes') => {
    const b = x.meter.busiest(kind);
    return { pk: partitionKind(b.pk), units: b.units };
  };
  return {
    scale,
    slots,
    shards,
    sampled: x.f,
    orders: n,
    heldBack: whole(heldBack),
    admissions: whole(admissions),
    perOrder: { reads: reads.sum / n, writes: writes.sum / n, requests: x.meter.requests / n },
    table: { reads: { mean: reads.sum / S.countedSeconds, peak: reads.peak }, writes: { mean: writes.sum / S.countedSeconds, peak: writes.peak } },
    busiest: { reads: busiest('reads'), writes: busiest('writes') },
    lambda: { peak: lambda.all.peak, renders: lambda.renders.peak },
    apiGateway: { peakSecond: api.n.peak(), throttled: api.throttled },
    sfn: Object.fromEntries(
      (Object.keys(SFN_QUOTAS) as SfnApi[]).map((k) => [
        k,
        { peakSecond: sfnCalls[k].n.peak(), peakMinute: sfnCalls[k].n.peak(60), throttled: sfnCalls[k].throttled },
      ]),
    ) as ScaleResult['sfn'],
    sweep: { runs: sweepRuns.length, maxSeconds: Math.max(0, ...sweepRuns.map((r) => r.seconds)), maxCalls: Math.max(0, ...sweepRuns.map((r) => r.calls)) },
    conflicts: Object.fromEntries(Object.entries(x.conflicts).map(([k, v]) => [k, whole(v)])) as unknown as Conflicts,
    waitingAtEnd: whole(store.waiting.size),
    etaP50: quantile(errors, 0.5),
    wallSeconds: (performance.now() - wall) / 1000,
  };
}

/** Every scale in turn. */
export async function runAll(scales: readonly number[] = SCALES): Promise<ScaleResult[]> {
  const out: ScaleResult[] = [];
  for (const s of scales) out.push(await runScale(s));
  return out;
}
