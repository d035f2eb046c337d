import { ulid } from 'ulid';

/** Time-sortable ids with 80 random bits: unguessable, and ordered for listings. */
export const newUserId = () => ulid();
export const newOrderId = () => `vid_${ulid().toLowerCase()}`;
export const newEntryId = () => ulid();
export const newWebhookId = () => `wh_${ulid().toLowerCase()}`;
/** Ids are checked before any lookup: a key past the store's size limit would fail there, not answer not_found. */
export const ORDER_ID_RE = /^vid_[0-9a-hjkmnp-tv-z]{26}$/;
export const WEBHOOK_ID_RE = /^wh_[0-9a-hjkmnp-tv-z]{26}$/;
