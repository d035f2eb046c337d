/**
 * The one key builder of the single table. Access patterns (docs/architecture.md has the table):
 *   user profile and key hash      PK USER#<user>   SK PROFILE
 *   idempotency record             PK USER#<user>   SK IDEM#<sha256 of the key>      (TTL)
 *   ledger entry                   PK USER#<user>   SK LEDGER#<seq><random>  (its place in the user's ledger first)
 *   the user's order (a reference) PK USER#<user>   SK ORDER#<order id>   (GET /videos: newest first, consistent)
 *   a quote (binding price)        PK USER#<user>   SK QUOTE#<quote id>   (TTL: its expiry)
 *   POST count of one minute       PK USER#<user>   SK POSTS#<window start ms>       (TTL)
 *   resent events of one hour      PK USER#<user>   SK RESENDS#<window start ms>     (TTL)
 *   new assets of one UTC day      PK USER#<user>   SK ASSETS#<window start ms>      (TTL)
 *   GET count of one minute        PK USER#<user>   SK GETS#<window start ms>        (TTL)
 *   order                          PK ORDER#<id>    SK ORDER     GSI1: USER#<user> / ORDER#<id>
 *   order event (for delivery)     PK ORDER#<id>    SK EVENT#<event id>  (event id: <order id>:<status>[:<round>])
 *   account event (balance.low)    PK USER#<user>   SK EVENT#<event id>  (event id: <user id>:balance.low:<n>)
 *   open order (not done/error)    PK OPEN#<shard>       SK <order id>  (until its transition to done or error)
 *   order whose start is unseen    PK START#<shard>      SK <order id>  (until its StartExecution succeeded)
 *   an order's deadline            PK DEADLINE#<shard>   SK <deadline_at>#<order id>  (until its transition to done or error)
 *   event not settled              PK PENDING#<shard>    SK <event id>  (until delivered, dropped or no webhook)
 *   render slot (a lease)          PK SLOT#<n>      SK SLOT   (a partition per slot)
 *   the slot an order was admitted PK ORDER#<id>    SK SLOT   (which slot to renew or free)
 *   render queue shard's state     PK QUEUE#<shard> SK STATE  (bot run, counters for eta_seconds, measured rate)
 *   a key's head wait for a slot   PK WAITING#<shard>#<channel>  SK A#<head number, 15 digits>#<order id>  (the rotation)
 *   a key's other waits            PK WAITING#<shard>#<channel>  SK P#<user>#<order id>  (behind its head, oldest first)
 *   a key's waits in a shard       PK QUEUEKEY#<shard>#<channel>#<user>  SK STATE  (how many, and its head)
 *   the test lane's render queue   the same four, PK TESTSLOT#<n>, TESTQUEUE#<shard>, TESTWAITING#..., TESTQUEUEKEY#...
 *   the user's webhook             PK USER#<user>   SK WEBHOOK
 *   webhook delivery attempt       PK USER#<user>   SK DELIVERY#<time>#<event id>#<n>  (TTL 30 days)
 *   webhook id -> owner            PK WEBHOOK#<id>  SK WEBHOOK
 *   the user's asset (a picture)   PK USER#<user>   SK ASSET#<asset id>  (TTL 30 days; GET /assets: newest first)
 *   asset id -> owner              PK ASSET#<id>    SK OWNER    (TTL 30 days; tells 403 from 404)
 */
import type { Lane } from '../core/capacity.ts';
import { epochSeconds, heldAt } from '../core/expiry.ts';

export const TABLE_KEYS = { pk: 'PK', sk: 'SK', gsi1: 'GSI1', gsi1pk: 'GSI1PK', gsi1sk: 'GSI1SK', ttl: 'expiresAt' } as const;

