/**
 * The scale model's own arithmetic and machinery (bench/scale.ts runs the service's code on it): a simulated clock
 * whose events are the awaits of many operations in flight, AWS's defaults, DynamoDB's capacity units and the load per
 * partition and per table a second. Nothing here reads a real clock or Math.random: a seeded run repeats exactly.
 */

/** The account's and the table's defaults the load is held against: each a quota AWS raises on request. */
export const LIMITS = {
  /** DynamoDB, one partition, a second (Developer Guide, "Partitions and data distribution"). */
  partition: { readUnits: 3000, writeUnits: 1000 },
  /**
   * DynamoDB, one table's default throughput quota, on-demand: 40,000 read request units and 40,000 write request
   * units a second (Developer Guide, "Service, account, and table quotas in Amazon DynamoDB", "Throughput default
   * quotas"; the account's default is 80,000 of each over its tables).
   */
  table: { readUnits: 40_000, writeUnits: 40_000 },
  /** Lambda concurrent executions, the account's in a region (Lambda Developer Guide, "Lambda quotas"). */
  lambdaConcurrency: 1000,
  /** API Gateway's throttle, the account's in a region: 10,000 requests a second, a burst of 5,000 (API Gateway Developer Guide, "Quotas"). */
  apiGateway: { perSecond: 10_000, burst: 5000 },
} as const;

/** eu-central-1's Step Functions quotas (the smaller regions'): bucket size and refill a second. */
export const SFN_QUOTAS = {
  StartExecution: { burst: 800, perSecond: 150 },
  DescribeExecution: { burst: 250, perSecond: 10 },
  /** Assumed equal to StartExecution's (not verified here; the model's figures show its share either way). */
  SendTaskSuccess: { burst: 800, perSecond: 150 },
  /** Standard workflows' state transitions. */
  StateTransition: { burst: 800, perSecond: 800 },
} as const;
export type SfnApi = keyof typeof SFN_QUOTAS;

