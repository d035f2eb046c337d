/** Shared DynamoDB helpers of the repositories: condition failures (turned into domain outcomes where they occur) and paging. */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, paginateQuery, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export const isConditionFailed = (err: unknown) => (err as Error | undefined)?.name === 'ConditionalCheckFailedException';

export interface CancellationReason {
  code: string;
  item?: Record<string, unknown>;
}

/** Per-item reasons of a cancelled transaction (aligned with its items), or undefined for any other error. */
export function cancellationReasons(err: unknown): CancellationReason[] | undefined {
  const e = err as { name?: string; CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] };
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((r) => ({
    code: r.Code ?? 'None',
    ...(r.Item ? { item: unmarshall(r.Item) } : {}),
  }));
}

/** Every item a query matches, across pages. */
export async function queryAll(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client }, input)) items.push(...(page.Items ?? []));
  return items;
}

/** Deletes every item of one partition (account and order deletion). */
export async function deletePartition(client: DynamoDBDocumentClient, tableName: string, pk: string): Promise<void> {
  const items = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: 'PK, SK',
  });
  for (const item of items) await client.send(new DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
}
