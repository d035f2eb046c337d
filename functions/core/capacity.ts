/**
 * Render capacity: at most `slots` orders generate at once; the others wait, and a wait never fails an order.
 *
 * Admission rule: the bot's orders before the API's; first come first served within a channel (by order id, which
 * sorts by creation time, so an order back from review goes ahead of the newer orders of its channel); and after
 * `botRun` bot admissions in a row while an API order waited, the oldest API order goes next, so the API never
 * starves. A slot is a lease: a holder that died without releasing it loses it when the lease ends (and the recovery
 * sweep frees it sooner when the holder's order is closed).
 *
 * An order's workflow waits for its slot with a task token: `awaitSlot` records the wait and admits what fits;
 * whoever frees a slot (an order done or failed, the sweep) admits the next, which completes that order's wait.
 */
import type { Channel, Order } from './orders.ts';

export interface Slot {
  n: number;
  holder?: string;
  channel?: Channel;
  /** Epoch milliseconds the lease ends. */
  leaseUntil?: number;
  /** When the holder was admitted (ISO 8601), and its video's length: for eta_seconds and the measured rate. */
  since?: string;
  videoSeconds?: number;
}

export interface Waiter {
  orderId: string;
  channel: Channel;
  /** The task token of the workflow's wait. */
  token: string;
  since: string;
  videoSeconds?: number;
}

export interface CapacityStore {
  /** Slots 0 to count-1; a slot never taken is free. */
  slots(count: number): Promise<Slot[]>;
  /** The oldest waiting order of a channel. */
  head(channel: Channel): Promise<Waiter | undefined>;
  /** How many orders of a channel wait. */
  waitingCount(channel: Channel): Promise<number>;
  /** Records an order's wait, replacing the token of an earlier wait of the same order. */
  wait(w: Waiter): Promise<void>;
  /** Forgets an order's wait (a canceled order no longer waits for a slot). */
  unwait(channel: Channel, orderId: string): Promise<void>;
  /**
   * Gives slot n to the waiter, all or nothing: only while the slot is free or its lease ended, the waiter still waits
   * with this token, and the bot-run count is still `streak.from` (it becomes `streak.to`). False when any moved.
   */
  claim(n: number, w: Waiter, leaseUntil: Date, now: Date, streak: { from: number; to: number }): Promise<boolean>;
  /** Extends the lease of the slot the order holds; false when it holds none. */
  renew(n: number, orderId: string, leaseUntil: Date): Promise<boolean>;
  /** Frees the slot the order holds; false when it holds none. */
  release(n: number, orderId: string): Promise<boolean>;
  /** Bot admissions in a row while an API order waited. */
  botRun(): Promise<number>;
  /** The measured seconds of generation per video second, when any order has been measured. */
  rate(): Promise<number | undefined>;
  saveRate(secondsPerVideoSecond: number): Promise<void>;
}

export interface Wakeup {
  /** Completes a workflow's wait with its slot; false when that wait no longer exists (its execution ended). */
  wake(token: string, slot: number): Promise<boolean>;
}

export interface CapacityPorts {
  store: CapacityStore;
  wakeup: Wakeup;
  slots: number;
  leaseSeconds: number;
  /** Bot admissions in a row before a waiting API order goes next. */
  botRun: number;
  now: () => Date;
}

export const DEFAULT_BOT_RUN = 3;
/** The weight of the newest order in the measured rate. */
const RATE_WEIGHT = 0.3;

export class RenderQueue {
  constructor(private readonly p: CapacityPorts) {}

  private leaseUntil(now: Date) {
    return new Date(now.getTime() + this.p.leaseSeconds * 1000);
  }

  /** The order's workflow waits for a slot: at once when it holds one (a resumed order), else after the orders ahead. */
  async awaitSlot(order: Pick<Order, 'id' | 'channel'> & { videoSeconds?: number }, token: string): Promise<void> {
    const now = this.p.now();
    const held = (await this.p.store.slots(this.p.slots)).find((s) => s.holder === order.id);
    if (held && (await this.p.store.renew(held.n, order.id, this.leaseUntil(now)))) {
      if (await this.p.wakeup.wake(token, held.n)) return;
    }
    await this.p.store.wait({
      orderId: order.id,
      channel: order.channel ?? 'api',
      token,
      since: now.toISOString(),
      ...(order.videoSeconds !== undefined ? { videoSeconds: order.videoSeconds } : {}),
    });
    await this.admit();
  }

