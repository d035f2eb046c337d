/**
 * Render capacity: at most `slots` orders generate at once; the others wait, and a wait never fails an order.
 *
 * Admission rule: the bot's orders before the API's; within a channel, round robin across keys (accounts): each key
 * with waiting orders has one of them as its head in the channel's rotation, the others parked behind it, oldest first
 * by order id (so an order back from review goes ahead of its key's newer ones); the first head is admitted, and the
 * key's next order then joins the rotation at its end, as does a key that had none waiting. A key's first waiting order is so at most (keys waiting) places from the front,
 * however many the other keys queued. After `botRun` bot admissions in a row while an API order waited, the API's
 * first head goes next, so the API never starves. A slot is a lease: a holder that died without releasing it loses it when the lease ends (and the recovery
 * sweep frees it sooner when the holder's order is closed).
 *
 * Shards, so that no item is written by every admission: the slots split into `shards` (slot n in shard n % shards),
 * and an order waits in the shard its id hashes to. Each shard has its own waits and its own state (the bot run, the
 * counters eta_seconds reads); the rule above holds within a shard. A slot that frees in a shard with nobody waiting
 * takes the head of the shard with the most waiting, and a wait in a shard with no free slot takes another shard's
 * free slot, so no slot idles while an order waits anywhere. One shard (up to 8 slots) is the plain queue.
 *
 * An order's workflow waits for its slot with a task token: `awaitSlot` records the wait and admits what fits;
 * whoever frees a slot (an order done or failed, the sweep) admits the next, which completes that order's wait.
 */
import { Contended } from './errors.ts';
import { pause, type RetryPolicy, type Sleep } from './retry.ts';
import type { Channel, Order } from './orders.ts';
import { type Charge, movesMoney } from './pricing.ts';
import { present } from './present.ts';

export const CHANNELS: readonly Channel[] = ['bot', 'api'];

/**
 * The lanes of render capacity, each its own queue (slots, waits, state): paid orders render in the live lane;
 * test-mode orders (they move no money) in a test lane of a few slots of its own, so a test key never takes a slot or
 * a queue place from a paying order, nor they from its tests (docs/decisions.md "Test mode").
 */
export type Lane = 'live' | 'test';
export const LANES: readonly Lane[] = ['live', 'test'];
export const laneOf = (order: { charge: Pick<Charge, 'test'> }): Lane => (movesMoney(order.charge) ? 'live' : 'test');

export interface Slot {
  n: number;
  holder?: string;
  channel?: Channel;
  /** Epoch milliseconds the lease ends. */
  leaseUntil?: number;
  /** When the holder was admitted (ISO 8601), and its video's length: for the counters and the measured rate. */
  since?: string;
  videoSeconds?: number;
}

export interface Waiter {
  orderId: string;
  channel: Channel;
  /** Whose order: its account, the unit of the round robin. */
  key: string;
  /** The task token of the workflow's wait. */
  token: string;
  since: string;
  videoSeconds?: number;
  /** The shard whose queue it waits in. */
  shard: number;
  /** Its number among the waits of its shard and channel (1 for the first ever). */
  ticket: number;
  /**
   * Its key's head: its number among its shard's channel's heads (1 for the first ever), handed out when it began to
   * wait (its key had none waiting) or when its key's head before it left: its turn, at the rotation's end, and
   * eta_seconds' place. Absent: parked behind its key's head.
   */
  head?: number;
  /** Parked: how many of its key's orders waited ahead of it when it began to wait. */
  behind?: number;
}

/** A new wait's facts beyond its order's: what the store hands it (as a head, or parked). */
export type Placed = Pick<Waiter, 'ticket' | 'head' | 'behind'>;
/** A wait's place as its order records it. */
export const placeOf = (w: Waiter): Placed => ({
  ticket: w.ticket,
  ...present({ head: w.head }),
  ...present({ behind: w.behind }),
});

/** Where an order waits: written on the order, so that eta_seconds needs no read of the queue. */
export interface QueuePlace extends Placed {
  shard: number;
}

