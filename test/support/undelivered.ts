/**
 * Events not delivered, dropped or without a webhook, by a Scan of the whole table: for the load test on one machine
 * only (a production adapter never scans).
 */
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import type { StoredEvent } from '../../functions/core/deliveries.ts';
import { aws } from '../../functions/adapters/aws.ts';
import { config } from '../../functions/adapters/config.ts';
import { keys, TABLE_KEYS } from '../../functions/adapters/keys.ts';
import { storedEventOf } from '../../functions/adapters/records.ts';

export async function undeliveredEvents(): Promise<StoredEvent[]> {
  const found: StoredEvent[] = [];
  for await (const page of paginateScan(
    { client: aws().ddb },
    {
      TableName: config().tableName,
      FilterExpression: 'begins_with(#sk, :e) AND (attribute_not_exists(delivery) OR delivery = :p)',
      ExpressionAttributeNames: { '#sk': TABLE_KEYS.sk },
      ExpressionAttributeValues: { ':e': keys.orderEventPrefix, ':p': 'pending' },
      ConsistentRead: true,
    },
  )) {
    for (const item of page.Items ?? []) found.push(storedEventOf(item));
  }
  return found;
}
