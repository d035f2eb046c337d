/** Users, their key hash, balance, trial, plan and counters: the user item and the ledger beside it. */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyMatches, newApiKey, parseKey } from '../core/apikeys.ts';
import { InvalidParams, notFound, serviceUnavailable } from '../core/errors.ts';
import { ledgerEntryId, newUserId } from '../core/ids.ts';
import type { AccountStore } from '../core/ports.ts';
import { type Account, isLive } from '../core/pricing.ts';
import { deletePartition, queryAll, transact, windowCountUpdate, writeIf, type TransactItem, getRecord } from './dynamo.ts';
import { accountOf, ledgerLineOf } from './records.ts';
import { inPartition, ITEM, keys, TABLE_KEYS } from './keys.ts';
import { ACCOUNT_CONFLICTS, LEDGER_MOVED, type LedgerEntry, type LedgerHead, type LedgerLine, nextEntry } from '../core/transactions.ts';
import { retry } from '../core/retry.ts';
import { rearmsLowBalance } from '../core/balance.ts';

/** The spend controls are kept as the account has them. */
interface UserItem extends Pick<Account, 'spendLimit' | 'spendMonth' | 'spentInMonth' | 'lowBelow' | 'lowAlertSent' | 'lowAlerts'> {
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
  /** The ledger's entries: each ledger write adds one, on condition of the count it read. */
  ledgerSeq?: number;
  createdAt: string;
  /** A test-mode account: the live account it belongs to. */
  testOf?: string;
  /** A live account's test-mode account, once a test key was issued. */
  testAccount?: string;
}

/** The ledger head of a user item (as read, or as a failed condition returned it). */
export const headOf = (item: Record<string, unknown>): LedgerHead => ({ seq: Number(item.ledgerSeq ?? 0), balance: Number(item.balance) });

/**
 * A ledger write: the entry after `head`, and what the user item's update must add and check with it, so that the
 * entry is written only while `head` is still the ledger's (the update moves the balance by the entry's amount in the
 * same transaction). A failed check means another write came first: read the head again and build anew.
 */
export function ledgerWrite(tableName: string, userId: string, head: LedgerHead, entry: Omit<LedgerEntry, 'balanceAfter'>) {
  const next = nextEntry(head, entry);
  const put: TransactItem = {
    Put: { TableName: tableName, Item: { ...keys.ledger(userId, ledgerEntryId(next.seq)), ...next.entry }, ConditionExpression: ITEM.isNew },
  };
  return {
    put,
    add: 'ledgerSeq :ledgerOne',
    // A user item from before the ledger was counted has no count: it is at 0.
    condition: head.seq === 0 ? '(attribute_not_exists(ledgerSeq) OR ledgerSeq = :ledgerSeq)' : 'ledgerSeq = :ledgerSeq',
    values: { ':ledgerSeq': head.seq, ':ledgerOne': 1 },
  };
}

