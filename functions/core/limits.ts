/** Time windows and estimates used by the limits; pure arithmetic so the rules are testable without a clock. */

/** A fixed window: its start and end (ms since the epoch), and the seconds to its end (Retry-After). */
export interface Window {
  start: number;
  end: number;
  retryAfterSeconds: number;
}

function fixedWindow(now: Date, ms: number): Window {
  const start = Math.floor(now.getTime() / ms) * ms;
  return { start, end: start + ms, retryAfterSeconds: Math.max(1, Math.ceil((start + ms - now.getTime()) / 1000)) };
}

/** The fixed one-minute window a keyed request (a POST, a GET) at `now` falls in. */
export const minuteWindow = (now: Date): Window => fixedWindow(now, 60_000);

/** The fixed hour whose budget of resent webhook events a resend at `now` draws on. */
export const resendWindow = (now: Date): Window => fixedWindow(now, 3_600_000);

/** The UTC day whose budget of new assets a POST /assets at `now` draws on. */
export const assetWindow = (now: Date): Window => fixedWindow(now, 86_400_000);

export interface Throughput {
  /** Typical seconds one order takes from running to done. */
  orderSeconds: number;
}
