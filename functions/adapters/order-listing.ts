/** Reading orders: one order, its events, a user's orders a page at a time, and the deletion of an order. */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Order } from '../core/orders.ts';
import type { VideoEvent } from '../core/ports.ts';
import { batchGet, deletePartition, queryAll, getRecord } from './dynamo.ts';
import { orderEventOf, orderOf } from './records.ts';
import { inPartition, keys, TABLE_KEYS } from './keys.ts';

export class OrderReads {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(orderId: string): Promise<Order | undefined> {
    return getRecord(this.ddb, this.tableName, keys.order(orderId), orderOf);
  }

  /** The events recorded for an order, oldest first (an order's partition holds its own events only). */
  async events(orderId: string): Promise<VideoEvent[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...inPartition(keys.order(orderId).PK, keys.orderEventPrefix),
      ConsistentRead: true,
    });
    return (items.map(orderEventOf) as VideoEvent[]).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async ofUser(userId: string, range: { from?: string | undefined; below?: string | undefined; limit: number }): Promise<{ orders: Order[]; more: boolean }> {
    // BETWEEN includes both ends: the upper one (a cursor's own order) is dropped below. '~' sorts after every id.
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :below',
        ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
        ExpressionAttributeValues: {
          ':pk': keys.userPartition(userId),
          ':from': keys.userOrderSk(range.from ?? 'vid_'),
          ':below': keys.userOrderSk(range.below ?? 'vid_~'),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
        // One more than asked, to tell whether more remain; one more again for the cursor's own order.
        Limit: range.limit + 2,
      }),
    );
    const ids = (out.Items ?? []).map((i) => keys.orderIdOfUserOrder(i[TABLE_KEYS.sk] as string)).filter((id) => id !== range.below);
    const page = ids.slice(0, range.limit);
    const found = page.length
      ? await batchGet(
          this.ddb,
          this.tableName,
          page.map((id) => keys.order(id)),
        )
      : [];
    const byId = new Map(found.map((i) => [i.id as string, orderOf(i)]));
    return { orders: page.flatMap((id) => byId.get(id) ?? []), more: ids.length > range.limit };
  }

  /** Ids of every order of a user, newest first. */
  async idsOfUser(userId: string): Promise<string[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      IndexName: TABLE_KEYS.gsi1,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE_KEYS.gsi1pk },
      ExpressionAttributeValues: { ':pk': keys.userPartition(userId) },
      ScanIndexForward: false,
    });
    return items.map((i) => keys.orderIdOfIndexKey(i[TABLE_KEYS.gsi1sk] as string));
  }

  /** The order and everything in its partition (its recorded events). */
  async delete(orderId: string): Promise<void> {
    await deletePartition(this.ddb, this.tableName, keys.order(orderId).PK);
  }
}
