/**
 * eta_seconds from the render queue: the orders ahead of this one by the admission rule, each taking the measured
 * generation time per video second times its length, spread over the slots as they free, plus this order's own
 * generation. An estimate: the spec says it may drift at peak time.
 */
import type { Channel, Order, Standing } from './orders.ts';

/** An order as `standing` reads it. */
export const standingOf = (o: Order) => ({ ...o, videoSeconds: o.params.duration_seconds, hasScript: o.script !== undefined, rendered: Boolean(o.rendered) });

/** What the queue looks like now; read at most every few seconds per process (a snapshot), never per request. */
export interface QueueView {
  slots: number;
  /** The orders holding a slot: since when (epoch ms), and their video length when known. */
  busy: { holder: string; since: number; videoSeconds?: number }[];
  /** Waiting order ids of each channel, oldest first (the admission order within a channel). */
  waiting: Record<Channel, string[]>;
  /** Measured seconds of generation (admission to done) per second of video. */
  secondsPerVideoSecond: number;
  /** Bot admissions in a row before a waiting API order goes next. */
  botRun: number;
}

/** Orders admitted before this one: its channel's older orders, and the other channel's by the admission rule. */
function ahead(view: QueueView, order: { id: string; channel: Channel }): number {
  const own = view.waiting[order.channel];
  const at = own.indexOf(order.id);
  const before = at < 0 ? own.length : at;
  if (order.channel === 'bot') return before + Math.min(view.waiting.api.length, Math.floor(before / view.botRun));
  return before + Math.min(view.waiting.bot.length, (before + 1) * view.botRun);
}

/** Seconds until a waiting (or just created) order is done. */
export function queuedEta(view: QueueView, order: { id: string; channel: Channel; videoSeconds: number }, now: number): number {
  const job = order.videoSeconds * view.secondsPerVideoSecond;
  // When each slot frees: the busy ones after the rest of their job (the same length as this one when unknown).
  const free = view.busy.map((b) => Math.max(0, (b.videoSeconds ?? order.videoSeconds) * view.secondsPerVideoSecond - (now - b.since) / 1000));
  while (free.length < view.slots) free.push(0);
  free.sort((a, b) => a - b);
  for (let i = ahead(view, order); i > 0; i--) {
    const t = free.shift()! + job;
    const at = free.findIndex((f) => f > t);
    free.splice(at === -1 ? free.length : at, 0, t);
  }
  return Math.max(1, Math.round(free[0]! + job));
}

/** eta_seconds of an active order: queued (or a running order waiting for its slot after review), or generating. */
export function orderEta(view: QueueView, order: { id: string; status: string; channel?: Channel; videoSeconds: number }, now: number): number {
  const holding = view.busy.find((b) => b.holder === order.id);
  if (holding) return runningEta(view, { videoSeconds: order.videoSeconds, since: holding.since }, now);
  const channel = order.channel ?? 'api';
  // A running director-mode order writing its script holds no slot and waits in no queue: it is ahead of its render.
  if (order.status === 'running' && !view.waiting[channel].includes(order.id)) return runningEta(view, { videoSeconds: order.videoSeconds }, now);
  return queuedEta(view, { id: order.id, channel, videoSeconds: order.videoSeconds }, now);
}

/** Seconds until a running order is done: the rest of its generation (at least one). */
export function runningEta(view: QueueView, order: { videoSeconds: number; since?: number }, now: number): number {
  const job = order.videoSeconds * view.secondsPerVideoSecond;
  const elapsed = order.since === undefined ? 0 : (now - order.since) / 1000;
  return Math.max(1, Math.round(job - elapsed));
}

/**
 * A process's view of the queue for eta_seconds: the queue as read at most every `maxAgeMs` (so a burst of requests
 * does not make the queue's partitions hot), plus the orders this process created since, which a read may not show
 * yet (their workflow has not reached its wait). Each creation counts the ones before it, even in one burst. Orders
 * created by other processes (other Lambda environments) show from the next read after their wait begins.
 */
export class QueueViews {
  private kept: { view: Promise<QueueView>; at: number } | undefined;
  /** This process's new orders, until a read that began after their creation shows them, or for `expectMs`. */
  private readonly expected = new Map<string, { channel: Channel; at: number }>();

  constructor(
    private readonly read: () => Promise<QueueView>,
    private readonly maxAgeMs: number,
    private readonly expectMs = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The queue now; with `joining`, a new order of this process that will wait for a slot, counted from this call on
   * (in the same step as the view it is given, so the next creation of a burst sees it ahead).
   */
  async view(joining?: { id: string; channel: Channel }): Promise<QueueView> {
    const now = this.clock();
    if (!this.kept || now - this.kept.at > this.maxAgeMs) {
      const view = this.read();
      this.kept = { view, at: now };
      // A failed read is not kept: the next request tries again.
      view.catch(() => (this.kept = undefined));
      void view.then(
        (v) => this.settle(v, now),
        () => undefined,
      );
    }
    const read = await this.kept.view;
    if (joining) this.expected.set(joining.id, { channel: joining.channel, at: now });
    const waiting = { api: [...read.waiting.api], bot: [...read.waiting.bot] };
    const shown = new Set([...waiting.api, ...waiting.bot, ...read.busy.map((b) => b.holder)]);
    for (const [id, e] of this.expected) if (!shown.has(id)) waiting[e.channel].push(id);
    waiting.api.sort();
    waiting.bot.sort();
    return { ...read, waiting };
  }

  /** A creation that did not commit: the order will not wait. */
  drop(orderId: string): void {
    this.expected.delete(orderId);
  }

  /** A read begun at `readAt` counts the orders it shows, and the ones expected long enough (done, or late). */
  private settle(read: QueueView, readAt: number): void {
    const shown = new Set([...read.waiting.api, ...read.waiting.bot, ...read.busy.map((b) => b.holder)]);
    for (const [id, e] of this.expected) {
      if ((e.at < readAt && shown.has(id)) || readAt - e.at > this.expectMs) this.expected.delete(id);
    }
  }
}

/**
 * Where an active order stands now: its eta_seconds; running, its progress, from its share of the measured generation
 * time while it holds a render slot (a rendered order is publishing: 95); queued, its place in the render queue.
 */
export function standing(
  view: QueueView,
  order: { id: string; status: string; channel?: Channel; videoSeconds: number; hasScript: boolean; rendered: boolean },
  now: number,
): Standing {
  const eta = orderEta(view, order, now);
  const channel = order.channel ?? 'api';
  if (order.status === 'queued') return { eta, queuePosition: ahead(view, { id: order.id, channel }) + 1 };
  if (order.status !== 'running') return { eta };
  if (order.rendered) return { eta, progress: 95 };
  const holding = view.busy.find((b) => b.holder === order.id);
  if (!holding) return { eta, progress: order.hasScript ? 20 : 5 };
  const share = (now - holding.since) / 1000 / Math.max(1, order.videoSeconds * view.secondsPerVideoSecond);
  return { eta, progress: Math.min(94, 5 + Math.floor(90 * Math.min(1, share))) };
}

/** How long a client polling an active order should wait before the next GET (Retry-After on GET /videos/{id}). */
export function pollAfterSeconds(status: string, eta: number): number | undefined {
  const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(n)));
  if (status === 'queued') return clamp(eta / 4, 5, 60);
  if (status === 'running') return clamp(eta / 5, 2, 15);
  return undefined;
}
