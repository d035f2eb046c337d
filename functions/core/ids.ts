import { ulid } from 'ulid';

/** Time-sortable ids with 80 random bits: unguessable, and ordered for listings. */
export const newUserId = () => ulid();
export const newOrderId = () => `vid_${ulid().toLowerCase()}`;
export const newEntryId = () => ulid();
export const ORDER_ID_RE = /^vid_[0-9a-hjkmnp-tv-z]{26}$/;