/** The rotation's order, as the store's sort keys give it: heads by number (then order id), then parked waits. */
export function queueOrder(a: Pick<Waiter, 'orderId' | 'key' | 'head'>, b: Pick<Waiter, 'orderId' | 'key' | 'head'>): number {
  if (a.head !== undefined && b.head !== undefined) return a.head - b.head || cmp(a.orderId, b.orderId);
  if (a.head !== undefined || b.head !== undefined) return a.head !== undefined ? -1 : 1;
  return cmp(a.key, b.key) || cmp(a.orderId, b.orderId);
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A shard's one small item, written only by its own admissions, waits and releases (and a steal's): the bot run and
 * the counters eta_seconds is computed from.
 */
export interface ShardState {
  /** Bot admissions in a row while an API order of this shard waited. */
  botRun: number;
  /** Tickets handed out, and waits ended (admitted or left), per channel: the waiting are the difference. */
  issued: Record<Channel, number>;
  served: Record<Channel, number>;
  /** Heads handed out (a key's wait that became its head) and heads gone, per channel: the keys waiting are the difference. */
  headsIssued: Record<Channel, number>;
  headsServed: Record<Channel, number>;
  /** This shard's slots held now: how many, their videos' seconds and their admission times (epoch ms), summed. */
  busy: number;
  busyVideoSeconds: number;
  busySinceMs: number;
  /** The measured seconds of generation per video second, from this shard's finished orders. */
  rate?: number;
  /** Where each channel's last recount left off (RenderQueue.recount). */
  marks: Partial<Record<Channel, RecountMark>>;
}

export const emptyShardState = (): ShardState => ({
  botRun: 0,
  issued: { api: 0, bot: 0 },
  served: { api: 0, bot: 0 },
  headsIssued: { api: 0, bot: 0 },
  headsServed: { api: 0, bot: 0 },
  busy: 0,
  busyVideoSeconds: 0,
  busySinceMs: 0,
  marks: {},
});

/** A recount of a shard's channel: the tickets handed out when it read the counters, and when (epoch ms). */
export interface RecountMark {
  issued: number;
  atMs: number;
}

/**
 * The longest from a wait's ticket to its write, or to the ticket given back: the slowest function that records waits
 * (a workflow step's 120 s timeout, lib/functions.ts; the API's and the audit's are shorter) and a minute. A ticket
 * older than that with neither a wait nor a serving is a ghost, never a wait on its way.
 */
export const WAIT_WRITE_SECONDS = 120 + 60;

/** A recount's correction, as the store writes it: only while the shard's channel is still as the recount read it. */
export interface Recount {
  shard: number;
  channel: Channel;
  /** As read: `served` and the mark always checked, `issued` and the head counters when given. */
  from: { served: number; issued?: number; mark?: RecountMark; heads?: { issued: number; served: number } };
  /** `headsServed`: with `from.heads`, the heads gone set so that the keys waiting are the heads there are. */
  to: { served: number; mark: RecountMark; headsServed?: number };
}

/** How many of a shard's channel wait. */
export const waitingIn = (s: ShardState, channel: Channel) => Math.max(0, s.issued[channel] - s.served[channel]);
/** How many keys have orders waiting in a shard's channel (its heads), never more than the orders waiting. */
export const keysIn = (s: ShardState, channel: Channel) => Math.min(waitingIn(s, channel), Math.max(0, s.headsIssued[channel] - s.headsServed[channel]));

/** Slots per shard when no shard count is set: up to 8 slots are one shard, the queue as it always was. */
export const SLOTS_PER_SHARD = 8;
export const shardCount = (slots: number, set?: number) => Math.max(1, Math.min(slots, set ?? Math.ceil(slots / SLOTS_PER_SHARD)));
/** The slot numbers of a shard. */
export function slotsOf(shard: number, slots: number, shards: number): number[] {
  const ns: number[] = [];
  for (let n = shard; n < slots; n += shards) ns.push(n);
  return ns;
}
/** The shard an order waits in: its id's hash (FNV-1a), so every process finds it without a read. */
export function orderShard(orderId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < orderId.length; i++) h = Math.imul(h ^ orderId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
}

/** An admission as the store writes it, all or nothing. */
export interface Claim {
  /** The slot as read: free, or held by a holder whose lease ended (its counts leave the shard with it). */
  slot: Slot;
  slotShard: number;
  waiter: Waiter;
  leaseUntil: Date;
  now: Date;
  /** The waiter's shard's bot run as read (`from`), and as it becomes (`to`). */
  streak: { from: number; to: number };
  /** The waiter's shard's state as read: a promotion's head number is taken from its counters. */
  queue: ShardState;
}

