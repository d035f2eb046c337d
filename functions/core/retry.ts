/**
 * The one way the service tries something again: a bounded number of attempts, a pause with full jitter between them
 * (drawn below a ceiling that doubles per attempt, so writers that lost together do not meet again), and a predicate
 * saying which results are worth another attempt. Errors the attempt throws are never retried here: they are the
 * caller's answer (a transient one is retried by the workflow or the client, adapters/transient.ts).
 */

/** `attempts` in all; before attempt n+1, a pause drawn below min(capMs, baseMs * 2^n) (none when baseMs is 0). */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs?: number;
}

/** The pause before the attempt after the `n`th (0-based) under `policy`. */
export const pauseMs = (policy: RetryPolicy, n: number, random: () => number = Math.random) =>
  random() * Math.min(policy.capMs ?? Number.POSITIVE_INFINITY, policy.baseMs * 2 ** n);

/**
 * How a retry waits `ms`: the real timer unless a caller injects another (a test passes one that only records the
 * pause, or advances a simulated clock), so no test sleeps on real jittered backoff.
 */
export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

export const pause = (policy: RetryPolicy, n: number, sleep: Sleep = realSleep) => sleep(pauseMs(policy, n));

export interface Retry<R> {
  policy: RetryPolicy;
  /** One attempt; `attempt` counts from 0 across every budget. */
  op: (attempt: number) => Promise<R>;
  /**
   * Whether `r` is worth another attempt: false returns it; true tries again under `policy`; another policy tries
   * again under that one, counted apart (a kind of loss with its own budget, e.g. a ledger head that moved on).
   */
  retryable: (r: R) => boolean | RetryPolicy;
  /** The error thrown when a budget is spent, given the last result. */
  exhausted: (last: R, policy: RetryPolicy) => Error;
  /** How to wait between attempts (realSleep when not given). */
  sleep?: Sleep;
}

/** Calls `op` until its result is not retryable, within each budget; past one, throws `exhausted`. */
export async function retry<R>({ policy, op, retryable, exhausted, sleep = realSleep }: Retry<R>): Promise<R> {
  const spent = new Map<RetryPolicy, number>();
  for (let attempt = 0; ; attempt++) {
    const r = await op(attempt);
    const again = retryable(r);
    if (again === false) return r;
    const budget = again === true ? policy : again;
    const n = spent.get(budget) ?? 0;
    if (n + 1 >= budget.attempts) throw exhausted(r, budget);
    spent.set(budget, n + 1);
    await pause(budget, n, sleep);
  }
}

/** What an attempt returns when it lost (what it wrote moved meanwhile) and should be tried again. */
export class Again {
  /** `under`: the budget this kind of loss draws on, when not the retry's own policy. */
  constructor(readonly under?: RetryPolicy) {}
}
export const AGAIN = new Again();

/** `retry` for an attempt that returns its answer or an Again. */
export async function untilDone<T>(
  policy: RetryPolicy,
  op: (attempt: number) => Promise<T | Again>,
  exhausted: (policy: RetryPolicy) => Error,
  sleep: Sleep = realSleep,
): Promise<T> {
  return (await retry<T | Again>({
    policy,
    op,
    retryable: (r) => (r instanceof Again ? (r.under ?? true) : false),
    exhausted: (_r, p) => exhausted(p),
    sleep,
  })) as T;
}
