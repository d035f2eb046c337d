/**
 * The API's floors: the AWS calls a request makes, sent bare with the SDK, from items the bench builds itself with the
 * key builder. What the API adds over them is its own layers: HTTP, the gateway, middy, validation, pricing and the
 * use case. The creation transaction's items mirror the creation of an order with an Idempotency-Key (the order
 * copied from one the API created, the debit with its conditions, the POST count, the ledger entry, the queue shard,
 * the idempotency record), so the floor writes what the API writes.
 */
import { createHash } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { ITEM, keys } from '../functions/adapters/keys.ts';
import { orderShard, placeOf, slotsOf, START_AT_ADMISSION } from '../functions/core/capacity.ts';
import { ledgerEntryId, shardOf } from '../functions/core/ids.ts';
import type { LedgerHead as Head } from '../functions/core/transactions.ts';
// The same request parameters the service sends (its expression builders), sent bare.
import { headOf } from '../functions/adapters/accounts.ts';
import { headOfKey, keyStateOf, placeItems, takenWait, ticketUpdate, waitItems } from '../functions/adapters/capacity.ts';
import { batchGet, windowCountUpdate } from '../functions/adapters/dynamo.ts';
import { idempotencyPut } from '../functions/adapters/order-creation.ts';
import { expiryOf, IDEMPOTENCY_TTL_MS } from '../functions/core/expiry.ts';

export interface FloorContext {
  ddb: DynamoDBDocumentClient;
  tableName: string;
  limits: { activeTasks: number; postsPerMinute: number; getsPerMinute: number };
  /** The render queue's slots and shards, as the service's configuration has them. */
  queue: { slots: number; shards: number };
  /** An order item as the API wrote it: the floor's orders are copies of it. */
  orderItem: Record<string, unknown>;
}

/** One client of the floor: its user and an order of that user to read. */
export interface FloorUser {
  userId: string;
  orderId: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const windowOf = (ms: number) => Math.floor(ms / 60_000) * 60_000;

/**
 * GET /videos/{id}'s calls: the key read (the user item, strongly consistent), the count of the key's GETs in their
 * minute window, and the order's GetItem.
 */
export function getFloor(ctx: FloorContext) {
  const T = ctx.tableName;
  return async (u: FloorUser): Promise<boolean> => {
    const auth = await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.user(u.userId), ConsistentRead: true }));
    if (!auth.Item) return false;
    const windowStart = windowOf(Date.now());
    await ctx.ddb.send(
      new UpdateCommand({
        ...windowCountUpdate(T, keys.gets(u.userId, windowStart), windowStart + 60_000, ctx.limits.getsPerMinute),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const order = await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.order(u.orderId), ConsistentRead: true }));
    return Boolean(order.Item);
  };
}

/**
 * POST /videos:quick's calls with every render slot held (the bench holds executions): the key read, the creation
 * transaction, the order's wait in the render queue (its ticket from its shard's counter, then the wait, the order's
 * place and the end of its unstarted marker in one transaction), the read of its shard's slots (none free), and the
 * read of the POST window that the RateLimit headers show (the transaction counted the POST but returns nothing). The
 * queue's snapshot for eta_seconds is read at most every 2 s a process: not a call of every request.
 */
