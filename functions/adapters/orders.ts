/** Orders and their creation transaction. */
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awaitsApproval, counterDeltas, countsAgainstKey, type Order } from '../core/orders.ts';
import type { CommitOutcome, IdempotencyRecord, MarkerPage, OrderCommit, OrderEvent, OrderStore, Patch, Transition } from '../core/ports.ts';
import { SHARDS, shardOf } from '../core/ids.ts';
import type { Account, Charge, Limits } from '../core/pricing.ts';
import { headOf, ledgerWrite, postCountUpdate, toAccount } from './accounts.ts';
import { LEDGER_MOVED } from '../core/transactions.ts';
import { retry } from '../core/retry.ts';
import {
  batchGet,
  type Cancelled,
  CONFLICTS,
  contended,
  deletePartition,
  markersPage,
  queryAll,
  recordOf,
  transact,
  writeIf,
  type TransactItem,
} from './dynamo.ts';
import { expiresAt, expiryConditions, inPartition, isHeld, ITEM, keys, TABLE_KEYS } from './keys.ts';

type LedgerWrite = ReturnType<typeof ledgerWrite>;

/** `SET updatedAt = :now, <fields> REMOVE <fields>` with every name and value placed in the maps given. */
function fieldUpdate(names: Record<string, string>, values: Record<string, unknown>, sets: string[], set: object = {}, remove: readonly string[] = []): string {
  names['#u'] = 'updatedAt';
  sets.push('#u = :now');
  Object.entries(set).forEach(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:v${i}`] = v;
    sets.push(`#f${i} = :v${i}`);
  });
  const removes = remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  return `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`;
}

/** The condition that the order still holds `token` as its review token, when one is asked for. */
function tokenCondition(names: Record<string, string>, values: Record<string, unknown>, token: string | undefined): string[] {
  if (token === undefined) return [];
  names['#token'] = 'reviewToken';
  values[':token'] = token;
  return ['#token = :token'];
}

/**
 * The user item's debit for a new order: the doubloons, the trial video, the plan allowance and the active slot,
 * each guarded by the fact the price was based on. Fails with the user item as it is (ALL_OLD), to price again.
 */