  /**
   * Frees the order's slot, if it holds one, and admits the next order. A finished order (`done`) also updates the
   * measured generation time per video second that eta_seconds counts with (a moving average). A closed order that
   * still waits (`waiting`: its channel; canceled while queued) leaves the queue first, so no slot is given to it.
   */
  async release(orderId: string, done = false, waiting?: Channel): Promise<void> {
    if (waiting) await this.p.store.unwait(waiting, orderId);
    const held = (await this.p.store.slots(this.p.slots)).find((s) => s.holder === orderId);
    if (held && done && held.since && held.videoSeconds) {
      const sample = (this.p.now().getTime() - Date.parse(held.since)) / 1000 / held.videoSeconds;
      const before = await this.p.store.rate();
      await this.p.store.saveRate(before === undefined ? sample : before * (1 - RATE_WEIGHT) + sample * RATE_WEIGHT);
    }
    if (held) await this.p.store.release(held.n, orderId);
    await this.admit();
  }

  /** Frees the slots whose lease ended or whose holder is closed (the run that closed it died before releasing). */
  async reclaim(isClosed: (orderId: string) => Promise<boolean>): Promise<number> {
    const now = this.p.now().getTime();
    let freed = 0;
    for (const s of await this.p.store.slots(this.p.slots)) {
      if (!s.holder) continue;
      if ((s.leaseUntil ?? 0) < now || (await isClosed(s.holder))) {
        if (await this.p.store.release(s.n, s.holder)) freed++;
      }
    }
    return freed;
  }

  /** Waiting orders and the oldest one's age per channel, and the slots in use (for the operators' metrics). */
  async stats(): Promise<{ waiting: Record<Channel, number>; oldestSeconds: Record<Channel, number>; inUse: number }> {
    const now = this.p.now().getTime();
    const [slots, apiHead, botHead, api, bot] = await Promise.all([
      this.p.store.slots(this.p.slots),
      this.p.store.head('api'),
      this.p.store.head('bot'),
      this.p.store.waitingCount('api'),
      this.p.store.waitingCount('bot'),
    ]);
    const age = (w: Waiter | undefined) => (w ? Math.max(0, Math.round((now - Date.parse(w.since)) / 1000)) : 0);
    return {
      waiting: { api, bot },
      oldestSeconds: { api: age(apiHead), bot: age(botHead) },
      inUse: slots.filter((s) => s.holder && (s.leaseUntil ?? 0) >= now).length,
    };
  }

  /** Gives every free slot (or one whose lease ended) to the next order by the admission rule; how many it admitted. */
  async admit(): Promise<number> {
    let admitted = 0;
    // Each pass admits one order or finds that something moved; the bound only stops a store that keeps moving.
    for (let pass = 0; pass < 4 * this.p.slots + 8; pass++) {
      const now = this.p.now();
      const free = (await this.p.store.slots(this.p.slots)).find((s) => !s.holder || (s.leaseUntil ?? 0) < now.getTime());
      if (!free) return admitted;
      const [bot, api, run] = await Promise.all([this.p.store.head('bot'), this.p.store.head('api'), this.p.store.botRun()]);
      const next = bot && (!api || run < this.p.botRun) ? bot : api;
      if (!next) return admitted;
      const to = next.channel === 'bot' && api ? run + 1 : 0;
      if (!(await this.p.store.claim(free.n, next, this.leaseUntil(now), now, { from: run, to }))) continue;
      let woken: boolean;
      try {
        woken = await this.p.wakeup.wake(next.token, free.n);
      } catch (err) {
        // Step Functions could not be reached: undo the admission (the order waits again, the slot is free), so a
        // later admission (a release, the sweep) completes this wait; the caller sees the failure.
        await this.p.store.release(free.n, next.orderId);
        await this.p.store.wait(next);
        throw err;
      }
      // The wait may have died with its execution: the slot goes back, and the order is the sweep's to restart.
      if (!woken) await this.p.store.release(free.n, next.orderId);
      else admitted++;
    }
    return admitted;
  }
}
