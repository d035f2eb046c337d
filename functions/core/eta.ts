/**
 * eta_seconds from the render queue: the orders ahead of this one by the admission rule, each taking the measured
 * generation time per video second times its length, spread over the slots as they free, plus this order's own
 * generation. An estimate: the spec says it may drift at peak time.
 */
import { keysIn, orderShard, type QueuePlace, type ShardState, waitingIn } from './capacity.ts';
import type { Channel, Order, Standing } from './orders.ts';

/** An order as `standing` reads it: where it waits, or since when it holds its slot, from its own facts. */
export function standingOf(o: Order) {
  // A director-mode order gets its slot after the review (and renders at once); any other, before it starts.
  const slotAt = o.params.director_mode ? (o.reviewed ? o.renderStartedAt : undefined) : o.startedAt;
  const holding = o.status === 'running' && slotAt !== undefined;
  return {
    ...o,
    videoSeconds: o.params.duration_seconds,
    hasScript: o.script !== undefined,
    rendered: Boolean(o.rendered),
    place: o.queuePlace,
    ...(holding ? { slotSince: Date.parse(slotAt) } : {}),
    // Running without a slot: a director-mode order writing its script waits in no queue; a reviewed one waits.
    waits: o.status === 'queued' || (o.status === 'running' && !holding && Boolean(o.params.director_mode && o.reviewed)),
  };
}

/** One shard of the queue as its state item says, with its number of slots. */
export type ShardView = ShardState & { slots: number };

/**
 * What the queue looks like now: the state items of the shards asked for (the orders' own), never their waits nor
 * the other shards'; each read at most every few seconds per process (a snapshot), never per request.
 */
export interface QueueView {
  /** By shard number, as many as the queue has; a shard not asked for is absent. */
  shards: (ShardView | undefined)[];
  /** Measured seconds of generation (admission to done) per second of video. */
  secondsPerVideoSecond: number;
  /** Bot admissions in a row before a waiting API order goes next. */
  botRun: number;
}

/** How many of a channel wait, in the shards of the view. */
export const waitingOf = (view: QueueView, channel: Channel) => view.shards.reduce((n, s) => n + (s ? waitingIn(s, channel) : 0), 0);

/** An order as the estimates take it: where it waits, when it has a ticket. */
interface Queued {
  id: string;
  channel: Channel;
  place?: QueuePlace | undefined;
  /** An order not waiting yet (a creation's, a quote's): how many of its key's orders are active, when known. */
  keyActive?: number | undefined;
}

/** The shard an order waits in (its place, else its id's hash). */
export const shardOfOrder = (order: { id: string; place?: QueuePlace | undefined }, shards: number) => order.place?.shard ?? orderShard(order.id, shards);
const shardOf = (view: QueueView, order: Queued) => view.shards[shardOfOrder(order, view.shards.length)] ?? view.shards.find((s) => s !== undefined)!;

/**
 * Orders of its shard admitted before this one: its channel's by the rotation, and the other channel's by the admission
 * rule. Its channel's: a key's head, the heads handed out before it that still wait; a parked order, at most a turn of
 * every key waiting for each of its key's orders ahead of it and its own; an order not waiting yet, every head when its
 * key has none active, else as parked; with nothing known (or a place from before the rotation), every order waiting.
 */
function ahead(view: QueueView, order: Queued): number {
  const shard = shardOf(view, order);
  const ch = order.channel;
  const own = waitingIn(shard, ch);
  const keys = keysIn(shard, ch);
  const place = order.place;
  const clamp = (n: number, max: number) => Math.max(0, Math.min(n, max));
  // A place the read already counts is among the waiting itself.
  const others = place && place.ticket <= shard.issued[ch] ? own - 1 : own;
  const rotation = (behind: number) => clamp((behind + 1) * keys - 1, others);
  let before: number;
  if (place?.head !== undefined)
    before = clamp(place.head - shard.headsServed[ch] - 1, Math.min(others, place.head <= shard.headsIssued[ch] ? keys - 1 : keys));
  else if (place?.behind !== undefined) before = rotation(place.behind);
  else if (place) before = clamp(place.ticket - shard.served[ch] - 1, others);
  else if (order.keyActive === 0) before = clamp(keys, own);
  else before = order.keyActive === undefined ? own : rotation(order.keyActive);
  const api = waitingIn(shard, 'api');
  const bot = waitingIn(shard, 'bot');
  if (order.channel === 'bot') return before + Math.min(api, Math.floor(before / view.botRun));
  return before + Math.min(bot, (before + 1) * view.botRun);
}

