/**
 * The scale model's own arithmetic (bench/scale.ts drives the service's code with it): AWS's quotas as token buckets,
 * the AWS SDK's retries of a throttle, DynamoDB's capacity units of one request, and the load on each partition per
 * simulated second. Nothing here reads a clock: every call is given its moment, so a seeded run repeats exactly.
 */

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

/** DynamoDB's limits of one partition, a second. */
export const PARTITION_LIMITS = { writeUnits: 1000, readUnits: 3000 } as const;

/** A token bucket: `burst` tokens, refilled at `perSecond`; a call takes one or is throttled. */
export class TokenBucket {
  private tokens: number;
  private last = Number.NEGATIVE_INFINITY;
  constructor(
    readonly burst: number,
    readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  /** Takes a token at `atMs` (an earlier moment than the last counts as the last); false when throttled. */
  take(atMs: number): boolean {
    if (atMs > this.last) {
      if (this.last !== Number.NEGATIVE_INFINITY) this.tokens = Math.min(this.burst, this.tokens + ((atMs - this.last) / 1000) * this.perSecond);
      this.last = atMs;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** The AWS SDK's standard retry mode: 3 attempts; the model waits 100 ms, then 200 ms (its backoff without jitter). */
export const SDK_RETRY_DELAYS_MS = [0, 100, 200] as const;

/** The error AWS answers a throttled call with. */
export const throttled = (api: string) => Object.assign(new Error(`Rate exceeded (${api})`), { name: 'ThrottlingException' });

/**
 * One API call through its bucket with the SDK's retries: the attempt's moment on success (after the backoffs it
 * waited), or undefined when every attempt was throttled.
 */
export function callWithRetries(bucket: TokenBucket, atMs: number): number | undefined {
  let at = atMs;
  for (const delay of SDK_RETRY_DELAYS_MS) {
    at += delay;
    if (bucket.take(at)) return at;
  }
  return undefined;
}

/** Assumed item sizes, KB: a waiter holds its task token (about 1 KB). */
export const ITEM_KB = { slot: 0.2, state: 0.3, waiter: 1.3, hold: 0.1, order: 2, marker: 0.1, small: 0.1, event: 1 } as const;

/** Write units of one item written: 1 per KB started, twice in a transaction (a failed condition costs the same). */
export const writeUnits = (kb: number, transaction = false) => Math.max(1, Math.ceil(kb - 1e-9)) * (transaction ? 2 : 1);

/** Read units of one read returning `kb` in all: 1 per 4 KB started, strongly consistent; half that eventually consistent. */
export const readUnits = (kb: number, consistent = true) => Math.max(1, Math.ceil(kb / 4 - 1e-9)) * (consistent ? 1 : 0.5);

/** Per simulated second, the units each partition took, and the transactions each item was in. */
export class PartitionLoad {
  private readonly writes = new Map<string, Map<number, number>>();
  private readonly reads = new Map<string, Map<number, number>>();
  private readonly transactions = new Map<string, Map<number, number>>();

  private static add(m: Map<string, Map<number, number>>, key: string, second: number, n: number) {
    let bySecond = m.get(key);
    if (!bySecond) {
      bySecond = new Map();
      m.set(key, bySecond);
    }
    bySecond.set(second, (bySecond.get(second) ?? 0) + n);
  }

  /** `units` written to partition `pk` at `atMs`; a transaction's item (`item` inside `pk`) is counted apart too. */
  write(pk: string, units: number, atMs: number, transaction?: { item: string }): void {
    const second = Math.floor(atMs / 1000);
    PartitionLoad.add(this.writes, pk, second, units);
    if (transaction) PartitionLoad.add(this.transactions, `${pk} ${transaction.item}`, second, 1);
  }

  read(pk: string, units: number, atMs: number): void {
    PartitionLoad.add(this.reads, pk, Math.floor(atMs / 1000), units);
  }

  private static busiest(m: Map<string, Map<number, number>>, group: (key: string) => string) {
    let best = { key: '-', perSecond: 0, second: 0 };
    for (const [key, bySecond] of m) for (const [second, n] of bySecond) if (n > best.perSecond) best = { key: group(key), perSecond: n, second };
    return best;
  }

  /** The partition with the most write units in one second, and that figure ( `group` names a partition's kind). */
  busiestWrites(group: (pk: string) => string = (k) => k) {
    return PartitionLoad.busiest(this.writes, group);
  }
  busiestReads(group: (pk: string) => string = (k) => k) {
    return PartitionLoad.busiest(this.reads, group);
  }
  /** The item in the most transactions in one second: one at a time, since DynamoDB cancels a second one meeting it. */
  busiestTransactions(group: (item: string) => string = (k) => k) {
    return PartitionLoad.busiest(this.transactions, group);
  }
}

/** The q-quantile of a list (the value at rank floor(q x n) of the sorted list); NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

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