const userPk = (userId: string) => `USER#${userId}`;
const orderPk = (orderId: string) => `ORDER#${orderId}`;
const ORDER_SK = 'ORDER';
const EVENT_PREFIX = 'EVENT#';
/** Order ids begin so (core/ids.ts); user ids are bare ULIDs. */
const ORDER_ID_PREFIX = 'vid_';
const PARKED_PREFIX = 'P#';
const SLOT_PREFIX = 'SLOT#';
/** A render queue item's partition in its lane (core/capacity.ts Lane): the live lane's as it always was. */
const inLane = (lane: Lane, pk: string) => (lane === 'live' ? pk : `TEST${pk}`);
const ASSET_PREFIX = 'ASSET#';

export const keys = {
  userPartition: userPk,
  user: (userId: string) => ({ PK: userPk(userId), SK: 'PROFILE' }),
  idempotency: (userId: string, keyHash: string) => ({ PK: userPk(userId), SK: `IDEM#${keyHash}` }),
  ledger: (userId: string, entryId: string) => ({ PK: userPk(userId), SK: `LEDGER#${entryId}` }),
  ledgerPrefix: 'LEDGER#',
  quote: (userId: string, quoteId: string) => ({ PK: userPk(userId), SK: `QUOTE#${quoteId}` }),
  posts: (userId: string, windowStart: number) => ({ PK: userPk(userId), SK: `POSTS#${windowStart}` }),
  resends: (userId: string, windowStart: number) => ({ PK: userPk(userId), SK: `RESENDS#${windowStart}` }),
  assetBudget: (userId: string, windowStart: number) => ({ PK: userPk(userId), SK: `ASSETS#${windowStart}` }),
  gets: (userId: string, windowStart: number) => ({ PK: userPk(userId), SK: `GETS#${windowStart}` }),
  order: (orderId: string) => ({ PK: orderPk(orderId), SK: ORDER_SK }),
  /** The reference to an order in its user's partition, written with the order. */
  userOrder: (userId: string, orderId: string) => ({ PK: userPk(userId), SK: orderPk(orderId) }),
  userOrderSk: (orderId: string) => orderPk(orderId),
  orderIdOfUserOrder: (sk: string) => sk.slice(orderPk('').length),
  /** The sort key every order item has (a scan for orders filters on it). */
  orderSk: ORDER_SK,
  /** An event in its subject's partition (ports.ts OrderEvent `orderId`): its order's, or its user's for an account event. */
  event: (subjectId: string, eventId: string) => ({
    PK: subjectId.startsWith(ORDER_ID_PREFIX) ? orderPk(subjectId) : userPk(subjectId),
    SK: `${EVENT_PREFIX}${eventId}`,
  }),
  orderEventPrefix: EVENT_PREFIX,
  orderByUser: (userId: string, orderId: string) => ({ GSI1PK: userPk(userId), GSI1SK: orderPk(orderId) }),
  /** The order id in an index entry of GSI1 (the index holds its keys only). */
  orderIdOfIndexKey: (gsi1sk: string) => gsi1sk.slice(orderPk('').length),
  openPartition: (shard: number) => `OPEN#${shard}`,
  openOrder: (shard: number, orderId: string) => ({ PK: `OPEN#${shard}`, SK: orderId }),
  /** An order whose workflow start the creation has not seen succeed: dropped after its StartExecution. */
  unstartedPartition: (shard: number) => `START#${shard}`,
  unstartedOrder: (shard: number, orderId: string) => ({ PK: `START#${shard}`, SK: orderId }),
  /** An order's deadline, by the moment it falls: the audit reads those due. */
  deadlinePartition: (shard: number) => `DEADLINE#${shard}`,
  deadline: (shard: number, deadlineAt: string, orderId: string) => ({ PK: `DEADLINE#${shard}`, SK: `${deadlineAt}#${orderId}` }),
  pendingPartition: (shard: number) => `PENDING#${shard}`,
  pendingEvent: (shard: number, eventId: string) => ({ PK: `PENDING#${shard}`, SK: eventId }),
  /** Where the audit sweep's walks stand (core/sweep.ts AuditCursor). */
  auditCursor: { PK: 'AUDIT', SK: 'CURSOR' },
  slot: (n: number, lane: Lane = 'live') => ({ PK: inLane(lane, `${SLOT_PREFIX}${n}`), SK: 'SLOT' }),
  /** One per order, whichever lane: an order renders in one lane only. */
  slotHold: (orderId: string) => ({ PK: orderPk(orderId), SK: 'SLOT' }),
  queueState: (shard: number, lane: Lane = 'live') => ({ PK: inLane(lane, `QUEUE#${shard}`), SK: 'STATE' }),
  waitingPartition: (shard: number, channel: string, lane: Lane = 'live') => inLane(lane, `WAITING#${shard}#${channel}`),
  /** A key's head wait (its number zero-padded, so that the partition sorts by it) and a parked one (after every head). */
  waitingHead: (shard: number, channel: string, head: number, orderId: string, lane: Lane = 'live') => ({
    PK: inLane(lane, `WAITING#${shard}#${channel}`),
    SK: `A#${String(head).padStart(15, '0')}#${orderId}`,
  }),
  waitingParked: (shard: number, channel: string, key: string, orderId: string, lane: Lane = 'live') => ({
    PK: inLane(lane, `WAITING#${shard}#${channel}`),
    SK: `${PARKED_PREFIX}${key}#${orderId}`,
  }),
  parkedPrefix: (key: string) => `${PARKED_PREFIX}${key}#`,
  queueKey: (shard: number, channel: string, key: string, lane: Lane = 'live') => ({ PK: inLane(lane, `QUEUEKEY#${shard}#${channel}#${key}`), SK: 'STATE' }),
  webhookOfUser: (userId: string) => ({ PK: userPk(userId), SK: 'WEBHOOK' }),
  deliveryAttempt: (userId: string, at: string, eventId: string, n: number) => ({ PK: userPk(userId), SK: `DELIVERY#${at}#${eventId}#${n}` }),
  deliveryPrefix: 'DELIVERY#',
  webhookOwner: (webhookId: string) => ({ PK: `WEBHOOK#${webhookId}`, SK: 'WEBHOOK' }),
  asset: (userId: string, assetId: string) => ({ PK: userPk(userId), SK: `${ASSET_PREFIX}${assetId}` }),
  assetSk: (assetId: string) => `${ASSET_PREFIX}${assetId}`,
  assetPrefix: ASSET_PREFIX,
  assetOwner: (assetId: string) => ({ PK: `${ASSET_PREFIX}${assetId}`, SK: 'OWNER' }),
};

