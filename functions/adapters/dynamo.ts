/**
 * Shared DynamoDB helpers of the repositories: conditional writes whose failed condition is an answer (false, or a
 * named cancellation reason) rather than an error, items turned back into records, and paging.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  DeleteCommand,
  paginateQuery,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { Contended } from '../core/errors.ts';
import { realSleep, retry, type RetryPolicy, type Sleep } from '../core/retry.ts';
import { inPartition, TABLE_KEYS, ttl } from './keys.ts';

const isConditionFailed = (err: unknown) => (err as Error | undefined)?.name === 'ConditionalCheckFailedException';

/**
 * One more in a fixed window's counter, refused once it holds `limit` (the per-minute POSTs, the hourly resends). An
 * Update's input, also usable as a transaction item; the counter expires a minute after its window ends.
 */
/** An UpdateExpression of SET and ADD clauses, each left out when it has no term. */
export const updateExpression = (set: readonly string[], add: readonly string[]): string =>
  [set.length ? `SET ${set.join(', ')}` : '', add.length ? `ADD ${add.join(', ')}` : ''].filter(Boolean).join(' ');

export function windowCountUpdate(tableName: string, key: Record<string, string>, windowEnd: number, limit: number) {
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: 'ADD #n :one SET #ttl = :exp',
    ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
    ExpressionAttributeNames: { '#n': 'count', '#ttl': TABLE_KEYS.ttl },
    ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':exp': ttl(new Date(windowEnd + 60_000)) },
  };
}

/** A conditional write as it is sent: true when written, false when its condition failed; any other error is thrown. */
export async function writeIf(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface CancellationReason {
  code: string;
  /** The item as it was, when the failed write asked for ALL_OLD. */
  item?: Record<string, unknown>;
}

/** Why a named transaction was cancelled, read by the items' names. */
export class Cancelled<N extends string> {
  constructor(
    private readonly reasons: ReadonlyMap<N, CancellationReason>,
    /** The TransactionCanceledException itself, to rethrow when no reason is an answer. */
    readonly error: Error,
  ) {}

  /** Whether the condition of the item with this name failed. */
  failed(name: N): boolean {
    return this.reasons.get(name)?.code === 'ConditionalCheckFailed';
  }

  /** The item as it was when its condition failed (ALL_OLD). */
  itemOf(name: N): Record<string, unknown> | undefined {
    return this.reasons.get(name)?.item;
  }

  /**
   * Another transaction held one of the items, and nothing else failed: trying again may succeed. Every item that did
   * not fail reports None, so None is no reason to try again; any other reason (ValidationError, a throttle) is not
   * a conflict, and the caller throws it.
   */
  get conflict(): boolean {
    const codes = [...this.reasons.values()].map((r) => r.code).filter((code) => code !== 'None');
    return codes.length > 0 && codes.every((code) => code === 'TransactionConflict');
  }
}

/**
 * Commits items given by name in one TransactWriteItems. Undefined when committed; when cancelled, the reasons by
 * name, so no caller reads a failure by its position. Any other error is thrown.
 */
export async function transact<N extends string>(
  client: DynamoDBDocumentClient,
  items: readonly (readonly [N, TransactItem])[],
): Promise<Cancelled<N> | undefined> {
  try {
    await client.send(new TransactWriteCommand({ TransactItems: items.map(([, item]) => item) }));
    return undefined;
  } catch (err) {
    const e = err as { name?: string; CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] };
    if (e?.name !== 'TransactionCanceledException') throw err;
    // AWS lists one reason per item, in the items' order.
    const reasons = new Map<N, CancellationReason>(
      items.map(([name], i) => {
        const r = e.CancellationReasons?.[i];
        return [name, { code: r?.Code ?? 'None', ...(r?.Item ? { item: unmarshall(r.Item) } : {}) }];
      }),
    );
    return new Cancelled(reasons, err as Error);
  }
}

/** Tries of a transaction while other transactions hold its items. */
export const CONFLICTS: RetryPolicy = { attempts: 9, baseMs: 20 };
export const CONFLICT_ATTEMPTS = CONFLICTS.attempts;

/**
 * `transact`, tried again with jittered backoff while another transaction holds one of its items; past
 * CONFLICT_ATTEMPTS, Contended (transient: the step is retried, the API answers 503), never the cancellation itself.
 */
export async function transactPastConflicts<N extends string>(
  client: DynamoDBDocumentClient,
  items: readonly (readonly [N, TransactItem])[],
  sleep: Sleep = realSleep,
): Promise<Cancelled<N> | undefined> {
  return retry({
    policy: CONFLICTS,
    sleep,
    op: () => transact(client, items),
    retryable: (cancelled) => cancelled?.conflict === true,
    exhausted: (cancelled) =>
      contended(
        items.map(([name]) => name),
        cancelled!.error,
      ),
  });
}

