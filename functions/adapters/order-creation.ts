/** The creation transaction of an order: the order, its charge, its markers, and its idempotency record and quote. */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awaitsApproval, countedIn, countsAgainstKey, type Order } from '../core/orders.ts';
import { shardOf } from '../core/ids.ts';
import type { CommitOutcome, IdempotencyRecord, OrderCommit, OrderEvent } from '../core/ports.ts';
import { type Account, type Limits, movesMoney } from '../core/pricing.ts';
import { ledgerWrite, postCountUpdate } from './accounts.ts';
import { transact, type TransactItem, updateExpression } from './dynamo.ts';
import { idempotencyRecordOf, accountOf } from './records.ts';
import { expiresAt, expiryConditions, isHeld, ITEM, keys } from './keys.ts';

type LedgerWrite = ReturnType<typeof ledgerWrite>;

/** An item's update as terms: added, set, the conditions, and their values. */
interface Terms {
  add: string[];
  set: string[];
  cond: string[];
  values: Record<string, unknown>;
}

/**
 * The key's counters a new order takes, on the user item they are counted in (orders.ts countedIn: a test-mode order's
 * live account): an active task (not for the bot's orders) and an order awaiting approval, each under its limit.
 */
function counters(order: Order, limits: Limits): Terms {
  const keyed = countsAgainstKey(order);
  const t: Terms = { add: [], set: [], cond: [ITEM.exists], values: {} };
  if (keyed) {
    t.add.push('activeTasks :one');
    t.cond.push('activeTasks < :maxActive');
    t.values[':one'] = 1;
    t.values[':maxActive'] = limits.activeTasks;
  }
  if (awaitsApproval(order)) {
    t.add.push('reviewsPending :one');
    t.values[':one'] = 1;
    t.cond.push('(attribute_not_exists(reviewsPending) OR reviewsPending < :maxPending)');
    t.values[':maxPending'] = limits.reviewsPending;
  }
  return t;
}

/**
 * The user item's debit for a new order: the doubloons, the trial video, the plan allowance, the key's monthly spend,
 * each guarded by the fact the price was based on (the low-balance alert too, which decided whether the charge crosses
 * its threshold), and a crossing noted (its event is put beside); with the key's counters when they are counted on the
 * same item, else those on their own item (`limits`). Fails with the user item as it is (ALL_OLD), to price again.
 */
function debit(
  tableName: string,
  account: Account,
  order: Order,
  limits: Limits,
  ledger: LedgerWrite | undefined,
  alert: OrderEvent | undefined,
): [CreationItem, TransactItem][] {
  const t: Terms = { add: [], set: [], cond: [ITEM.exists], values: { ':zero': 0 } };
  // The ledger's head as the account was read: the charge's entry follows it, and the balance is the one priced.
  if (ledger) {
    t.add.push(ledger.add);
    t.cond.push(ledger.condition);
    Object.assign(t.values, ledger.values);
  }
  moneyTerms(t, order.charge);
  allowanceTerms(t, account, order.charge);
  spendTerms(t, account, order.charge);
  alertTerms(t, account, order.charge, alert);
  const shared = counters(order, limits);
  if (countedIn(order) === account.userId) {
    t.add.push(...shared.add);
    t.cond.push(...shared.cond.filter((c) => c !== ITEM.exists));
    Object.assign(t.values, shared.values);
    return [['debit', termsUpdate(tableName, account.userId, t)]];
  }
  return [
    ['debit', termsUpdate(tableName, account.userId, t)],
    ['limits', termsUpdate(tableName, countedIn(order), shared)],
  ];
}

/** The doubloons (none below the cost) and the trial video (the charge used one, or none was left). */
function moneyTerms({ add, cond, values }: Terms, charge: Order['charge']): void {
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
}

/** The plan's heavy allowance of the month: this month's counter, or one started anew. */
function allowanceTerms({ add, set, cond, values }: Terms, account: Account, charge: Order['charge']): void {
  if (!charge.heavyAllowanceMonth) return;
  values[':month'] = charge.heavyAllowanceMonth;
  values[':one'] = 1;
  if (account.heavyMonth === charge.heavyAllowanceMonth) {
    add.push('heavyUsed :one');
    cond.push('heavyMonth = :month AND heavyUsed < planHeavyPerMonth');
  } else {
    set.push('heavyMonth = :month', 'heavyUsed = :one');
    cond.push('(attribute_not_exists(heavyMonth) OR heavyMonth <> :month) AND planHeavyPerMonth > :zero');
  }
}

/**
 * The key's monthly spend. As the allowance's month: the counter is this month's, or starts anew; the limit is the one
 * priced against, and what the month has spent still leaves room for this charge, so concurrent orders never pass it
 * together.
 */
function spendTerms({ add, set, cond, values }: Terms, account: Account, charge: Order['charge']): void {
  if (!charge.spendMonth) return;
  values[':spendMonth'] = charge.spendMonth;
  values[':spent'] = charge.cost;
  if (account.spendMonth === charge.spendMonth) {
    add.push('spentInMonth :spent');
    cond.push('spendMonth = :spendMonth');
    if (account.spendLimit !== undefined) {
      cond.push('spentInMonth <= :room');
      values[':room'] = account.spendLimit - charge.cost;
    }
  } else {
    set.push('spendMonth = :spendMonth', 'spentInMonth = :spent');
    cond.push('(attribute_not_exists(spendMonth) OR spendMonth <> :spendMonth)');
  }
  if (account.spendLimit !== undefined) {
    cond.push('spendLimit = :spendLimit');
    values[':spendLimit'] = account.spendLimit;
  } else {
    cond.push('attribute_not_exists(spendLimit)');
  }
}

