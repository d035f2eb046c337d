/**
 * eta_seconds from the render queue: the orders ahead of this one by the admission rule, each taking the measured
 * generation time per video second times its length, spread over the slots as they free, plus this order's own
 * generation. An estimate: the spec says it may drift at peak time.
 */
import type { Channel } from './orders.ts';

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