/** Seconds since the epoch, the unit DynamoDB's TTL reads. */
export const ttl = epochSeconds;

/** Conditions on whether an item exists, by its partition key. */
export const ITEM = {
  isNew: `attribute_not_exists(${TABLE_KEYS.pk})`,
  exists: `attribute_exists(${TABLE_KEYS.pk})`,
} as const;

/** The key condition of a query for one partition's items, those whose sort key starts with `prefix` when given. */
export const inPartition = (pk: string, prefix?: string) => ({
  KeyConditionExpression: prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
  ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, ...(prefix === undefined ? {} : { '#sk': TABLE_KEYS.sk }) },
  ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':prefix': prefix }) },
});

/** The TTL attribute of an item that expires at `d`. */
export const expiresAt = (d: Date) => ({ [TABLE_KEYS.ttl]: ttl(d) });

/**
 * core/expiry.ts `heldAt` as conditions on an item's TTL attribute: `held` while it counts, `expired` once it does not
 * (TTL deletes lazily: an expired item may still be there).
 */
export const expiryConditions = (now: Date) => ({
  held: '#ttl >= :now',
  expired: '#ttl < :now',
  names: { '#ttl': TABLE_KEYS.ttl },
  values: { ':now': epochSeconds(now) },
});

/** Whether a stored item with a TTL still counts at `now` (core/expiry.ts `heldAt`). */
export const isHeld = (item: Record<string, unknown>, now: Date) => heldAt(Number(item[TABLE_KEYS.ttl]), now);
