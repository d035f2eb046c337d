/**
 * The one key builder of the single table. Access patterns (docs/architecture.md has the table):
 *   user profile and key hash      PK USER#<user>   SK PROFILE
 *   idempotency record             PK USER#<user>   SK IDEM#<sha256 of the key>      (TTL)
 *   ledger entry                   PK USER#<user>   SK LEDGER#<ulid>
 *   POST count of one minute       PK USER#<user>   SK POSTS#<window start ms>       (TTL)
 *   order                          PK ORDER#<id>    SK ORDER     GSI1: USER#<user> / ORDER#<id>
 *   order event (for delivery)     PK ORDER#<id>    SK EVENT#<status>[#<round>]
 *   active orders, one shard       PK QUEUE         SK SHARD#<n>
 *   the user's webhook             PK USER#<user>   SK WEBHOOK
 *   webhook delivery attempt       PK USER#<user>   SK DELIVERY#<time>#<event id>#<n>  (TTL 30 days)
 *   webhook id -> owner            PK WEBHOOK#<id>  SK WEBHOOK
 */
export const TABLE_KEYS = { pk: 'PK', sk: 'SK', gsi1: 'GSI1', gsi1pk: 'GSI1PK', gsi1sk: 'GSI1SK', ttl: 'expiresAt' } as const;

const userPk = (userId: string) => `USER#${userId}`;

export const keys = {
  userPartition: userPk,
  user: (userId: string) => ({ PK: userPk(userId), SK: 'PROFILE' }),
  idempotency: (userId: string, keyHash: string) => ({ PK: userPk(userId), SK: `IDEM#${keyHash}` }),
  ledger: (userId: string, entryId: string) => ({ PK: userPk(userId), SK: `LEDGER#${entryId}` }),
  ledgerPrefix: 'LEDGER#',
  posts: (userId: string, windowStart: number) => ({ PK: userPk(userId), SK: `POSTS#${windowStart}` }),
  order: (orderId: string) => ({ PK: `ORDER#${orderId}`, SK: 'ORDER' }),
  orderEvent: (orderId: string, eventId: string) => ({ PK: `ORDER#${orderId}`, SK: `EVENT#${eventId}` }),
  orderByUser: (userId: string, orderId: string) => ({ GSI1PK: userPk(userId), GSI1SK: `ORDER#${orderId}` }),
  queueShard: (n: number) => ({ PK: 'QUEUE', SK: `SHARD#${n}` }),
  webhookOfUser: (userId: string) => ({ PK: userPk(userId), SK: 'WEBHOOK' }),
  deliveryAttempt: (userId: string, at: string, eventId: string, n: number) => ({ PK: userPk(userId), SK: `DELIVERY#${at}#${eventId}#${n}` }),
  deliveryPrefix: 'DELIVERY#',
  webhookOwner: (webhookId: string) => ({ PK: `WEBHOOK#${webhookId}`, SK: 'WEBHOOK' }),
};

/** Seconds since the epoch, the unit DynamoDB's TTL reads. */
export const ttl = (d: Date) => Math.floor(d.getTime() / 1000);