export function creationFloor(ctx: FloorContext) {
  const T = ctx.tableName;
  const cost = Number((ctx.orderItem.charge as { cost?: number } | undefined)?.cost ?? 0);

  /** The eight items of one creation, for a new order id, its ledger entry after the user's ledger `head`. */
  const itemsOf = (u: FloorUser, id: string, now: Date, head: Head) => {
    const ts = now.toISOString();
    const shard = shardOf(id);
    const windowStart = windowOf(now.getTime());
    const order = {
      ...ctx.orderItem,
      ...keys.order(id),
      ...keys.orderByUser(u.userId, id),
      id,
      userId: u.userId,
      queueShard: shard,
      createdAt: ts,
      updatedAt: ts,
    };
    const response = { id, status: 'queued' as const, cost, eta_seconds: Number(ctx.orderItem.etaSeconds) };
    return [
      { Put: { TableName: T, Item: order, ConditionExpression: ITEM.isNew } },
      { Put: { TableName: T, Item: { ...keys.userOrder(u.userId, id), createdAt: ts } } },
      {
        Update: {
          TableName: T,
          Key: keys.user(u.userId),
          UpdateExpression: 'ADD activeTasks :one, balance :debit, ledgerSeq :one',
          ConditionExpression: `${ITEM.exists} AND activeTasks < :maxActive AND ledgerSeq = :seq AND balance >= :cost AND trialVideosLeft <= :zero`,
          ExpressionAttributeValues: { ':one': 1, ':maxActive': ctx.limits.activeTasks, ':seq': head.seq, ':zero': 0, ':debit': -cost, ':cost': cost },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
        },
      },
      { Update: windowCountUpdate(T, keys.posts(u.userId, windowStart), windowStart + 60_000, ctx.limits.postsPerMinute) },
      {
        Put: {
          TableName: T,
          Item: {
            ...keys.ledger(u.userId, ledgerEntryId(head.seq + 1)),
            amount: -cost,
            kind: 'charge',
            orderId: id,
            balanceAfter: head.balance - cost,
            createdAt: ts,
          },
          ConditionExpression: ITEM.isNew,
        },
      },
      { Put: { TableName: T, Item: { ...keys.openOrder(shard, id), orderId: id, createdAt: ts } } },
      { Put: { TableName: T, Item: { ...keys.unstartedOrder(shard, id), orderId: id, createdAt: ts } } },
      idempotencyPut(
        T,
        u.userId,
        {
          keyHash: sha256(`${id}-key`),
          record: { route: 'POST /videos:quick', requestHash: sha256(id), orderId: id, response },
          expiresAt: expiryOf(now, IDEMPOTENCY_TTL_MS),
        },
        now,
      ),
    ];
  };

  const newId = () => `vid_${ulid().toLowerCase()}`;
  /** Every order the floor made, and those whose wait was not recorded (left to the audit, as the service leaves them). */
  const made = new Set<string>();
  const leftToAudit = new Set<string>();
  // Each floor client is one user's only writer while the floor runs: the head it wrote last is the ledger's. The API's
  // slices in between move it on, so a refused condition reads it again, as the API's creation re-prices.
  const heads = new Map<string, Head>();
  const readHead = async (u: FloorUser): Promise<Head> => {
    return headOf((await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.user(u.userId), ConsistentRead: true }))).Item!);
  };
  const transaction = async (u: FloorUser, id = newId(), read?: Head): Promise<boolean> => {
    made.add(id);
    let head = read ?? heads.get(u.userId) ?? (await readHead(u));
    for (;;) {
      try {
        await ctx.ddb.send(new TransactWriteCommand({ TransactItems: itemsOf(u, id, new Date(), head) }));
        heads.set(u.userId, { seq: head.seq + 1, balance: head.balance - cost });
        return true;
      } catch (err) {
        if ((err as Error).name !== 'TransactionCanceledException') throw err;
        head = await readHead(u);
      }
    }
  };

  return {
    /** The creation transaction alone. */
    transaction,
    made,
    leftToAudit,
    /** The seven calls of one creation while every slot is held. */
    all: async (u: FloorUser): Promise<boolean> => {
      const auth = await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.user(u.userId), ConsistentRead: true }));
      if (!auth.Item) return false;
      const id = newId();
      await transaction(u, id, headOf(auth.Item));
      const shard = orderShard(id, ctx.queue.shards);
      const now = Date.now();
      const w = { orderId: id, channel: 'api' as const, key: u.userId, token: START_AT_ADMISSION, since: new Date(now).toISOString(), shard, videoSeconds: 30 };
      // As the service's wait: its key's item read, the shard's counters hand the ticket, then one transaction (an
      // order not recorded is left to the audit, as the service leaves it).
      const read = await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.queueKey(shard, 'api', u.userId), ConsistentRead: true }));
      const kx = keyStateOf(read.Item);
      const out = await ctx.ddb.send(new UpdateCommand(ticketUpdate(T, shard, 'api', 'live', headOfKey(kx))));
      const waiter = takenWait(w, kx, out.Attributes!);
      const place = { shard, ...placeOf(waiter) };
      const items = [...waitItems(T, waiter, kx), ...placeItems(T, { id, queueShard: shardOf(id) }, place)].map(([, item]) => item);
      try {
        await ctx.ddb.send(new TransactWriteCommand({ TransactItems: items }));
      } catch (err) {
        if ((err as Error).name !== 'TransactionCanceledException') throw err;
        leftToAudit.add(id);
      }
      await batchGet(
        ctx.ddb,
        T,
        slotsOf(shard, ctx.queue.slots, ctx.queue.shards).map((n) => keys.slot(n)),
      );
      const windowStart = windowOf(Date.now());
      await ctx.ddb.send(new GetCommand({ TableName: T, Key: keys.posts(u.userId, windowStart), ConsistentRead: true }));
      return true;
    },
  };
}