function debit(tableName: string, account: Account, order: Order, limits: Limits, ledger: LedgerWrite): TransactItem {
  const keyed = countsAgainstKey(order);
  const { charge } = order;
  // The active slot of the key's limit is taken by API orders only; the bot's are counted apart.
  const add = [keyed ? 'activeTasks :one' : 'botOrders :one', ledger.add];
  const set: string[] = [];
  // The ledger's head as the account was read: the charge's entry follows it, and the balance is the one priced.
  const cond = keyed ? [ITEM.exists, 'activeTasks < :maxActive', ledger.condition] : [ITEM.exists, ledger.condition];
  const values: Record<string, unknown> = { ':one': 1, ':zero': 0, ...ledger.values, ...(keyed ? { ':maxActive': limits.activeTasks } : {}) };
  if (awaitsApproval(order)) {
    add.push('reviewsPending :one');
    cond.push('(attribute_not_exists(reviewsPending) OR reviewsPending < :maxPending)');
    values[':maxPending'] = limits.reviewsPending;
  }
  if (charge.cost > 0) {
    add.push('balance :debit');
    cond.push('balance >= :cost');
    values[':debit'] = -charge.cost;
    values[':cost'] = charge.cost;
  }
  if (charge.trial) {
    add.push('trialVideosLeft :minusOne');
    cond.push('trialVideosLeft > :zero');
    values[':minusOne'] = -1;
  } else {
    cond.push('trialVideosLeft <= :zero');
  }
  if (charge.heavyAllowanceMonth) {
    values[':month'] = charge.heavyAllowanceMonth;
    if (account.heavyMonth === charge.heavyAllowanceMonth) {
      add.push('heavyUsed :one');
      cond.push('heavyMonth = :month AND heavyUsed < planHeavyPerMonth');
    } else {
      set.push('heavyMonth = :month', 'heavyUsed = :one');
      cond.push('(attribute_not_exists(heavyMonth) OR heavyMonth <> :month) AND planHeavyPerMonth > :zero');
    }
  }
  return {
    Update: {
      TableName: tableName,
      Key: keys.user(account.userId),
      UpdateExpression: `${set.length ? `SET ${set.join(', ')} ` : ''}ADD ${add.join(', ')}`,
      ConditionExpression: cond.join(' AND '),
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * The `ADD` terms that give back exactly what a failed order took: its doubloons, its trial video, and its plan
 * allowance only within the month it was taken from (`heavyMonth`: the user's allowance month now).
 */
function refundOf(charge: Charge, heavyMonth: string | undefined): { add: string[]; values: Record<string, unknown> } {
  const add: string[] = [];
  const values: Record<string, unknown> = {};
  if (charge.cost) {
    add.push('balance :cost');
    values[':cost'] = charge.cost;
  }
  if (charge.trial) {
    add.push('trialVideosLeft :one');
    values[':one'] = 1;
  }
  if (charge.heavyAllowanceMonth && charge.heavyAllowanceMonth === heavyMonth) {
    add.push('heavyUsed :minusOne');
    values[':minusOne'] = -1;
  }
  return { add, values };
}

/**
 * The idempotency record of a creation: new, or in place of an expired one (TTL deletes lazily); a live one fails the
 * transaction with the record (ALL_OLD), the replay's answer.
 */
export function idempotencyPut(tableName: string, userId: string, idem: NonNullable<OrderCommit['idempotency']>, now: Date): TransactItem {
  const expiry = expiryConditions(now);
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.idempotency(userId, idem.keyHash), ...idem.record, ...expiresAt(idem.expiresAt) },
      ConditionExpression: `${ITEM.isNew} OR ${expiry.expired}`,
      ExpressionAttributeNames: expiry.names,
      ExpressionAttributeValues: expiry.values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The items of the creation transaction, by name; a cancellation is read by these names. */
type CreationItem = 'order' | 'userOrder' | 'debit' | 'postCount' | 'ledger' | 'open' | 'unstarted' | 'deadline' | 'idempotency' | 'quote';
/** The items of a status change: the order (guarded by its status) and what follows from the change. */
type TransitionItem = 'order' | 'ledger' | 'user' | 'event' | 'pending' | 'open';

export class Orders implements OrderStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(c: OrderCommit): Promise<CommitOutcome> {
    const { order, account, limits } = c;
    const { charge } = order;
    const T = this.tableName;
    const ledger = ledgerWrite(
      T,
      account.userId,
      { seq: account.ledgerSeq, balance: account.balance },
      {
        amount: -charge.cost,
        kind: 'charge',
        orderId: order.id,
        ...(charge.trial ? { trial: true } : {}),
        ...(charge.heavyAllowanceMonth ? { allowance: true } : {}),
        createdAt: order.createdAt,
      },
    );
    const items: [CreationItem, TransactItem][] = [
      ['order', { Put: { TableName: T, Item: this.item(order), ConditionExpression: ITEM.isNew } }],
      // The order in its user's partition: GET /videos lists from there, strongly consistent (an index would lag).
      ['userOrder', { Put: { TableName: T, Item: { ...keys.userOrder(account.userId, order.id), createdAt: order.createdAt } } }],
      ['debit', debit(T, account, order, limits, ledger)],
      ['ledger', ledger.put],
      // Until the order is done or in error: the sweep keeps a workflow behind it (a failed start, a dead execution).
      ['open', { Put: { TableName: T, Item: { ...keys.openOrder(order.queueShard, order.id), orderId: order.id, createdAt: order.createdAt } } }],
      // Until the creation sees its workflow start: a failed start (or a creation that died) is the audit's to start.
      ['unstarted', { Put: { TableName: T, Item: { ...keys.unstartedOrder(order.queueShard, order.id), orderId: order.id, createdAt: order.createdAt } } }],
    ];
    if (order.deadlineAt) {
      items.push([
        'deadline',
        { Put: { TableName: T, Item: { ...keys.deadline(order.queueShard, order.deadlineAt, order.id), orderId: order.id, deadlineAt: order.deadlineAt } } },
      ]);
    }
    if (c.postWindowStart !== undefined) items.push(['postCount', { Update: postCountUpdate(T, account.userId, c.postWindowStart, limits.postsPerMinute) }]);
    if (c.idempotency) {
      items.push(['idempotency', idempotencyPut(T, account.userId, c.idempotency, c.now)]);
    }

    if (c.quoteId) {
      // A quote prices one order: the first to commit uses it up, while it has not expired.
      const expiry = expiryConditions(c.now);
      items.push([
        'quote',
        {
          Update: {
            TableName: T,
            Key: keys.quote(account.userId, c.quoteId),
            UpdateExpression: 'SET orderId = :order',
            ConditionExpression: `${ITEM.exists} AND attribute_not_exists(orderId) AND ${expiry.held}`,
            ExpressionAttributeNames: expiry.names,
            ExpressionAttributeValues: { ':order': order.id, ...expiry.values },
          },
        },
      ]);
    }

    const cancelled = await transact(this.ddb, items);
    if (!cancelled) return { kind: 'created' };
    // A full minute wins: the client has to slow down whatever else failed.
    if (cancelled.failed('postCount')) return { kind: 'rate_limited' };
    if (cancelled.failed('idempotency')) return { kind: 'replay', record: recordOf<IdempotencyRecord>(cancelled.itemOf('idempotency')!) };
    if (cancelled.failed('quote')) return { kind: 'quote_used' };
    if (cancelled.failed('debit')) {
      const item = cancelled.itemOf('debit');
      return { kind: 'account_changed', account: item ? toAccount(item) : undefined };
    }
    // Another transaction held an item: try again. Anything else is thrown at once: a lasting error (ValidationError;
    // the order's own condition, its id taken, which a retry with the same id meets again) as a 500, a throttle as the
    // transient failure it is (isTransient: 503).
    if (cancelled.conflict) return { kind: 'conflict' };
    throw cancelled.error;
  }

  async transition(t: Transition): Promise<boolean> {
    let refund = t.refund;
    // The refund's entry followed a ledger head that another write has moved on: the user item as it is now.
    const movedHead = (c: Cancelled<TransitionItem> | undefined) => (refund && c?.failed('user') ? c.itemOf('user') : undefined);
    const cancelled = await retry({
      policy: CONFLICTS,
      op: async () => {
        const c = await transact(this.ddb, this.transitionItems(t, refund));
        const user = c?.failed('order') ? undefined : movedHead(c);
        // The next attempt's entry follows the head now there.
        if (user) refund = { heavyMonth: toAccount(user).heavyMonth, ledger: headOf(user) };
        return { c, moved: user !== undefined };
      },
      retryable: ({ c, moved }) => (moved ? LEDGER_MOVED : c?.conflict === true),
      exhausted: ({ c }, policy) => contended(['order transition'], c!.error, policy.attempts),
    });
    const { c } = cancelled;
    if (!c) return true;
    if (c.failed('order')) return false;
    // No refund to follow: the key is at its active limit (a review's move back to running); the caller reads the
    // order again to tell.
    if (!refund && c.failed('user')) return false;
    throw c.error;
  }

  /** The items of a status change, with the refund's ledger entry after `refund.ledger` when it refunds. */
  private transitionItems(t: Transition, refund: Transition['refund']): [TransitionItem, TransactItem][] {
    const { order } = t;
    const T = this.tableName;
    const names: Record<string, string> = { '#s': 'status' };
    const values: Record<string, unknown> = { ':from': order.status, ':to': t.to, ':now': t.now.toISOString() };
    const update = fieldUpdate(names, values, ['#s = :to'], t.set, t.remove);
    const cond = ['#s = :from', ...tokenCondition(names, values, t.reviewToken)];
    if (t.beforeRender) {
      names['#render'] = 'renderStartedAt';
      cond.push('attribute_not_exists(#render)');
    }
    const items: [TransitionItem, TransactItem][] = [
      [
        'order',
        {
          Update: {
            TableName: T,
            Key: keys.order(order.id),
            UpdateExpression: update,
            ConditionExpression: cond.join(' AND '),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
      ],
    ];
    // The key's counters follow the change: its active tasks, and its orders awaiting approval.
    const delta = counterDeltas(order, t);
    const user = refund ? refundOf(order.charge, refund.heavyMonth) : { add: [], values: {} };
    const userCond: string[] = [ITEM.exists];
    if (delta.activeTasks) {
      user.add.push('activeTasks :slot');
      user.values[':slot'] = delta.activeTasks;
      if (delta.activeTasks > 0 && t.activeLimit !== undefined) {
        userCond.push('activeTasks < :maxActive');
        user.values[':maxActive'] = t.activeLimit;
      }
    }
    if (delta.reviewsPending) {
      user.add.push('reviewsPending :pending');
      user.values[':pending'] = delta.reviewsPending;
    }
    if (refund) {
      const { charge } = order;
      const ledger = ledgerWrite(T, order.userId, refund.ledger, {
        amount: charge.cost,
        kind: 'refund',
        orderId: order.id,
        ...(charge.trial ? { trial: true } : {}),
        ...(charge.heavyAllowanceMonth && charge.heavyAllowanceMonth === refund.heavyMonth ? { allowance: true } : {}),
        ...(t.set?.error ? { reason: t.set.error.code } : {}),
        createdAt: t.now.toISOString(),
      });
      items.push(['ledger', ledger.put]);
      user.add.push(ledger.add);
      userCond.push(ledger.condition);
      Object.assign(user.values, ledger.values);
    }
    if (user.add.length) {
      items.push([
        'user',
        {
          Update: {
            TableName: T,
            Key: keys.user(order.userId),
            UpdateExpression: `ADD ${user.add.join(', ')}`,
            ConditionExpression: userCond.join(' AND '),
            ExpressionAttributeValues: user.values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ]);
    }
    if (t.event) {
      items.push(['event', { Put: { TableName: T, Item: { ...keys.orderEvent(order.id, t.event.id), ...t.event }, ConditionExpression: ITEM.isNew } }]);
      // Until its delivery settles: a delivery that fails to start, or dies, is the sweep's to start again.
      const { id: eventId, createdAt: at } = t.event;
      items.push(['pending', { Put: { TableName: T, Item: { ...keys.pendingEvent(shardOf(order.id), eventId), orderId: order.id, eventId, at } } }]);
    }
    // A closed order needs no workflow any more: the sweep stops looking at it.
    if (t.to === 'done' || t.to === 'error') items.push(['open', { Delete: { TableName: T, Key: keys.openOrder(order.queueShard, order.id) } }]);
    return items;
  }

  async patch(orderId: string, p: Patch, now: Date): Promise<boolean> {
    const names: Record<string, string> = { '#s': 'status' };
    const values: Record<string, unknown> = { ':status': p.status, ':now': now.toISOString() };
    const update = fieldUpdate(names, values, [], p.set, p.remove);
    const cond = ['#s = :status'];
    if (p.withoutScript) {
      names['#script'] = 'script';
      cond.push('attribute_not_exists(#script)');
    }
    if (p.regenNote !== undefined) {
      names['#note'] = 'regenNote';
      values[':note'] = p.regenNote;
      cond.push('#note = :note');
    }
    cond.push(...tokenCondition(names, values, p.reviewToken));
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.order(orderId),
          UpdateExpression: update,
          ConditionExpression: cond.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

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

  async idempotency(userId: string, keyHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.idempotency(userId, keyHash), ConsistentRead: true }));
    if (!out.Item || !isHeld(out.Item, now)) return undefined;
    return recordOf<IdempotencyRecord>(out.Item);
  }

  async get(orderId: string): Promise<Order | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.order(orderId), ConsistentRead: true }));
    return out.Item ? recordOf<Order>(out.Item) : undefined;
  }

  /** The events recorded for an order, oldest first. */
  async events(orderId: string): Promise<OrderEvent[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...inPartition(keys.order(orderId).PK, keys.orderEventPrefix),
      ConsistentRead: true,
    });
    return items.map((i) => recordOf<OrderEvent>(i)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async ofUser(userId: string, range: { from?: string; below?: string; limit: number }): Promise<{ orders: Order[]; more: boolean }> {
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
    const byId = new Map(found.map((i) => [i.id as string, recordOf<Order>(i)]));
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

  private item(order: Order) {
    return { ...keys.order(order.id), ...keys.orderByUser(order.userId, order.id), ...order };
  }
}