/**
 * The low-balance alert as read, from which (with the balance the ledger's condition holds) the crossing was decided,
 * either way: an alert set, moved, removed or re-armed since fails the debit, and the creation prices again. A
 * crossing is noted.
 */
function alertTerms({ add, set, cond, values }: Terms, account: Account, charge: Order['charge'], alert: OrderEvent | undefined): void {
  if (charge.cost > 0) {
    if (account.lowBelow === undefined) cond.push('attribute_not_exists(lowBelow)');
    else {
      cond.push('lowBelow = :lowBelow');
      values[':lowBelow'] = account.lowBelow;
    }
    cond.push(account.lowAlertSent ? 'attribute_exists(lowAlertSent)' : 'attribute_not_exists(lowAlertSent)');
  }
  if (alert) {
    set.push('lowAlertSent = :true');
    add.push('lowAlerts :one');
    values[':one'] = 1;
    values[':true'] = true;
  }
}

/** The update of a user item by its terms (a condition check when it has nothing to write), failing with the item (ALL_OLD). */
function termsUpdate(tableName: string, userId: string, t: Terms): TransactItem {
  const check = {
    TableName: tableName,
    Key: keys.user(userId),
    ConditionExpression: t.cond.join(' AND '),
    ...(Object.keys(t.values).length ? { ExpressionAttributeValues: t.values } : {}),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  if (!t.add.length && !t.set.length) return { ConditionCheck: check };
  return {
    Update: {
      ...check,
      UpdateExpression: updateExpression(t.set, t.add),
    },
  };
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

/**
 * A recorded event and its pending marker (until its delivery settles, the sweep keeps a workflow behind it): put with
 * the write that causes it, a status change or a charge crossing the low-balance threshold.
 */
export function eventPuts(tableName: string, event: OrderEvent): [['event', TransactItem], ['pending', TransactItem]] {
  const { id: eventId, orderId, createdAt: at } = event;
  return [
    ['event', { Put: { TableName: tableName, Item: { ...keys.event(orderId, eventId), ...event }, ConditionExpression: ITEM.isNew } }],
    ['pending', { Put: { TableName: tableName, Item: { ...keys.pendingEvent(shardOf(orderId), eventId), orderId, eventId, at } } }],
  ];
}

/** The items of the creation transaction, by name; a cancellation is read by these names. */
type CreationItem =
  | 'order'
  | 'userOrder'
  | 'debit'
  | 'limits'
  | 'postCount'
  | 'ledger'
  | 'open'
  | 'unstarted'
  | 'deadline'
  | 'idempotency'
  | 'quote'
  | 'event'
  | 'pending';

export class OrderCreations {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(c: OrderCommit): Promise<CommitOutcome> {
    const { order, account, limits } = c;
    const { charge } = order;
    const T = this.tableName;
    // A test-mode order moves no money: no ledger entry (its account's ledger stays empty).
    const ledger = !movesMoney(charge)
      ? undefined
      : ledgerWrite(
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
      ...debit(T, account, order, limits, ledger, c.event),
      ...(ledger ? [['ledger', ledger.put] as [CreationItem, TransactItem]] : []),
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
    if (c.event) items.push(...eventPuts(T, c.event));
    // In the window of the account whose limits it counts in (a test-mode key's live one).
    if (c.postWindowStart !== undefined) items.push(['postCount', { Update: postCountUpdate(T, countedIn(order), c.postWindowStart, limits.postsPerMinute) }]);
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
    if (cancelled.failed('idempotency')) return { kind: 'replay', record: idempotencyRecordOf(cancelled.itemOf('idempotency')!) };
    if (cancelled.failed('quote')) return { kind: 'quote_used' };
    if (cancelled.failed('debit') || cancelled.failed('limits')) {
      const item = cancelled.failed('debit') ? cancelled.itemOf('debit') : undefined;
      const moved = cancelled.failed('debit') ? item && accountOf(item) : account;
      // The counters on the live account as they are: priced again against them, the key's limit answers (429).
      const live = cancelled.failed('limits') ? cancelled.itemOf('limits') : undefined;
      if (cancelled.failed('limits') && !live) return { kind: 'account_changed', account: undefined };
      const counted = live ? { activeTasks: Number(live.activeTasks ?? 0), reviewsPending: Number(live.reviewsPending ?? 0) } : {};
      return { kind: 'account_changed', account: moved && { ...moved, ...counted } };
    }
    // Another transaction held an item: try again. Anything else is thrown at once: a lasting error (ValidationError;
    // the order's own condition, its id taken, which a retry with the same id meets again) as a 500, a throttle as the
    // transient failure it is (isTransient: 503).
    if (cancelled.conflict) return { kind: 'conflict' };
    throw cancelled.error;
  }

  async idempotency(userId: string, keyHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.idempotency(userId, keyHash), ConsistentRead: true }));
    if (!out.Item || !isHeld(out.Item, now)) return undefined;
    return idempotencyRecordOf(out.Item);
  }

  private item(order: Order) {
    return { ...keys.order(order.id), ...keys.orderByUser(order.userId, order.id), ...order };
  }
}
