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

/**
 * The account whose per-key limits a key's requests and orders count in: a test-mode key's live account, so that a
 * user's test key shares the user's limits (its POSTs, GETs, resends and new assets, its active tasks and orders
 * awaiting review) instead of bringing a second set (docs/decisions.md "Test mode").
 */
export const limitsOwner = (account: { userId: string; testOf?: string | undefined }): string => account.testOf ?? account.userId;

/** A per-key budget a write counts in: its window, its limit, and the account whose window it is (limitsOwner). */
export interface Budget {
  window: Window;
  limit: number;
  owner: string;
}

export interface Throughput {
  /** Typical seconds one order takes from running to done. */
  orderSeconds: number;
}