/** A token bucket: `burst` tokens, refilled at `perSecond`; a call takes one, or would be throttled. */
export class TokenBucket {
  private tokens: number;
  private last = Number.NEGATIVE_INFINITY;
  constructor(
    readonly burst: number,
    readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  /** Takes `n` tokens at `atMs` (an earlier moment than the last counts as the last); false when throttled. */
  take(atMs: number, n = 1): boolean {
    if (atMs > this.last) {
      if (this.last !== Number.NEGATIVE_INFINITY) this.tokens = Math.min(this.burst, this.tokens + ((atMs - this.last) / 1000) * this.perSecond);
      this.last = atMs;
    }
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

/** Write units of one item written: 1 per KB started, twice in a transaction (a failed condition costs the same). */
export const writeUnits = (kb: number, transaction = false) => Math.max(1, Math.ceil(kb - 1e-9)) * (transaction ? 2 : 1);

/** Read units of one read returning `kb` in all: 1 per 4 KB started, strongly consistent; half that eventually consistent. */
export const readUnits = (kb: number, consistent = true) => Math.max(1, Math.ceil(kb / 4 - 1e-9)) * (consistent ? 1 : 0.5);

/** The busiest `window` seconds of per-second counts, as a mean a second (a shorter list: its mean). */
export function peakWindow(counts: ArrayLike<number>, window = 1): number {
  let [sum, best] = [0, 0];
  for (let i = 0; i < counts.length; i++) {
    sum += counts[i]! - (i >= window ? counts[i - window]! : 0);
    best = Math.max(best, sum);
  }
  return best / Math.max(1, Math.min(window, counts.length));
}

/** Per-second counts within [from, to). */
export class PerSecond {
  readonly counts: Float64Array;
  constructor(
    private readonly fromMs: number,
    toMs: number,
  ) {
    this.counts = new Float64Array(Math.ceil((toMs - fromMs) / 1000));
  }
  add(atMs: number, n = 1): void {
    const s = Math.floor((atMs - this.fromMs) / 1000);
    if (s >= 0 && s < this.counts.length) this.counts[s]! += n;
  }
  peak(window = 1): number {
    return peakWindow(this.counts, window);
  }
  sum(): number {
    return this.counts.reduce((a, b) => a + b, 0);
  }
}

/**
 * DynamoDB's load a second within a counted window: the whole table's read and write units, and each partition's. A
 * partition counted with a sample's weight (1/f for each request standing for the unsampled ones) is taken over its
 * busiest 10 seconds, since a sample's single second is its noise times 1/f.
 */
export class Meter {
  readonly table: Record<'reads' | 'writes', PerSecond>;
  requests = 0;
  private readonly partitions = new Map<string, Record<'reads' | 'writes', PerSecond> & { weighted: boolean }>();

  constructor(
    private readonly fromMs: number,
    private readonly toMs: number,
    /** Partitions whose own load is not kept (one per order or key: never the busiest, and most of the memory). */
    private readonly untracked: (pk: string) => boolean = () => false,
  ) {
    this.table = { reads: new PerSecond(fromMs, toMs), writes: new PerSecond(fromMs, toMs) };
  }

  /** `units` on partition `pk` at `atMs`, counted `weight` times on it and `tableWeight` times in the table's. */
  add(kind: 'reads' | 'writes', pk: string, units: number, atMs: number, weight = 1, tableWeight = 1): void {
    if (atMs < this.fromMs || atMs >= this.toMs) return;
    this.table[kind].add(atMs, units * tableWeight);
    if (this.untracked(pk)) return;
    let p = this.partitions.get(pk);
    if (!p) {
      p = { reads: new PerSecond(this.fromMs, this.toMs), writes: new PerSecond(this.fromMs, this.toMs), weighted: false };
      this.partitions.set(pk, p);
    }
    p[kind].add(atMs, units * weight);
    if (weight !== 1) p.weighted = true;
  }

  /** The partition with the most units a second (its busiest second, or 10 seconds when weighted). */
  busiest(kind: 'reads' | 'writes'): { pk: string; units: number } {
    let best = { pk: '-', units: 0 };
    for (const [pk, p] of this.partitions) {
      const units = p[kind].peak(p.weighted ? 10 : 1);
      if (units > best.units) best = { pk, units };
    }
    return best;
  }
}

/** A count of things in flight (concurrent executions): its peak within [from, to). */
export class InFlight {
  n = 0;
  peak = 0;
  constructor(
    private readonly fromMs: number,
    private readonly toMs: number,
  ) {}
  change(d: number, atMs: number): void {
    this.n += d;
    if (atMs >= this.fromMs && atMs < this.toMs) this.peak = Math.max(this.peak, this.n);
  }
}

/**
 * The multiple of the baseline at which a load reaches its limit, from its shares of the limit measured at some
 * multiples (load roughly in proportion to the orders): between the two measured multiples around 1 by a straight
 * line; past the last, in proportion to it (`extrapolated`).
 */
export function saturatesAt(points: readonly { scale: number; share: number }[]): { multiple: number; extrapolated: boolean } {
  const ps = [...points].sort((a, b) => a.scale - b.scale);
  const i = ps.findIndex((p) => p.share >= 1);
  if (i === 0) return { multiple: ps[0]!.scale / ps[0]!.share, extrapolated: false };
  if (i > 0) {
    const [a, b] = [ps[i - 1]!, ps[i]!];
    return { multiple: a.scale + ((1 - a.share) * (b.scale - a.scale)) / (b.share - a.share), extrapolated: false };
  }
  const last = ps.at(-1)!;
  return { multiple: last.share > 0 ? last.scale / last.share : Number.POSITIVE_INFINITY, extrapolated: true };
}

/** The q-quantile of a list (the value at rank floor(q x n) of the sorted list); NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** A log-normal draw with this median (its spread `sigma`): a call's latency. */
export const lognormal = (rng: () => number, median: number, sigma: number) =>
  median * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng()));

/** A min-heap of events by time, then by the order they were added (so equal times keep their order). */
export class EventQueue<T> {
  private heap: { at: number; seq: number; item: T }[] = [];
  private seq = 0;
  get size() {
    return this.heap.length;
  }
  push(at: number, item: T): void {
    const h = this.heap;
    h.push({ at, seq: this.seq++, item });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!EventQueue.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  pop(): { at: number; item: T } | undefined {
    const h = this.heap;
    if (!h.length) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && EventQueue.before(h[l]!, h[m]!)) m = l;
        if (r < h.length && EventQueue.before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return { at: top.at, item: top.item };
  }
  private static before(a: { at: number; seq: number }, b: { at: number; seq: number }) {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}

/**
 * A simulated clock for code written with async/await: an operation in flight waits on `sleep`, and `run` resumes the
 * waits in time order, each with the clock at its moment and every await it sets going (microtasks, drained before the
 * next: process.nextTick runs after them) run before the next, so many operations interleave at their simulated
 * moments. While it runs, setTimeout (the service's retry pauses) is this clock's and Math.random is `random`.
 */
export class Sim {
  now = 0;
  private readonly events = new EventQueue<() => void>();

  constructor(private readonly random: () => number) {}

  at(ms: number, fn: () => void): void {
    this.events.push(Math.max(ms, this.now), fn);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((r) => this.at(this.now + ms, r));
  }

  /** Runs the events up to `untilMs`; those later are dropped. */
  async run(untilMs: number): Promise<void> {
    const [timeout, random] = [globalThis.setTimeout, Math.random];
    globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms = 0, ...a: unknown[]) => {
      this.at(this.now + ms, () => fn(...a));
      return 0;
    }) as typeof setTimeout;
    Math.random = this.random;
    try {
      for (let e = this.events.pop(); e && e.at <= untilMs; e = this.events.pop()) {
        this.now = e.at;
        e.item();
        await new Promise((r) => process.nextTick(r));
      }
    } finally {
      globalThis.setTimeout = timeout;
      Math.random = random;
    }
  }
}
