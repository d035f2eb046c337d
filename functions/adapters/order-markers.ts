/**
 * The markers the creation writes beside an order, by shard, so the audit walks what it must without a scan: open
 * (until done or error), unstarted (until its workflow starts) and its deadline.
 */
import { DeleteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { orderIdFloor, SHARDS } from '../core/ids.ts';
import type { Order } from '../core/orders.ts';
import type { MarkerPage } from '../core/ports.ts';
import { markersPage } from './dynamo.ts';
import { keys, TABLE_KEYS } from './keys.ts';

export class OrderMarkers {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Unstarted markers of orders created before `before`, the oldest first in each shard, the shards in turn. */
  async unstarted(before: Date, limit: number, first = 0): Promise<Pick<Order, 'id' | 'queueShard'>[]> {
    // The sort key is the order id, which begins with its creation time: every id created before `before` sorts first.
    const items = await this.inTurn(keys.unstartedPartition, orderIdFloor(before.getTime()), limit, first);
    return items.map(({ item, shard }) => ({ id: String(item.orderId), queueShard: shard }));
  }

  async started(order: Pick<Order, 'id' | 'queueShard'>): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.unstartedOrder(order.queueShard, order.id) }));
  }

  async deadlinesDue(now: Date, limit: number, first = 0): Promise<Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[]> {
    // Every sort key of a deadline at or before now (`<deadline>#<order id>`) sorts before this one.
    const items = await this.inTurn(keys.deadlinePartition, `${now.toISOString()}#~`, limit, first);
    return items.map(({ item, shard }) => ({ id: String(item.orderId), queueShard: shard, deadlineAt: String(item.deadlineAt) }));
  }

  /**
   * The markers of every shard whose sort key is below `bound`, the lowest first in each, one from each shard in turn
   * from `first` (the port's rule), read in rounds: each shard still holding some gets an equal part of what is left (a
   * query of each at once, from where its last one stopped); when less is left than shards, one each, in turn.
   * Typically one round of one query a shard.
   */
  private async inTurn(partitionOf: (shard: number) => string, bound: string, limit: number, first: number) {
    const found: { item: Record<string, unknown>; shard: number }[] = [];
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
              KeyConditionExpression: '#pk = :pk AND #sk < :bound',
              ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
              ExpressionAttributeValues: { ':pk': partitionOf(shard), ':bound': bound },
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
        for (const item of out.Items ?? []) found.push({ item, shard });
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