export interface CapacityStore {
  /** The slots with these numbers; a slot never taken is free. */
  slots(ns: readonly number[]): Promise<Slot[]>;
  /** The state of these shards, in their order; a shard never written is empty. */
  states(shards: readonly number[]): Promise<ShardState[]>;
  /** The first wait of a shard's channel by the rotation (queueOrder). */
  head(shard: number, channel: Channel): Promise<Waiter | undefined>;
  /** The order's wait in a shard's channel, if it waits there. */
  waiter(shard: number, channel: Channel, orderId: string, key: string): Promise<Waiter | undefined>;
  /**
   * Records an order's wait with the next ticket of its shard and channel, as its key's head when the key has none
   * waiting (at the rotation's end), else parked behind it; a wait of the same order already there keeps its place and
   * takes the new token. Its place.
   */
  wait(w: NewWait): Promise<Placed>;
  /**
   * Records a new order's wait (its creation just committed it, so it has none) as `wait` does, with its place on the
   * order and the end of its unstarted marker, all or nothing, while the order is still queued. Its place; undefined
   * when the order was closed first (canceled) or waits already, and nothing was written.
   */
  enqueue(w: NewWait, order: Pick<Order, 'id' | 'queueShard'>): Promise<Placed | undefined>;
  /** Forgets an order's wait (a canceled order no longer waits for a slot); a head's leaving promotes its key's next. */
  unwait(shard: number, channel: Channel, orderId: string, key: string): Promise<void>;
  /**
   * Gives the slot to the waiter, all or nothing: only while the slot is as read (free, or the same holder with its
   * lease ended), the waiter still waits with this token, its key's waits are as the store reads them, and its shard's
   * bot run is still `streak.from`. A head's key's next order becomes its head, at the rotation's end (`promoted`, whose
   * place on its order `place` writes once the admission is done). False when any moved.
   */
  claim(c: Claim): Promise<false | { promoted?: Waiter }>;
  /** Writes a promoted head's place on its order, while the order is active (eta_seconds reads it there). */
  place(w: Waiter): Promise<void>;
  /** Extends the lease of the slot the order holds; false when it holds none. */
  renew(n: number, orderId: string, leaseUntil: Date): Promise<boolean>;
  /** Frees the slot as read from its holder, setting its shard's measured rate when given; false when it moved. */
  release(slot: Slot, slotShard: number, rate?: number): Promise<boolean>;
  /** The slot the order was last admitted to (it may have lost it since, when its lease ended). */
  holding(orderId: string): Promise<number | undefined>;
  /** The tickets of a shard's channel's waits, and whether each is its key's head, read strongly consistent (a recount's). */
  tickets(shard: number, channel: Channel): Promise<{ ticket: number; head: boolean }[]>;
  /** Writes a recount's counter and mark while the shard's channel is as it read them; false when any moved. */
  recount(r: Recount): Promise<boolean>;
}

/** A wait as an order asks for it; the store gives it its ticket and its place in the rotation. */
export type NewWait = Omit<Waiter, 'ticket' | 'head' | 'behind'>;
/** A wait's order's facts only, the store's own (its ticket, its place) left out: a wait recorded again. */
export function newWait(w: Waiter): NewWait {
  const { ticket: _t, head: _h, behind: _b, ...rest } = w;
  return rest;
}

export interface Wakeup {
  /** Completes a workflow's wait with its slot; false when that wait no longer exists (its execution ended). */
  wake(token: string, slot: number, orderId: string): Promise<boolean>;
}

/**
 * The token of a wait with no execution behind it: an order that needs a slot before anything else (any order but
 * a director-mode one) is queued by its creation, and its admission starts its execution, holding the slot, rather
 * than completing a running execution's wait. Step Functions then starts executions as fast as slots free, not as
 * fast as orders arrive, and a queued order costs no transitions (docs/decisions.md, "Executions started at
 * admission").
 */
export const START_AT_ADMISSION = 'start-at-admission';

