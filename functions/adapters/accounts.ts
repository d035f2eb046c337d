/** Users, their key hash, balance, trial, plan and counters: the user item and the ledger beside it. */
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyMatches, newApiKey, userIdOfKey } from '../core/apikeys.ts';
import { notFound } from '../core/errors.ts';
import { newEntryId, newUserId } from '../core/ids.ts';
import type { Account } from '../core/pricing.ts';
import { deletePartition, queryAll, recordOf, transact, windowCountUpdate, writeIf, type TransactItem } from './dynamo.ts';
import { inPartition, ITEM, keys, TABLE_KEYS } from './keys.ts';
import type { LedgerEntry, LedgerLine } from '../core/transactions.ts';

interface UserItem {
  userId: string;
  balance: number;
  trialVideosLeft: number;
  planName?: string;
  planHeavyPerMonth?: number;
  heavyMonth?: string;
  heavyUsed?: number;
  activeTasks: number;
  reviewsPending?: number;
  keyHash?: string;
  createdAt: string;
}

export function toAccount(item: Record<string, unknown>): Account {
  const u = item as unknown as UserItem;
  return {
    userId: u.userId,
    balance: u.balance,
    trialVideosLeft: u.trialVideosLeft,
    ...(u.planName ? { plan: { name: u.planName, heavyPerMonth: u.planHeavyPerMonth ?? 0 } } : {}),
    ...(u.heavyMonth ? { heavyMonth: u.heavyMonth } : {}),
    heavyUsed: u.heavyUsed ?? 0,
    activeTasks: u.activeTasks,
    reviewsPending: u.reviewsPending ?? 0,
  };
}

export type { LedgerEntry };

export const ledgerPut = (tableName: string, userId: string, entry: LedgerEntry): TransactItem => ({
  Put: { TableName: tableName, Item: { ...keys.ledger(userId, newEntryId()), ...entry } },
});

export class Accounts {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * One strongly consistent read authenticates the key and loads the account; nothing else is read before the key is
   * verified. A revoked or reissued key fails on its very next call.
   */
  async authenticate(apiKey: string | undefined): Promise<{ account: Account } | undefined> {
    const userId = userIdOfKey(apiKey);
    if (!userId || !apiKey) return undefined;
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ConsistentRead: true }));
    if (!out.Item || !keyMatches(apiKey, out.Item.keyHash as string | undefined)) return undefined;
    return { account: toAccount(out.Item) };
  }

  async createUser(opts: { balance: number; trialVideos: number; plan?: { name: string; heavyPerMonth: number }; now: Date }) {
    const userId = newUserId();
    const { apiKey, hash } = newApiKey(userId);
    const item: UserItem = {
      userId,
      balance: opts.balance,
      trialVideosLeft: opts.trialVideos,
      activeTasks: 0,
      keyHash: hash,
      createdAt: opts.now.toISOString(),
      ...(opts.plan ? { planName: opts.plan.name, planHeavyPerMonth: opts.plan.heavyPerMonth } : {}),
    };
    await this.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { ...keys.user(userId), ...item }, ConditionExpression: ITEM.isNew } },
          ...(opts.balance > 0 ? [ledgerPut(this.tableName, userId, { amount: opts.balance, kind: 'top_up', createdAt: item.createdAt })] : []),
        ],
      }),
    );
    return { userId, apiKey };
  }

  /** Replaces the user's key: the old one stops working at once. */
  async issueKey(userId: string, now: Date): Promise<string> {
    const { apiKey, hash } = newApiKey(userId);
    await this.updateExisting(userId, 'SET keyHash = :h, keyIssuedAt = :t', { ':h': hash, ':t': now.toISOString() });
    return apiKey;
  }

  async revokeKey(userId: string): Promise<void> {
    await this.updateExisting(userId, 'REMOVE keyHash', {});
  }

  async setPlan(userId: string, plan: { name: string; heavyPerMonth: number } | undefined): Promise<void> {
    if (plan) await this.updateExisting(userId, 'SET planName = :n, planHeavyPerMonth = :h', { ':n': plan.name, ':h': plan.heavyPerMonth });
    else await this.updateExisting(userId, 'REMOVE planName, planHeavyPerMonth', {});
  }

  async topUp(userId: string, amount: number, now: Date): Promise<number> {
    const cancelled = await transact(this.ddb, [
      [
        'user',
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(userId),
            UpdateExpression: 'ADD balance :a',
            ConditionExpression: ITEM.exists,
            ExpressionAttributeValues: { ':a': amount },
          },
        },
      ],
      ['ledger', ledgerPut(this.tableName, userId, { amount, kind: 'top_up', createdAt: now.toISOString() })],
    ]);
    if (cancelled?.failed('user')) throw notFound('user');
    if (cancelled) throw cancelled.error;
    return (await this.get(userId))!.balance;
  }

  async get(userId: string): Promise<Account | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ConsistentRead: true }));
    return out.Item ? toAccount(out.Item) : undefined;
  }

  /** Every entry of the user's ledger, oldest first, each with its id (a ULID: the time it was written). */
  async ledger(userId: string): Promise<LedgerLine[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...inPartition(keys.userPartition(userId), keys.ledgerPrefix),
      ConsistentRead: true,
    });
    return items.map((i) => ({ ...recordOf<LedgerEntry>(i), id: String(i[TABLE_KEYS.sk]).slice(keys.ledgerPrefix.length) }));
  }

  /** Every item in the user's partition (profile, ledger, idempotency records, counters, delivery attempts). */
  async deletePartition(userId: string): Promise<void> {
    await deletePartition(this.ddb, this.tableName, keys.userPartition(userId));
  }

  /** Counts one POST in its minute window; false when the window already had `limit`. */
  /** Counts one POST in its window: how many the window holds with it, or undefined when it was full. */
  async count(userId: string, windowStart: number, limit: number): Promise<number | undefined> {
    try {
      const out = await this.ddb.send(new UpdateCommand({ ...postCountUpdate(this.tableName, userId, windowStart, limit), ReturnValues: 'UPDATED_NEW' }));
      return Number(out.Attributes?.count ?? 1);
    } catch (err) {
      if ((err as Error).name === 'ConditionalCheckFailedException') return undefined;
      throw err;
    }
  }

  /** How many POSTs the window holds (the creation counts its own inside its transaction). */
  async postsIn(userId: string, windowStart: number): Promise<number> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.posts(userId, windowStart), ConsistentRead: true }));
    return Number(out.Item?.count ?? 0);
  }

  private async updateExisting(userId: string, expr: string, values: Record<string, unknown>) {
    const written = await writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(userId),
          UpdateExpression: expr,
          ConditionExpression: ITEM.exists,
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
    if (!written) throw notFound('user');
  }
}

/** One POST counted in its minute window, refused once the window holds `limit`. Also a transaction item. */
export const postCountUpdate = (tableName: string, userId: string, windowStart: number, limit: number) =>
  windowCountUpdate(tableName, keys.posts(userId, windowStart), windowStart + 60_000, limit);
