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

  async deadlinesDue(now: Date, limit: number): Promise<Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[]> {
    const found: Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[] = [];
    for (let shard = 0; shard < SHARDS && found.length < limit; shard++) {
      const out = await this.ddb.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk AND #sk <= :due',
          ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
          // Every sort key of a deadline at or before now sorts before this one.
          ExpressionAttributeValues: { ':pk': keys.deadlinePartition(shard), ':due': `${now.toISOString()}#~` },
          ConsistentRead: true,
          Limit: limit - found.length,
        }),
      );
      for (const item of out.Items ?? []) found.push({ id: String(item.orderId), queueShard: shard, deadlineAt: String(item.deadlineAt) });
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