export interface CapacityPorts {
  store: CapacityStore;
  wakeup: Wakeup;
  slots: number;
  /** Shards of the slots; by default one per SLOTS_PER_SHARD slots. */
  shards?: number;
  leaseSeconds: number;
  /** Bot admissions in a row before a waiting API order goes next. */
  botRun: number;
  now: () => Date;
  /** The two random choices of other shards (a steal, a release with nobody waiting); Math.random by default. */
  random?: () => number;
  /** How an admission that lost to another writer waits before it reads again; the real timer by default. */
  sleep?: Sleep;
}

/** Other shards a steal or an idle release reads: two random choices (docs/decisions.md, "Render queue at scale"). */
export const CHOICES = 2;
/** Shards a sweep run reclaims, admits in and reads the heads of, in turn: the rest on the next runs. */
export const SWEEP_SHARDS = 8;

export const DEFAULT_BOT_RUN = 3;
/** The weight of the newest order in the measured rate. */
const RATE_WEIGHT = 0.3;

export class RenderQueue {
  readonly shards: number;

  constructor(private readonly p: CapacityPorts) {
    this.shards = shardCount(p.slots, p.shards);
  }

  private leaseUntil(now: Date) {
    return new Date(now.getTime() + this.p.leaseSeconds * 1000);
  }

  private allShards() {
    return Array.from({ length: this.shards }, (_, k) => k);
  }

  /** Up to CHOICES other shards than `shard`, at random (every other one when there are no more). */
  private othersAtRandom(shard: number): number[] {
    const others = this.allShards().filter((k) => k !== shard);
    if (others.length <= CHOICES) return others;
    const random = this.p.random ?? Math.random;
    const picked = new Set<number>();
    while (picked.size < CHOICES) picked.add(others[Math.floor(random() * others.length)]!);
    return [...picked];
  }

  /** The shards of a sweep run's turn (every shard when no run is given). */
  private turnOf(run?: number): number[] {
    if (run === undefined || this.shards <= SWEEP_SHARDS) return this.allShards();
    return Array.from({ length: SWEEP_SHARDS }, (_, i) => (run * SWEEP_SHARDS + i) % this.shards);
  }

  shardOf(orderId: string): number {
    return orderShard(orderId, this.shards);
  }

  /** The slot the order holds now, as read. */
  private async held(orderId: string): Promise<Slot | undefined> {
    const n = await this.p.store.holding(orderId);
    if (n === undefined) return undefined;
    const [slot] = await this.p.store.slots([n]);
    return slot?.holder === orderId ? slot : undefined;
  }

  /**
   * The order's workflow waits for a slot: at once when it holds one (a resumed order), else after the orders ahead.
   * `placed` learns where it waits before any admission (eta_seconds reads it from the order).
   */
  async awaitSlot(
    order: Pick<Order, 'id' | 'channel' | 'userId'> & { videoSeconds?: number },
    token: string,
    placed?: (place: QueuePlace) => Promise<unknown>,
  ): Promise<void> {
    const now = this.p.now();
    const held = await this.held(order.id);
    if (held && (await this.p.store.renew(held.n, order.id, this.leaseUntil(now)))) {
      if (await this.p.wakeup.wake(token, held.n, order.id)) return;
    }
    const shard = this.shardOf(order.id);
    const place = await this.p.store.wait(this.waiterOf(order, token, shard, now));
    await placed?.({ shard, ...place });
    await this.admitFrom(shard, order.id);
  }

  /**
   * Queues a new order for the admission that starts its execution (START_AT_ADMISSION), its place on the order and
   * its unstarted marker dropped in the same write, then admits what fits. A new order holds no slot and has no
   * earlier wait, so neither is read (docs/benchmarks.md counts a creation's calls).
   */
  async enqueue(order: Pick<Order, 'id' | 'channel' | 'userId' | 'queueShard' | 'params'>): Promise<void> {
    const shard = this.shardOf(order.id);
    const waiter = this.waiterOf({ ...order, videoSeconds: order.params.duration_seconds }, START_AT_ADMISSION, shard, this.p.now());
    // Closed before its wait was recorded (canceled at once), or waiting already: nothing more to admit for it.
    if ((await this.p.store.enqueue(waiter, order)) === undefined) return;
    await this.admitFrom(shard, order.id);
  }

