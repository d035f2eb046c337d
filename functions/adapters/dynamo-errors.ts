/** Recognising DynamoDB's condition failures, which the repositories turn into domain outcomes right where they occur. */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

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
