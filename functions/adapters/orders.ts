/** Orders and their creation transaction. */
import { GetCommand, paginateScan, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { holdsSlot } from '../core/orders.ts';
import type { Order } from '../core/orders.ts';
import type { CommitOutcome, IdempotencyRecord, OrderCommit, OrderEvent, OrderStore, Patch, Transition } from '../core/ports.ts';

import { ledgerPut, postCountUpdate, toAccount } from './accounts.ts';
import { cancellationReasons, deletePartition, isConditionFailed, queryAll } from './dynamo.ts';
import { keys, TABLE_KEYS, ttl } from './keys.ts';

const KEY_ATTRS = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'expiresAt'];

/** `SET updatedAt = :now, <fields> REMOVE <fields>` with every name and value placed in the maps given. */
function fieldUpdate(names: Record<string, string>, values: Record<string, unknown>, sets: string[], set: object = {}, remove: readonly string[] = []): string {
  names['#u'] = 'updatedAt';
  sets.push('#u = :now');
  Object.entries(set).forEach(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:v${i}`] = v;
    sets.push(`#f${i} = :v${i}`);
  });
  const removes = remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  return `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`;
}
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

  async transition(t: Transition): Promise<boolean> {
    const { order } = t;
    const T = this.tableName;
    const names: Record<string, string> = { '#s': 'status' };
    const values: Record<string, unknown> = { ':from': order.status, ':to': t.to, ':now': t.now.toISOString() };
    const update = fieldUpdate(names, values, ['#s = :to'], t.set, t.remove);
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Update: {
          TableName: T,
          Key: keys.order(order.id),
          UpdateExpression: update,
          ConditionExpression: '#s = :from',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
    // The active-task slot and the global queue place follow the status (DESIGN.md section 2).
    const slot = (holdsSlot(t.to) ? 1 : 0) - (holdsSlot(order.status) ? 1 : 0);
    const user: { add: string[]; values: Record<string, unknown> } = { add: [], values: {} };
    if (slot) {
      user.add.push('activeTasks :slot');
      user.values[':slot'] = slot;
      items.push({
        Update: { TableName: T, Key: keys.queueShard(order.queueShard), UpdateExpression: 'ADD active :slot', ExpressionAttributeValues: { ':slot': slot } },
      });
    }
    if (t.refund) {
      const { charge } = order;
      if (charge.cost) {
        user.add.push('balance :cost');
        user.values[':cost'] = charge.cost;
      }
      if (charge.trial) {
        user.add.push('trialVideosLeft :one');
        user.values[':one'] = 1;
      }
      // The plan allowance is given back only within the month it was taken from.
      if (charge.heavyAllowanceMonth && charge.heavyAllowanceMonth === t.refund.heavyMonth) {
        user.add.push('heavyUsed :minusOne');
        user.values[':minusOne'] = -1;
      }
      items.push(ledgerPut(T, order.userId, { amount: charge.cost, kind: 'refund', orderId: order.id, ...(charge.trial ? { trial: true } : {}), createdAt: t.now.toISOString() }));
    }
    if (user.add.length) {
      items.push({
        Update: { TableName: T, Key: keys.user(order.userId), UpdateExpression: `ADD ${user.add.join(', ')}`, ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: user.values },
      });
    }
    if (t.event) {
      items.push({
        Put: { TableName: T, Item: { ...keys.orderEvent(order.id, t.event.id), ...t.event }, ConditionExpression: 'attribute_not_exists(PK)' },
      });
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ddb.send(new TransactWriteCommand({ TransactItems: items }));
        return true;
      } catch (err) {
        const reasons = cancellationReasons(err);
        if (reasons?.[0]?.code === 'ConditionalCheckFailed') return false;
        if (attempt < 8 && reasons?.some((r) => r.code === 'TransactionConflict')) {
          await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
          continue;
        }
        throw err;
      }
    }
  }

  async patch(orderId: string, p: Patch, now: Date): Promise<boolean> {
    const names: Record<string, string> = { '#s': 'status' };
    const values: Record<string, unknown> = { ':status': p.status, ':now': now.toISOString() };
    const update = fieldUpdate(names, values, [], p.set, p.remove);
    const cond = ['#s = :status'];
    if (p.withoutScript) {
      names['#script'] = 'script';
      cond.push('attribute_not_exists(#script)');
    }
    if (p.regenNote !== undefined) {
      names['#note'] = 'regenNote';
      values[':note'] = p.regenNote;
      cond.push('#note = :note');
    }
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.order(orderId),
          UpdateExpression: update,
          ConditionExpression: cond.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailed(err)) return false;
      throw err;
    }
  }

  async idempotency(userId: string, keyHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.idempotency(userId, keyHash), ConsistentRead: true }));
    if (!out.Item || Number(out.Item[TABLE_KEYS.ttl]) <= ttl(now)) return undefined;
    return out.Item as unknown as IdempotencyRecord;
  }

  async get(orderId: string): Promise<Order | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.order(orderId), ConsistentRead: true }));
    return out.Item ? (strip(out.Item) as unknown as Order) : undefined;
  }

  /**
   * Orders still queued, running or awaiting review. One machine only (a Scan): the local runtime resumes them on
   * start, since its executions do not outlive the process.
   */
  async unfinished(): Promise<Order[]> {
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan(
      { client: this.ddb },
      {
        TableName: this.tableName,
        FilterExpression: 'SK = :order AND #s IN (:q, :r, :a)',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':order': 'ORDER', ':q': 'queued', ':r': 'running', ':a': 'awaiting_review' },
        ConsistentRead: true,
      },
    )) {
      items.push(...(page.Items ?? []));
    }
    return items.map((i) => strip(i) as unknown as Order);
  }

  /** The events recorded for an order, oldest first. */
  async events(orderId: string): Promise<OrderEvent[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :e)',
      ExpressionAttributeValues: { ':pk': keys.order(orderId).PK, ':e': 'EVENT#' },
      ConsistentRead: true,
    });
    return items.map((i) => strip(i) as unknown as OrderEvent).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
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

  /** The order and everything in its partition (its recorded events). */
  async delete(orderId: string): Promise<void> {
    await deletePartition(this.ddb, this.tableName, keys.order(orderId).PK);
  }

  private item(order: Order) {
    return { ...keys.order(order.id), ...keys.orderByUser(order.userId, order.id), ...order };
  }
}