  private waiterOf(order: Pick<Order, 'id' | 'channel' | 'userId'> & { videoSeconds?: number }, token: string, shard: number, now: Date): NewWait {
    return {
      orderId: order.id,
      channel: order.channel ?? 'api',
      key: order.userId,
      token,
      since: now.toISOString(),
      shard,
      ...present({ videoSeconds: order.videoSeconds }),
    };
  }

  /** After an order's wait was recorded: its own shard's free slots, else (it still waits) another shard's. */
  private async admitFrom(shard: number, orderId: string): Promise<void> {
    // Its own shard's waits only: another shard's waits are admitted by their own waits and by releases, so
    // admissions in different shards never race for the same head.
    if (!(await this.fill(shard, shard)).full || this.shards === 1) return;
    // Its own shard's slots are all held, perhaps by this order now (a fill goes on until no slot is free): only an
    // order still waiting looks further, or it would race the other shards' own admissions for their heads.
    if (await this.held(orderId)) return;
    // A free slot of another shard takes this shard's head: of two shards at random, the one with more free.
    const others = this.othersAtRandom(shard);
    const states = await this.p.store.states(others);
    const free = (i: number) => slotsOf(others[i]!, this.p.slots, this.shards).length - states[i]!.busy;
    const idle = others.map((_, i) => i).filter((i) => free(i) > 0);
    idle.sort((a, b) => free(b) - free(a));
    for (const i of idle) if (!(await this.fill(others[i]!, shard)).full) return;
  }

  /**
   * Frees the order's slot, if it holds one, and admits the next order. A finished order (`done`) also updates the
   * measured generation time per video second that eta_seconds counts with (a moving average). A closed order that
   * still waits (`waiting`: its channel and key; canceled while queued) leaves the queue first, so no slot is given to it.
   */
  async release(orderId: string, done = false, waiting?: { channel: Channel; key: string }): Promise<void> {
    if (waiting) await this.p.store.unwait(this.shardOf(orderId), waiting.channel, orderId, waiting.key);
    const held = await this.held(orderId);
    if (!held) {
      await this.fill(this.shardOf(orderId));
      return;
    }
    const shard = held.n % this.shards;
    let rate: number | undefined;
    if (done && held.since && held.videoSeconds) {
      const sample = (this.p.now().getTime() - Date.parse(held.since)) / 1000 / held.videoSeconds;
      const [state] = await this.p.store.states([shard]);
      rate = state?.rate === undefined ? sample : state.rate * (1 - RATE_WEIGHT) + sample * RATE_WEIGHT;
    }
    await this.p.store.release(held, shard, rate);
    await this.fill(shard);
  }

  /** Extends the lease of the slot the order holds (a render's start); false when it holds none. */
  async renew(orderId: string): Promise<boolean> {
    const held = await this.held(orderId);
    return held !== undefined && this.p.store.renew(held.n, orderId, this.leaseUntil(this.p.now()));
  }

  /**
   * Whether the order waits for an admission that starts its execution (START_AT_ADMISSION): it has no execution by
   * design, and its admission (a release, the audit's `admit`) starts one. Its wait is the proof, not the order's
   * status or place: an admission deletes the wait in the write that gives the slot, so an order admitted whose start
   * was lost (the process died, or Step Functions refused past the undo) no longer waits, whether it still holds the
   * slot or its lease has ended since, and its execution is the audit's to start. A wait with a task token has an
   * execution behind it, which the audit checks as any.
   */
  async awaitsAdmission(order: Pick<Order, 'id' | 'channel' | 'userId'>): Promise<boolean> {
    const w = await this.p.store.waiter(this.shardOf(order.id), order.channel ?? 'api', order.id, order.userId);
    return w?.token === START_AT_ADMISSION;
  }

  /**
   * Frees the slots whose lease ended or whose holder is closed (the run that closed it died before releasing it), in
   * the shards of a sweep run's turn (`run`; every shard when none is given).
   */
  async reclaim(isClosed: (orderId: string) => Promise<boolean>, run?: number): Promise<number> {
    const now = this.p.now().getTime();
    let freed = 0;
    const ns = this.turnOf(run).flatMap((k) => slotsOf(k, this.p.slots, this.shards));
    for (const s of await this.p.store.slots(ns)) {
      if (!s.holder) continue;
      if ((s.leaseUntil ?? 0) < now || (await isClosed(s.holder))) {
        if (await this.p.store.release(s, s.n % this.shards)) freed++;
      }
    }
    return freed;
  }