/** Seconds until a waiting (or just created) order is done, on the slots of its shard. */
export function queuedEta(view: QueueView, order: Queued & { videoSeconds: number }, now: number): number {
  const shard = shardOf(view, order);
  const job = order.videoSeconds * view.secondsPerVideoSecond;
  // When each slot frees: the busy ones after the rest of their job, taken as the average of the shard's holders
  // (the same length as this one when unknown).
  const busy = Math.min(shard.busy, shard.slots);
  const length = shard.busy > 0 && shard.busyVideoSeconds > 0 ? shard.busyVideoSeconds / shard.busy : order.videoSeconds;
  const since = shard.busy > 0 ? shard.busySinceMs / shard.busy : now;
  const free = Array.from({ length: busy }, () => Math.max(0, length * view.secondsPerVideoSecond - (now - since) / 1000));
  while (free.length < shard.slots) free.push(0);
  free.sort((a, b) => a - b);
  for (let i = ahead(view, order); i > 0; i--) {
    const t = free.shift()! + job;
    const at = free.findIndex((f) => f > t);
    free.splice(at === -1 ? free.length : at, 0, t);
  }
  return Math.max(1, Math.round(free[0]! + job));
}

/** An active order as `orderEta` and `standing` take it (standingOf makes it from the order). */
export interface Active extends Omit<Queued, 'channel'> {
  status: string;
  channel?: Channel | undefined;
  videoSeconds: number;
  /** When it was admitted to the slot it holds (epoch ms). */
  slotSince?: number | undefined;
  /** It waits for a slot (queued, or running after its review). */
  waits: boolean;
}

/** eta_seconds of an active order: queued (or a running order waiting for its slot after review), or generating. */
export function orderEta(view: QueueView, order: Active, now: number): number {
  if (order.slotSince !== undefined) return runningEta(view, { videoSeconds: order.videoSeconds, since: order.slotSince }, now);
  // A running director-mode order writing its script holds no slot and waits in no queue: it is ahead of its render.
  if (!order.waits) return runningEta(view, { videoSeconds: order.videoSeconds }, now);
  return queuedEta(view, { ...order, channel: order.channel ?? 'api' }, now);
}

/** Seconds until a running order is done: the rest of its generation (at least one). */
export function runningEta(view: QueueView, order: { videoSeconds: number; since?: number }, now: number): number {
  const job = order.videoSeconds * view.secondsPerVideoSecond;
  const elapsed = order.since === undefined ? 0 : (now - order.since) / 1000;
  return Math.max(1, Math.round(job - elapsed));
}

/** A new order of this process, counted until a read shows as many new tickets in its shard as there were ahead of it. */
interface Expected {
  channel: Channel;
  shard: number;
  at: number;
  /** Its shard's tickets of its channel in the view it joined, and its rank among this process's orders expected there. */
  issued: number;
  rank: number;
}

/** Reads the state items of these shards, in their order, each with its number of slots. */
export type ShardReader = (shards: readonly number[]) => Promise<ShardView[]>;

/**
 * A process's view of the queue for eta_seconds: each shard's state as read at most every `maxAgeMs`, and only the
 * shards asked for (so that an estimate costs one small read of its own shard's item, whatever the number of shards),
 * plus the orders this process created since, which a read may not count yet (their workflow has not reached its
 * wait). Each creation counts the ones before it, even in one burst. Orders created by other processes count from the
 * next read after their wait begins.
 */
export class QueueViews {
  private readonly kept = new Map<number, { state: Promise<ShardView>; at: number }>();
  /** The measured rate of each shard this process has read. */
  private readonly rates = new Map<number, number>();
  /** This process's new orders, until a read that began after their creation counts them, or for `expectMs`. */
  private readonly expected = new Map<string, Expected>();

