import { createHash } from 'node:crypto';
import { decodeTime, ulid } from 'ulid';

/** Time-sortable ids with 80 random bits: unguessable, and ordered for listings. */
export const newUserId = () => ulid();
export const newOrderId = () => `vid_${ulid().toLowerCase()}`;
export const newEntryId = () => ulid();
export const newWebhookId = () => `wh_${ulid().toLowerCase()}`;
/**
 * Ids are checked before any lookup: a key past the store's size limit would fail there, not answer not_found. A ULID's
 * first character is at most 7 (its time has 48 bits), so every matching id has a time.
 */
export const ORDER_ID_RE = /^vid_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
/** When an order was created (ms): the time in its ULID. */
export const orderCreatedAt = (orderId: string) => decodeTime(orderId.slice('vid_'.length));
export const WEBHOOK_ID_RE = /^wh_[0-9a-hjkmnp-tv-z]{26}$/;

/** Partitions of the markers the sweep reads (open orders, unsettled events): their writes spread. */
export const SHARDS = 10;
/** The marker partition of an order, and of its events: a hash of its id. */
export const shardOf = (orderId: string) => parseInt(createHash('sha256').update(orderId).digest('hex').slice(0, 8), 16) % SHARDS;