  /**
   * Waiting orders per channel and the slots held, from every shard's state item (one batch read per 100 shards); and
   * how long the next order to be admitted has waited, per channel, the oldest of the heads of a sweep run's turn of
   * shards (`run`; every shard when none is given), so the operators' metrics cost a bounded number of queries a run.
   */
  async stats(run?: number): Promise<{ waiting: Record<Channel, number>; oldestSeconds: Record<Channel, number>; inUse: number }> {
    const now = this.p.now().getTime();
    const states = await this.p.store.states(this.allShards());
    const waiting = { api: 0, bot: 0 };
    const oldestSeconds = { api: 0, bot: 0 };
    for (const channel of CHANNELS) {
      waiting[channel] = states.reduce((sum, s) => sum + waitingIn(s, channel), 0);
      const shards = this.turnOf(run).filter((k) => waitingIn(states[k]!, channel) > 0);
      const heads = await Promise.all(shards.map((k) => this.p.store.head(k, channel)));
      for (const w of heads) if (w) oldestSeconds[channel] = Math.max(oldestSeconds[channel], Math.round((now - Date.parse(w.since)) / 1000));
    }
    return { waiting, oldestSeconds, inUse: states.reduce((sum, s) => sum + s.busy, 0) };
  }

  /**
   * Recounts both channels of the shards of a sweep run's turn (`run`: SWEEP_SHARDS shards, every shard when there
   * are no more), so that a ticket counted without its wait (a wait's write that failed or died after its ticket: its
   * wait counted, and never served) is found and counted served. Per shard and channel, one state read, then, once its
   * last mark is WAIT_WRITE_SECONDS old, one Query of the channel's waits and one conditional write. How many counts it
   * corrected (ghosts counted served, or waits that were not counted).
   *
   * A ticket the mark counted (handed out before it) is a wait by now, served, or a ghost: so ghosts are the mark's
   * tickets less those served and those waiting, and a wait on its way (its ticket younger than the mark) is never
   * taken for one. Served counts all waits that left, the mark's or younger, so this may find fewer ghosts than there
   * are (never more) while younger waits are served; all of them once a mark's age passes with none served. The write
   * holds only while served and the mark are as read, so no wait left, nor another recount wrote, meanwhile.
   */
  async recount(run: number): Promise<number> {
    let corrected = 0;
    for (const shard of this.turnOf(run)) for (const channel of CHANNELS) corrected += await this.recountOne(shard, channel);
    return corrected;
  }

  private async recountOne(shard: number, channel: Channel): Promise<number> {
    const [state] = await this.p.store.states([shard]);
    const at = this.p.now().getTime();
    const mark = state!.marks[channel];
    if (mark && at - mark.atMs < WAIT_WRITE_SECONDS * 1000) return 0;
    const waits = await this.p.store.tickets(shard, channel);
    const tickets = waits.map((w) => w.ticket);
    const issued = state!.issued[channel];
    const served = state!.served[channel];
    let to = served;
    // More waits than counted (served counted twice, as a retried give-back would): exact while no ticket moved.
    const under = tickets.length > issued - served;
    if (under) to = issued - tickets.length;
    else if (mark) to = served + Math.max(0, mark.issued - served - tickets.filter((t) => t <= mark.issued).length);
    // The keys waiting counted as the heads there are, once no ticket was handed out since the mark (so no wait is on
    // its way), and while no head came or went since the state was read.
    const heads = { issued: state!.headsIssued[channel], served: state!.headsServed[channel] };
    const headsServed = heads.issued - waits.filter((w) => w.head).length;
    const fixHeads = mark !== undefined && mark.issued === issued && headsServed !== heads.served;
    const from = { served, ...(under || fixHeads ? { issued } : {}), ...(mark ? { mark } : {}), ...(fixHeads ? { heads } : {}) };
    const written = await this.p.store.recount({
      shard,
      channel,
      from,
      to: { served: to, mark: { issued, atMs: at }, ...(fixHeads ? { headsServed } : {}) },
    });
    return written ? Math.max(Math.abs(to - served), fixHeads ? Math.abs(headsServed - heads.served) : 0) : 0;
  }