  constructor(
    private readonly read: ShardReader,
    private readonly settings: { shards: number; botRun: number; defaultSecondsPerVideoSecond: number },
    private readonly maxAgeMs: number,
    private readonly expectMs = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The queue now as the shards of `orders` show it (shard 0 when none is given: a quote's sample); with `joining`, a
   * new order of this process that will wait for a slot, its shard read too, counted from this call on (after the view
   * it is given, so the next creation of a burst counts it ahead).
   */
  async view(orders: readonly { id: string; place?: QueuePlace | undefined }[] = [], joining?: { id: string; channel: Channel }): Promise<QueueView> {
    const now = this.clock();
    const count = this.settings.shards;
    const wanted = new Set(orders.map((o) => shardOfOrder(o, count)));
    if (joining) wanted.add(orderShard(joining.id, count));
    if (!wanted.size) wanted.add(0);
    const stale = [...wanted].filter((k) => {
      const kept = this.kept.get(k);
      return !kept || now - kept.at > this.maxAgeMs;
    });
    if (stale.length) {
      const read = this.read(stale);
      stale.forEach((k, i) => {
        const state = read.then((r) => r[i]!);
        const entry = { state, at: now };
        this.kept.set(k, entry);
        // A failed read is not kept: the next request tries again.
        state.catch(() => this.kept.get(k) === entry && this.kept.delete(k));
      });
      void read.then(
        (r) => this.settle(stale, r, now),
        () => undefined,
      );
    }
    const shards: (ShardView | undefined)[] = Array.from({ length: count }, () => undefined);
    for (const k of wanted) {
      const s = await this.kept.get(k)!.state;
      shards[k] = { ...s, issued: { ...s.issued } };
    }
    for (const e of this.expected.values()) if (shards[e.shard]) shards[e.shard]!.issued[e.channel]++;
    if (joining) {
      const shard = orderShard(joining.id, count);
      const rank = 1 + [...this.expected.values()].filter((e) => e.shard === shard && e.channel === joining.channel).length;
      const issued = shards[shard]!.issued[joining.channel] - (rank - 1);
      this.expected.set(joining.id, { channel: joining.channel, shard, at: now, issued, rank });
    }
    // The shards' measured rates, averaged: each measures only its own finished orders.
    const rates = [...this.rates.values()];
    const secondsPerVideoSecond = rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : this.settings.defaultSecondsPerVideoSecond;
    return { shards, secondsPerVideoSecond, botRun: this.settings.botRun };
  }

  /** A creation that did not commit: the order will not wait. */
  drop(orderId: string): void {
    this.expected.delete(orderId);
  }

  /** A read begun at `readAt` counts the orders whose tickets it shows, and those expected long enough (done, or late). */
  private settle(shards: readonly number[], read: readonly ShardView[], readAt: number): void {
    shards.forEach((k, i) => {
      if (read[i]?.rate !== undefined) this.rates.set(k, read[i]!.rate!);
    });
    for (const [id, e] of this.expected) {
      const i = shards.indexOf(e.shard);
      const shown = i >= 0 && (read[i]?.issued[e.channel] ?? 0) - e.issued >= e.rank;
      if ((e.at < readAt && shown) || readAt - e.at > this.expectMs) this.expected.delete(id);
    }
  }
}

/**
 * Where an active order stands now: its eta_seconds; running, its progress, from its share of the measured generation
 * time while it holds a render slot (a rendered order is publishing: 95); queued, its place in the render queue.
 */
export function standing(view: QueueView, order: Active & { hasScript: boolean; rendered: boolean }, now: number): Standing {
  const eta = orderEta(view, order, now);
  if (order.status === 'queued') return { eta, queuePosition: ahead(view, { ...order, channel: order.channel ?? 'api' }) + 1 };
  if (order.status !== 'running') return { eta };
  if (order.rendered) return { eta, progress: 95 };
  if (order.slotSince === undefined) return { eta, progress: order.hasScript ? 20 : 5 };
  const share = (now - order.slotSince) / 1000 / Math.max(1, order.videoSeconds * view.secondsPerVideoSecond);
  return { eta, progress: Math.min(94, 5 + Math.floor(90 * Math.min(1, share))) };
}

/** How long a client polling an active order should wait before the next GET (Retry-After on GET /videos/{id}). */
export function pollAfterSeconds(status: string, eta: number): number | undefined {
  const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(n)));
  if (status === 'queued') return clamp(eta / 4, 5, 60);
  if (status === 'running') return clamp(eta / 5, 2, 15);
  return undefined;
}
