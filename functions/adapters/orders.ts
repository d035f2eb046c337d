/** Orders and their creation transaction. */
import { DeleteCommand, GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Order } from '../core/orders.ts';
import type { CommitOutcome, IdempotencyRecord, OrderCommit, OrderStore } from '../core/ports.ts';

import { ledgerPut, postCountUpdate, toAccount } from './accounts.ts';
import { cancellationReasons, queryAll } from './dynamo.ts';
import { keys, TABLE_KEYS, ttl } from './keys.ts';

const KEY_ATTRS = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'expiresAt'];
const strip = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !KEY_ATTRS.includes(k)));

export class Orders implements OrderStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(c: OrderCommit): Promise<CommitOutcome> {
    const { order, account, limits } = c;
    const { charge } = order;
    const T = this.tableName;
    const nowSec = ttl(c.now);

    // The user item: debit, trial, plan allowance and the active slot, each guarded by the fact the price used.
    const add = ['activeTasks :one'];
    const set: string[] = [];
    const cond = ['attribute_exists(PK)', 'activeTasks < :maxActive'];
    const values: Record<string, unknown> = { ':one': 1, ':maxActive': limits.activeTasks, ':zero': 0 };
    if (charge.cost > 0) {
      add.push('balance :debit');
      cond.push('balance >= :cost');
      values[':debit'] = -charge.cost;
      values[':cost'] = charge.cost;
    }
    if (charge.trial) {
      add.push('trialVideosLeft :minusOne');
      cond.push('trialVideosLeft > :zero');
      values[':minusOne'] = -1;
    } else {
      cond.push('trialVideosLeft <= :zero');
    }
    if (charge.heavyAllowanceMonth) {
      values[':month'] = charge.heavyAllowanceMonth;
      if (account.heavyMonth === charge.heavyAllowanceMonth) {
        add.push('heavyUsed :one');
        cond.push('heavyMonth = :month AND heavyUsed < planHeavyPerMonth');
      } else {
        set.push('heavyMonth = :month', 'heavyUsed = :one');
        cond.push('(attribute_not_exists(heavyMonth) OR heavyMonth <> :month) AND planHeavyPerMonth > :zero');
      }
    }
    const userUpdate = {
      TableName: T,
      Key: keys.user(account.userId),
      UpdateExpression: `${set.length ? `SET ${set.join(', ')} ` : ''}ADD ${add.join(', ')}`,
      ConditionExpression: cond.join(' AND '),
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };

    const items = [
      { Put: { TableName: T, Item: this.item(order), ConditionExpression: 'attribute_not_exists(PK)' } },
      { Update: userUpdate },
      { Update: postCountUpdate(T, account.userId, c.postWindowStart, limits.postsPerMinute) },
      ledgerPut(T, account.userId, {
        amount: -charge.cost,
        kind: 'charge',
        orderId: order.id,
        ...(charge.trial ? { trial: true } : {}),
        createdAt: order.createdAt,
      }),
      {
        Update: {
          TableName: T,
          Key: keys.queueShard(order.queueShard),
          UpdateExpression: 'ADD active :one',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      ...(c.idempotency
        ? [
            {
              Put: {
                TableName: T,
                Item: {
                  ...keys.idempotency(account.userId, c.idempotency.keyHash),
                  ...c.idempotency.record,
                  [TABLE_KEYS.ttl]: ttl(c.idempotency.expiresAt),
                },
                ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :now',
                ExpressionAttributeValues: { ':now': nowSec },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
              },
            },
          ]
        : []),
    ];

    try {
      await this.ddb.send(new TransactWriteCommand({ TransactItems: items }));
      return { kind: 'created' };
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (!reasons) throw err;
      const failed = (i: number) => reasons[i]?.code === 'ConditionalCheckFailed';
      if (failed(2)) return { kind: 'rate_limited' };
      if (c.idempotency && failed(5)) return { kind: 'replay', record: reasons[5]!.item as unknown as IdempotencyRecord };
      if (failed(1)) {
        const item = reasons[1]!.item;
        return { kind: 'account_changed', account: item ? toAccount(item) : undefined };
      }
      if (reasons.some((r) => r.code === 'TransactionConflict' || r.code === 'None' || r.code === 'ConditionalCheckFailed')) {
        return { kind: 'conflict' };
      }
      throw err;
    }
  }

  /** awaiting_review -> running, taking an active slot again (without the limit check, DESIGN.md section 2). */
  async leaveReview(orderId: string, now: Date): Promise<boolean> {
    const order = await this.get(orderId);
    if (!order) return false;
    try {
      await this.ddb.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.order(orderId),
                UpdateExpression: 'SET #s = :running, updatedAt = :now',
                ConditionExpression: '#s = :awaiting',
                ExpressionAttributeNames: { '#s': 'status' },
                ExpressionAttributeValues: { ':running': 'running', ':awaiting': 'awaiting_review', ':now': now.toISOString() },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.user(order.userId),
                UpdateExpression: 'ADD activeTasks :one',
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.queueShard(order.queueShard),
                UpdateExpression: 'ADD active :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (cancellationReasons(err)) return false;
      throw err;
    }
  }

  async get(orderId: string): Promise<Order | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.order(orderId), ConsistentRead: true }));
    return out.Item ? (strip(out.Item) as unknown as Order) : undefined;
  }

  /** Ids of every order of a user, newest first. */
  async idsOfUser(userId: string): Promise<string[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      IndexName: TABLE_KEYS.gsi1,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
      ProjectionExpression: 'id',
      ScanIndexForward: false,
    });
    return items.map((i) => i.id as string);
  }

  async delete(orderId: string): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.order(orderId) }));
  }

  private item(order: Order) {
    return { ...keys.order(order.id), ...keys.orderByUser(order.userId, order.id), ...order };
  }
}

