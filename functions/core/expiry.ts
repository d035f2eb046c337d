/**
 * Records that expire: an idempotency record (24 hours) and a quote (15 minutes). Stored with their expiry in epoch
 * seconds, the unit DynamoDB's TTL reads; TTL deletes lazily, so a record past its expiry may still be read, and every
 * reader and every condition applies the one rule here: a record counts through the second it expires in.
 */

/** How long an Idempotency-Key (and the bot's own retry key) answers with its first order. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** How long a quote holds its price. */
export const QUOTE_TTL_MS = 15 * 60 * 1000;

/** Seconds since the epoch: how an expiry is stored. */
export const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** When a record written at `now` that lives `ttlMs` expires: to the second, the unit it is stored and read in. */
export const expiryOf = (now: Date, ttlMs: number) => new Date(epochSeconds(new Date(now.getTime() + ttlMs)) * 1000);

/** Whether a record expiring at `expiresAt` (epoch seconds) still counts at `now`. */
export const heldAt = (expiresAt: number, now: Date) => expiresAt >= epochSeconds(now);