  /**
   * Gives every free slot (or one whose lease ended) of the shards of a sweep run's turn (`run`; every shard when none
   * is given) to the next order by the admission rule; then, from every shard's state item, free slots of up to
   * SWEEP_SHARDS shards to the orders of shards whose slots are all held (what the random choices of waits and releases
   * missed). How many it admitted.
   */
  async admit(run?: number): Promise<number> {
    let admitted = 0;
    for (const k of this.turnOf(run)) admitted += (await this.fill(k)).admitted;
    if (this.shards <= CHOICES + 1) return admitted;
    const states = await this.p.store.states(this.allShards());
    const size = (k: number) => slotsOf(k, this.p.slots, this.shards).length;
    const idle = this.allShards().filter((k) => states[k]!.busy < size(k));
    const waiting = this.allShards().filter((k) => states[k]!.busy >= size(k) && waitingIn(states[k]!, 'bot') + waitingIn(states[k]!, 'api') > 0);
    // Each fill gives a free shard's slots to a full shard's orders until one runs out: at most SWEEP_SHARDS fills a run.
    for (let fills = 0, i = 0, j = 0; fills < SWEEP_SHARDS && i < idle.length && j < waiting.length; fills++) {
      const r = await this.fill(idle[i]!, waiting[j]!);
      admitted += r.admitted;
      if (r.full) i++;
      else j++;
    }
    return admitted;
  }

  /** The heads of a shard's channels, and its state (its bot run). */
  private async heads(shard: number) {
    const [bot, api, [state]] = await Promise.all([this.p.store.head(shard, 'bot'), this.p.store.head(shard, 'api'), this.p.store.states([shard])]);
    return { bot, api, run: state?.botRun ?? 0, state: state ?? emptyShardState() };
  }

  /**
   * Of two other shards at random, those with waiting orders by their counters, the more waiting first (bot orders
   * first). A counter may count a wait that is not there (a wait's write that failed after its ticket, until a recount
   * finds it), so the caller tries them in turn.
   */
  private async othersWaiting(shard: number): Promise<number[]> {
    const others = this.othersAtRandom(shard);
    const states = await this.p.store.states(others);
    const score = (i: number) => waitingIn(states[i]!, 'bot') * 1e6 + waitingIn(states[i]!, 'api');
    return others
      .map((_, i) => i)
      .filter((i) => score(i) > 0)
      .sort((a, b) => score(b) - score(a) || others[a]! - others[b]!)
      .map((i) => others[i]!);
  }

  /** The first of these shards with an order waiting, and its heads. */
  private async firstWaiting(shards: number[]): Promise<[number, Awaited<ReturnType<RenderQueue['heads']>>] | undefined> {
    for (const k of shards) {
      const h = await this.heads(k);
      if (h.bot || h.api) return [k, h];
    }
    return undefined;
  }