export class Accounts implements AccountStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * One strongly consistent read authenticates the key and loads the account; nothing else is read before the key is
   * verified. A revoked or reissued key fails on its very next call.
   */
  async authenticate(apiKey: string | undefined): Promise<{ account: Account } | undefined> {
    const key = parseKey(apiKey);
    if (!key || !apiKey) return undefined;
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.user(key.accountId), ConsistentRead: true }));
    if (!out.Item || !keyMatches(apiKey, out.Item.keyHash as string | undefined)) return undefined;
    const account = accountOf(out.Item);
    // Only a test key opens a test-mode account, and the reverse (issueKey and issueTestKey see to it; checked anyway).
    if ((key.mode === 'test') === isLive(account)) return undefined;
    return { account };
  }

  async createUser(opts: { balance: number; trialVideos: number; plan?: { name: string; heavyPerMonth: number }; now: Date }) {
    const userId = newUserId();
    const { apiKey, hash } = newApiKey(userId);
    const createdAt = opts.now.toISOString();
    const opening =
      opts.balance > 0 ? ledgerWrite(this.tableName, userId, { seq: 0, balance: 0 }, { amount: opts.balance, kind: 'top_up', createdAt }) : undefined;
    const item: UserItem = {
      userId,
      balance: opts.balance,
      trialVideosLeft: opts.trialVideos,
      activeTasks: 0,
      keyHash: hash,
      ledgerSeq: opening ? 1 : 0,
      createdAt,
      ...(opts.plan ? { planName: opts.plan.name, planHeavyPerMonth: opts.plan.heavyPerMonth } : {}),
    };
    await this.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { ...keys.user(userId), ...item }, ConditionExpression: ITEM.isNew } },
          ...(opening ? [opening.put] : []),
        ],
      }),
    );
    return { userId, apiKey };
  }

  /** Replaces the user's live key: the old one stops working at once. A test-mode account has test keys only. */
  async issueKey(userId: string, now: Date): Promise<string> {
    const { apiKey, hash } = newApiKey(userId);
    await this.updateExisting(userId, 'SET keyHash = :h, keyIssuedAt = :t', { ':h': hash, ':t': now.toISOString() }, 'attribute_not_exists(testOf)');
    return apiKey;
  }

  /**
   * Replaces the test-mode key of a live user (docs/decisions.md "Test mode"): its test-mode account, made with the
   * first test key and linked both ways, holds the test key's orders, webhook and counters apart from the live ones.
   */
  async issueTestKey(userId: string, now: Date): Promise<{ apiKey: string; testAccountId: string }> {
    const at = now.toISOString();
    const read = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ConsistentRead: true }));
    const live = read.Item && accountOf(read.Item);
    if (!live) throw notFound('user');
    if (live.testOf) throw new InvalidParams('user', `is a test-mode account: name its live account ${live.testOf}`);
    if (live.testAccount && (await this.get(live.testAccount))) {
      const { apiKey, hash } = newApiKey(live.testAccount, 'test');
      await this.updateExisting(live.testAccount, 'SET keyHash = :h, keyIssuedAt = :t', { ':h': hash, ':t': at });
      return { apiKey, testAccountId: live.testAccount };
    }
    const testAccountId = newUserId();
    const { apiKey, hash } = newApiKey(testAccountId, 'test');
    const item: UserItem = {
      userId: testAccountId,
      balance: 0,
      trialVideosLeft: 0,
      activeTasks: 0,
      keyHash: hash,
      ledgerSeq: 0,
      createdAt: at,
      testOf: userId,
    };
    const c = await transact(this.ddb, [
      ['test', { Put: { TableName: this.tableName, Item: { ...keys.user(testAccountId), ...item, keyIssuedAt: at }, ConditionExpression: ITEM.isNew } }],
      [
        'live',
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET testAccount = :t',
            // No test-mode account yet, or the one linked is gone (a deletion cut short): a new one in its place.
            ConditionExpression: `${ITEM.exists} AND (attribute_not_exists(testAccount) OR testAccount = :stale)`,
            ExpressionAttributeValues: { ':t': testAccountId, ':stale': live.testAccount ?? '' },
          },
        },
      ],
    ]);
    if (!c) return { apiKey, testAccountId };
    // Another issuance linked its test-mode account first (or the user went): a new key for that one.
    if (c.failed('live')) return this.issueTestKey(userId, now);
    throw c.error;
  }

  async revokeKey(userId: string): Promise<void> {
    await this.updateExisting(userId, 'REMOVE keyHash', {});
  }

  async setPlan(userId: string, plan: { name: string; heavyPerMonth: number } | undefined): Promise<void> {
    if (plan) await this.updateExisting(userId, 'SET planName = :n, planHeavyPerMonth = :h', { ':n': plan.name, ':h': plan.heavyPerMonth });
    else await this.updateExisting(userId, 'REMOVE planName, planHeavyPerMonth', {});
  }

  /** The operator's monthly spend limit of the key (undefined: none); the creation's debit is conditioned on it. */
  async setSpendLimit(userId: string, monthly: number | undefined): Promise<void> {
    if (monthly === undefined) await this.updateExisting(userId, 'REMOVE spendLimit', {});
    else await this.updateExisting(userId, 'SET spendLimit = :l', { ':l': monthly });
  }

  /**
   * Sets (or removes) the low-balance alert. A new threshold is armed: the next crossing charge sends balance.low. The
   * same threshold set again keeps its state: a sent alert waits for a top-up to it, as the issue's rule says, however
   * often it is set.
   */
  async setLowBalanceAlert(userId: string, below: number | undefined): Promise<Account | undefined> {
    const update = (expr: string, cond: string, values: Record<string, unknown>) =>
      this.ddb
        .send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.user(userId),
            UpdateExpression: expr,
            ConditionExpression: cond,
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            ReturnValues: 'ALL_NEW',
          }),
        )
        .then((out) => (out.Attributes ? accountOf(out.Attributes) : undefined))
        .catch((err: Error) => {
          if (err.name === 'ConditionalCheckFailedException') return undefined;
          throw err;
        });
    if (below === undefined) return update('REMOVE lowBelow, lowAlertSent', ITEM.exists, {});
    // Two conditional writes, one of which holds whatever the item says (the other one again if it changed between).
    for (let i = 0; i < 3; i++) {
      const same = await update('SET lowBelow = :b', `${ITEM.exists} AND lowBelow = :b`, { ':b': below });
      if (same) return same;
      const changed = await update('SET lowBelow = :b REMOVE lowAlertSent', `${ITEM.exists} AND (attribute_not_exists(lowBelow) OR lowBelow <> :b)`, {
        ':b': below,
      });
      if (changed) return changed;
      if (!(await this.get(userId))) return undefined;
    }
    throw serviceUnavailable('The account is busy with concurrent writes; retry', 1);
  }

  /**
   * Adds doubloons: the entry follows the ledger's head as read, read again while other writes come first. A top-up
   * that lifts the balance to the low-balance threshold or more re-arms a sent alert (core/balance.ts), in the same
   * write, conditioned on the alert as read.
   */
  async topUp(userId: string, amount: number, now: Date): Promise<number> {
    const read = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ConsistentRead: true }));
    let item = read.Item;
    const { c, head } = await retry({
      policy: ACCOUNT_CONFLICTS,
      op: async () => {
        if (!item) throw notFound('user');
        // Set at an account's creation only: the read tells for good.
        if (item.testOf) throw new InvalidParams('user', 'is a test-mode account: it moves no money, and has no balance to top up');
        const head = headOf(item);
        const write = ledgerWrite(this.tableName, userId, head, { amount, kind: 'top_up', createdAt: now.toISOString() });
        const account = accountOf(item);
        const rearm = rearmsLowBalance(account, head.balance + amount);
        const c = await transact(this.ddb, [
          [
            'user',
            {
              Update: {
                TableName: this.tableName,
                Key: keys.user(userId),
                UpdateExpression: `ADD balance :a, ${write.add}${rearm ? ' REMOVE lowAlertSent' : ''}`,
                ConditionExpression: `${ITEM.exists} AND ${write.condition}${rearm ? ' AND lowBelow = :below AND lowAlertSent = :true' : ''}`,
                ExpressionAttributeValues: { ':a': amount, ...write.values, ...(rearm ? { ':below': account.lowBelow, ':true': true } : {}) },
                ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
              },
            },
          ],
          ['ledger', write.put],
        ]);
        if (c?.failed('user')) item = c.itemOf('user');
        return { c, head };
      },
      retryable: ({ c }) => (c?.failed('user') ? LEDGER_MOVED : c?.conflict === true),
      exhausted: () => serviceUnavailable('The account is busy with concurrent writes; retry', 1),
    });
    if (!c) return head.balance + amount;
    throw c.error;
  }

  async get(userId: string): Promise<Account | undefined> {
    return getRecord(this.ddb, this.tableName, keys.user(userId), accountOf);
  }

  /** Every entry of the user's ledger, oldest first (the operator's and the tests' view; the API reads pages). */
  async ledger(userId: string): Promise<LedgerLine[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...inPartition(keys.userPartition(userId), keys.ledgerPrefix),
      ConsistentRead: true,
    });
    return items.map(lineOf);
  }

  /**
   * One page of the ledger, newest first: at most `limit` entries whose ids sort below `below`, read as one query of
   * at most `limit` + 2 items (one to tell whether more remain, one for the cursor's own entry), strongly consistent.
   */
  async ledgerPage(userId: string, q: { limit: number; below?: string }): Promise<{ lines: LedgerLine[]; more: boolean }> {
    // BETWEEN includes both ends: the upper one (the cursor's own entry) is dropped below.
    const range =
      q.below === undefined
        ? inPartition(keys.userPartition(userId), keys.ledgerPrefix)
        : {
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :below',
            ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
            ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':from': keys.ledgerPrefix, ':below': keys.ledger(userId, q.below).SK },
          };
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        ...range,
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: q.limit + (q.below === undefined ? 1 : 2),
      }),
    );
    const lines = (out.Items ?? []).map(lineOf).filter((l) => l.id !== q.below);
    return { lines: lines.slice(0, q.limit), more: lines.length > q.limit };
  }

  /** Every item in the user's partition (profile, ledger, idempotency records, counters, delivery attempts). */
  async deletePartition(userId: string): Promise<void> {
    await deletePartition(this.ddb, this.tableName, keys.userPartition(userId));
  }

  /**
   * Counts one request of the key in its minute window (its POSTs and its GETs have a window each, apart from the user
   * item, so counting never contends with a creation's transaction): how many the window holds with it, or undefined
   * when it was full.
   */
  async count(kind: 'posts' | 'gets', userId: string, windowStart: number, limit: number): Promise<number | undefined> {
    try {
      const out = await this.ddb.send(
        new UpdateCommand({ ...windowCountUpdate(this.tableName, keys[kind](userId, windowStart), windowStart + 60_000, limit), ReturnValues: 'UPDATED_NEW' }),
      );
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

  /** `also`: a further condition, which failing answers 422 naming the user. */
  private async updateExisting(userId: string, expr: string, values: Record<string, unknown>, also?: string) {
    const written = await writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.user(userId),
          UpdateExpression: expr,
          ConditionExpression: also ? `${ITEM.exists} AND ${also}` : ITEM.exists,
          ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
        }),
      ),
    );
    if (written) return;
    if (also && (await this.get(userId)))
      throw new InvalidParams('user', 'is a test-mode account: it takes test keys only (issue-key --test on its live account)');
    throw notFound('user');
  }
}

const lineOf = (i: Record<string, unknown>): LedgerLine => ledgerLineOf(i, (sk) => sk.slice(keys.ledgerPrefix.length));

/** One POST counted in its minute window, refused once the window holds `limit`. Also a transaction item. */
export const postCountUpdate = (tableName: string, userId: string, windowStart: number, limit: number) =>
  windowCountUpdate(tableName, keys.posts(userId, windowStart), windowStart + 60_000, limit);
