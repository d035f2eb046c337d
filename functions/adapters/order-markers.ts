/**
 * The markers the creation writes beside an order, by shard, so the audit walks what it must without a scan: open
 * (until done or error), unstarted (until its workflow starts) and its deadline.
 */
import { DeleteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SHARDS } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import type { MarkerPage } from '../core/ports.ts';
import { markersPage } from './dynamo.ts';
import { inPartition, keys, TABLE_KEYS } from './keys.ts';

export class OrderMarkers {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async unstarted(before: Date, limit: number): Promise<Pick<Order, 'id' | 'queueShard'>[]> {
    const found: Pick<Order, 'id' | 'queueShard'>[] = [];
    for (let shard = 0; shard < SHARDS && found.length < limit; shard++) {
      const out = await this.ddb.send(
        new QueryCommand({ TableName: this.tableName, ...inPartition(keys.unstartedPartition(shard)), ConsistentRead: true, Limit: limit - found.length }),
      );
      for (const item of out.Items ?? []) if (String(item.createdAt) < before.toISOString()) found.push({ id: String(item.orderId), queueShard: shard });
    }
    return found;
  }

  async started(order: Pick<Order, 'id' | 'queueShard'>): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.unstartedOrder(order.queueShard, order.id) }));
  }

  /**
   * In rounds: each shard still holding due markers gets an equal part of what is left (a query of each at once, from
   * where its last one stopped); when less is left than shards, one each, in turn from `first`. The same as one marker
   * at a time from each shard in turn (the port's rule), in a few queries: typically one round of one per shard.
   */
  async deadlinesDue(now: Date, limit: number, first = 0): Promise<Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[]> {
    const found: Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[] = [];
    const resume = new Map<number, Record<string, unknown>>();
    let active = Array.from({ length: SHARDS }, (_, i) => (first + i) % SHARDS);
    while (found.length < limit && active.length) {
      const left = limit - found.length;
      const each = Math.max(1, Math.floor(left / active.length));
      const round = active.slice(0, left);
      const outs = await Promise.all(
        round.map((shard) =>
          this.ddb.send(
            new QueryCommand({
              TableName: this.tableName,
              KeyConditionExpression: '#pk = :pk AND #sk <= :due',
              ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
              // Every sort key of a deadline at or before now sorts before this one.
              ExpressionAttributeValues: { ':pk': keys.deadlinePartition(shard), ':due': `${now.toISOString()}#~` },
              ConsistentRead: true,
              Limit: each,
              ...(resume.has(shard) ? { ExclusiveStartKey: resume.get(shard) } : {}),
            }),
          ),
        ),
      );
      const more: number[] = [];
      round.forEach((shard, i) => {
        const out = outs[i]!;
        for (const item of out.Items ?? []) found.push({ id: String(item.orderId), queueShard: shard, deadlineAt: String(item.deadlineAt) });
        // A shard whose query stopped at its limit may hold more (DynamoDB says so even when it holds none).
        if (out.LastEvaluatedKey) {
          resume.set(shard, out.LastEvaluatedKey);
          more.push(shard);
        }
      });
      // The turn goes on where it stopped: the shards not asked this round first, then those that may hold more.
      active = [...active.slice(round.length), ...more];
    }
    return found;
  }

  async dropDeadline(order: Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>): Promise<void> {
    if (!order.deadlineAt) return;
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.deadline(order.queueShard, order.deadlineAt, order.id) }));
  }

  async dropOpen(order: Pick<Order, 'id' | 'queueShard'>): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.openOrder(order.queueShard, order.id) }));
  }

  async openPage(before: Date, from: string | undefined, limit: number): Promise<MarkerPage<Pick<Order, 'id' | 'queueShard'>>> {
    const page = await markersPage(this.ddb, this.tableName, keys.openPartition, SHARDS, 'createdAt', before, from, limit);
    return { ...page, items: page.items.map(({ item, shard, after }) => ({ ref: { id: String(item.orderId), queueShard: shard }, after })) };
  }
}
