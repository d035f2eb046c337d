/** Time windows and estimates used by the limits; pure arithmetic so the rules are testable without a clock. */

/** The fixed one-minute window a keyed request (a POST, a GET) at `now` falls in, and the seconds to its end (Retry-After). */
export function minuteWindow(now: Date): { start: number; retryAfterSeconds: number } {
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  return { start, retryAfterSeconds: Math.max(1, Math.ceil((start + 60_000 - now.getTime()) / 1000)) };
}

export interface Throughput {
  /** Typical seconds one order takes from running to done. */
  orderSeconds: number;
}