  /**
   * Gives the free slots of slot shard `shard` to waiters by the admission rule: its own shard's, else those of `from`
   * (a wait that found its shard full; none when `from` is `shard`) or of the shard with the most waiting. `full`: no
   * free slot was left.
   */
  private async fill(shard: number, from?: number): Promise<{ admitted: number; full: boolean }> {
    const ns = slotsOf(shard, this.p.slots, this.shards);
    let admitted = 0;
    let conflicts = 0;
    // Each pass admits an order, hands a dead wait's slot back (that wait is gone), or lost to another writer; only
    // the last is bounded (a store that keeps moving), so a queue of waits that died with their executions is cleared.
    const losses: RetryPolicy = { attempts: 4 * ns.length + 9, baseMs: 5, capMs: 160 };
    while (conflicts < losses.attempts) {
      const now = this.p.now();
      const free = (await this.p.store.slots(ns)).find((s) => !s.holder || (s.leaseUntil ?? 0) < now.getTime());
      if (!free) return { admitted, full: true };
      let queue = shard;
      let h = await this.heads(shard);
      if (!h.bot && !h.api) {
        const others = from === undefined ? await this.othersWaiting(shard) : from === shard ? [] : [from];
        const found = await this.firstWaiting(others);
        if (!found) return { admitted, full: false };
        [queue, h] = found;
      }
      const next = h.bot && (!h.api || h.run < this.p.botRun) ? h.bot : h.api!;
      const to = next.channel === 'bot' && h.api ? h.run + 1 : 0;
      const leaseUntil = this.leaseUntil(now);
      const claimed = await this.p.store.claim({ slot: free, slotShard: shard, waiter: next, leaseUntil, now, streak: { from: h.run, to }, queue: h.state });
      if (!claimed) {
        // Another admission took the slot or the waiter first: read again, after a pause that grows with the conflicts.
        await pause(losses, conflicts++, this.p.sleep);
        continue;
      }
      const taken: Slot = { n: free.n, holder: next.orderId, channel: next.channel, leaseUntil: leaseUntil.getTime(), since: now.toISOString() };
      if (next.videoSeconds !== undefined) taken.videoSeconds = next.videoSeconds;
      let woken: boolean;
      try {
        woken = await this.p.wakeup.wake(next.token, free.n, next.orderId);
      } catch (err) {
        // Step Functions could not be reached: undo the admission (the order waits again, the slot is free), so a
        // later admission (a release, the sweep) completes this wait; the caller sees the failure.
        await this.p.store.release(taken, shard);
        await this.p.store.wait(newWait({ ...next, shard: queue }));
        throw err;
      }
      // The wait may have died with its execution: the slot goes back, and the order is the sweep's to restart.
      if (!woken) await this.p.store.release(taken, shard);
      else admitted++;
      // After the start, so that no read of the queue finds the admitted order neither waiting nor started for longer.
      if (claimed.promoted) await this.p.store.place(claimed.promoted);
    }
    // Lost to other writers again and again: the caller's step is retried rather than failed.
    throw new Contended(`render queue shard ${shard}: ${conflicts} admissions lost to other writers`);
  }
}

/** The render queue of each lane, each order's operations in its own lane's (laneOf). */
export class RenderLanes {
  constructor(readonly lanes: Readonly<Record<Lane, RenderQueue>>) {}

  of(order: Pick<Order, 'charge'>): RenderQueue {
    return this.lanes[laneOf(order)];
  }

  awaitSlot(
    order: Pick<Order, 'id' | 'channel' | 'userId' | 'charge'> & { videoSeconds?: number },
    token: string,
    placed?: (place: QueuePlace) => Promise<unknown>,
  ): Promise<void> {
    return this.of(order).awaitSlot(order, token, placed);
  }

  enqueue(order: Pick<Order, 'id' | 'channel' | 'userId' | 'queueShard' | 'params' | 'charge'>): Promise<void> {
    return this.of(order).enqueue(order);
  }

  release(order: Pick<Order, 'id' | 'charge' | 'userId'>, done = false, waiting?: Channel): Promise<void> {
    return this.of(order).release(order.id, done, waiting && { channel: waiting, key: order.userId });
  }

  renew(order: Pick<Order, 'id' | 'charge'>): Promise<boolean> {
    return this.of(order).renew(order.id);
  }

  /**
   * The slot of an order no longer on record (a made-up or deleted one, whose lane nothing says): freed in whichever
   * lane holds it, and each lane given its chance to admit, as a release of a known order does in its own.
   */
  async releaseUnrecorded(orderId: string): Promise<void> {
    for (const lane of LANES) await this.lanes[lane].release(orderId);
  }

  awaitsAdmission(order: Pick<Order, 'id' | 'channel' | 'userId' | 'charge'>): Promise<boolean> {
    return this.of(order).awaitsAdmission(order);
  }

  async reclaim(isClosed: (orderId: string) => Promise<boolean>, run?: number): Promise<number> {
    let freed = 0;
    for (const lane of LANES) freed += await this.lanes[lane].reclaim(isClosed, run);
    return freed;
  }

  async admit(run?: number): Promise<number> {
    let admitted = 0;
    for (const lane of LANES) admitted += await this.lanes[lane].admit(run);
    return admitted;
  }

  /** Each lane's recount of its `run`th shard and channel: how many counts they corrected. */
  async recount(run: number): Promise<number> {
    let corrected = 0;
    for (const lane of LANES) corrected += await this.lanes[lane].recount(run);
    return corrected;
  }

  /** The live lane's figures: the operators' metrics and alarms are about paid capacity. */
  stats(run?: number): ReturnType<RenderQueue['stats']> {
    return this.lanes.live.stats(run);
  }
}
