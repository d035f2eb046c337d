import { createHash } from 'node:crypto';
import { decodeTime, encodeTime, ulid } from 'ulid';

/** Time-sortable ids with 80 random bits: unguessable, and ordered for listings. */
export const newUserId = () => ulid();
export const newOrderId = (ms = Date.now()) => `vid_${ulid(ms).toLowerCase()}`;
/**
 * A ledger entry's id: its place in the user's ledger (the count written as a ULID writes its time, 10 characters)
 * and 80 random bits, so a ledger's ids sort in the order its entries were committed, whatever the writers' clocks.
 */
export const ledgerEntryId = (seq: number, random = ulid().slice(10)) => encodeTime(seq, 10) + random;
export const newQuoteId = () => `quo_${ulid().toLowerCase()}`;
export const newWebhookId = () => `wh_${ulid().toLowerCase()}`;
export const newAssetId = (ms = Date.now()) => `ast_${ulid(ms).toLowerCase()}`;
/** Ids are checked before any lookup: a key past the store's size limit would fail there, not answer not_found. */
export { ORDER_ID_RE } from '../contract/orders.ts';
/** When an order was created (ms): the time in its ULID. */
export const orderCreatedAt = (orderId: string) => decodeTime(orderId.slice('vid_'.length));
/** The lowest order id of a time (ms): the ids of orders created at or after it sort at or after this. */
export const orderIdFloor = (ms: number) => `vid_${encodeTime(ms, 10).toLowerCase()}`;
export const WEBHOOK_ID_RE = /^wh_[0-9a-hjkmnp-tv-z]{26}$/;

/** Partitions of the markers the sweep reads (open orders, unsettled events): their writes spread. */
export const SHARDS = 10;
/** The marker partition of an order, and of its events: a hash of its id. */
export const shardOf = (orderId: string) => parseInt(createHash('sha256').update(orderId).digest('hex').slice(0, 8), 16) % SHARDS;