/**
 * A single write (`what` names its item for the error), tried again while a transaction holds its item (DynamoDB
 * answers TransactionConflictException); past CONFLICT_ATTEMPTS, Contended, as `transactPastConflicts` ends.
 */
export async function writePastConflicts<R>(what: string, send: () => Promise<R>, sleep: Sleep = realSleep): Promise<R> {
  return retry<{ done: R } | { held: Error }>({
    policy: CONFLICTS,
    sleep,
    op: async () => {
      try {
        return { done: await send() };
      } catch (err) {
        if ((err as Error)?.name === 'TransactionConflictException') return { held: err as Error };
        throw err;
      }
    },
    retryable: (r) => 'held' in r,
    exhausted: (r) => new Contended(`${what} stayed held by other transactions ${CONFLICT_ATTEMPTS} times`, { cause: 'held' in r ? r.held : undefined }),
  }).then((r) => (r as { done: R }).done);
}

/** The error of a transaction whose items stayed held by others. */
export const contended = (names: readonly string[], cause: Error, attempts = CONFLICT_ATTEMPTS) =>
  new Contended(`Transaction (${names.join(', ')}) lost ${attempts} times to other transactions`, { cause });

/** Every item a query matches, across pages. */
export async function queryAll(client: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client }, input)) items.push(...(page.Items ?? []));
  return items;
}

/**
 * One page of a sharded marker index (the open orders', the unsettled events'), walked shard by shard in sort-key
 * order from `from` (`<shard>/<sort key>`: resume past that key; undefined: the start). Markers whose `at` is not before
 * `before` are passed over (their work is normally on its way). `next` is undefined once the last shard is read.
 */
export async function markersPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitionOf: (shard: number) => string,
  shards: number,
  at: string,
  before: Date,
  from: string | undefined,
  limit: number,
): Promise<{ items: { item: Record<string, unknown>; shard: number; after: string }[]; next?: string }> {
  const slash = from?.indexOf('/') ?? -1;
  let shard = from && slash > 0 ? Number(from.slice(0, slash)) : 0;
  let after = from && slash > 0 ? from.slice(slash + 1) : '';
  if (!Number.isInteger(shard) || shard < 0 || shard >= shards) [shard, after] = [0, ''];
  const items: { item: Record<string, unknown>; shard: number; after: string }[] = [];
  // A page reads at most `limit` markers across the shards it crosses (young ones read and passed over count too).
  let read = 0;
  while (shard < shards) {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        ...inPartition(partitionOf(shard)),
        ConsistentRead: true,
        Limit: limit - read,
        ...(after ? { ExclusiveStartKey: { [TABLE_KEYS.pk]: partitionOf(shard), [TABLE_KEYS.sk]: after } } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      read++;
      after = String(item[TABLE_KEYS.sk]);
      if (String(item[at]) < before.toISOString()) items.push({ item, shard, after: `${shard}/${after}` });
    }
    if (out.LastEvaluatedKey) return { items, next: `${shard}/${after}` };
    shard++;
    after = '';
    if (read >= limit) return shard < shards ? { items, next: `${shard}/` } : { items };
  }
  return { items };
}

/** Deletes every item of one partition (account and order deletion). */
export async function deletePartition(client: DynamoDBDocumentClient, tableName: string, pk: string): Promise<void> {
  const items = await queryAll(client, {
    TableName: tableName,
    KeyConditionExpression: `${TABLE_KEYS.pk} = :pk`,
    ExpressionAttributeValues: { ':pk': pk },
    ProjectionExpression: `${TABLE_KEYS.pk}, ${TABLE_KEYS.sk}`,
  });
  for (const item of items)
    await client.send(new DeleteCommand({ TableName: tableName, Key: { [TABLE_KEYS.pk]: item[TABLE_KEYS.pk], [TABLE_KEYS.sk]: item[TABLE_KEYS.sk] } }));
}

/** Reads of a batch while DynamoDB leaves keys unprocessed. */
const UNPROCESSED: RetryPolicy = { attempts: 5, baseMs: 100 };

/** One item read strongly consistent and made into its record by `toRecord`; nothing when it is not there. */
export async function getRecord<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
  toRecord: (item: Record<string, unknown>) => T,
): Promise<T | undefined> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return out.Item ? toRecord(out.Item) : undefined;
}

/**
 * The items of `keys` (at most 100) from one table, strongly consistent, in no particular order. Keys DynamoDB leaves
 * unprocessed (throttling) are asked again with a growing pause; still unprocessed after that, the read fails as the
 * throttle it is, which the API answers 503 with Retry-After.
 */
export async function batchGet(client: DynamoDBDocumentClient, tableName: string, keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  await retry({
    policy: UNPROCESSED,
    op: async () => {
      const out = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
      items.push(...(out.Responses?.[tableName] ?? []));
      pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
    },
    retryable: () => pending.length > 0,
    exhausted: () => Object.assign(new Error('BatchGetItem left keys unprocessed'), { name: 'ProvisionedThroughputExceededException' }),
  });
  return items;
}
