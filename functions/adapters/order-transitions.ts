/** An order's status changes (with their refund, counters and event) and its field changes within a status. */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { countedIn, counterDeltas } from '../core/orders.ts';
import type { Patch, Transition } from '../core/ports.ts';
import { type Charge, refundsSpend } from '../core/pricing.ts';
import { realSleep, retry, type Sleep } from '../core/retry.ts';
import { LEDGER_MOVED } from '../core/transactions.ts';
import { headOf, ledgerWrite } from './accounts.ts';
import { accountOf } from './records.ts';
import { type Cancelled, CONFLICTS, contended, transact, type TransactItem, writeIf } from './dynamo.ts';
import { ITEM, keys } from './keys.ts';
import { eventPuts } from './order-creation.ts';

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
 * The `ADD` terms that give back exactly what a failed order took: its doubloons, its trial video, its plan allowance
 * only within the month it was taken from (`heavyMonth`: the user's allowance month now), and its key spend likewise.
 */
function refundOf(charge: Charge, refund: NonNullable<Transition['refund']>, now: Date): { add: string[]; values: Record<string, unknown> } {
  const { heavyMonth } = refund;
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
  // The key's spend, within the month it counted in (the ledger's condition holds the counter's month as read).
  if (refundsSpend(charge, refund.spendMonth, now)) {
    add.push('spentInMonth :unspent');
    values[':unspent'] = -charge.cost;
  }
  return { add, values };
}

/** The items of a status change: the order (guarded by its status) and what follows from the change. */
type TransitionItem = 'order' | 'ledger' | 'user' | 'event' | 'pending' | 'open' | 'deadline';

export class OrderTransitions {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: Sleep = realSleep,
  ) {}

  async transition(t: Transition): Promise<boolean> {
    let refund = t.refund;
    // The refund's entry followed a ledger head that another write has moved on: the user item as it is now.
    const movedHead = (c: Cancelled<TransitionItem> | undefined) => (refund && c?.failed('user') ? c.itemOf('user') : undefined);
    const cancelled = await retry({
      policy: CONFLICTS,
      sleep: this.sleep,
      op: async () => {
        const c = await transact(this.ddb, this.transitionItems(t, refund));
        const user = c?.failed('order') ? undefined : movedHead(c);
        // The next attempt's entry follows the head now there.
        if (user) {
          const now = accountOf(user);
          refund = { heavyMonth: now.heavyMonth, spendMonth: now.spendMonth, ledger: headOf(user) };
        }
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
    // The key's counters follow the change: its active tasks, and its orders awaiting approval, on the user item they
    // are counted in (a test-mode order's live account's; only a live order has a refund, on its own).
    const delta = counterDeltas(order, t);
    const user = refund ? refundOf(order.charge, refund, t.now) : { add: [], values: {} };
    const userCond: string[] = [ITEM.exists];
    if (delta.activeTasks) {
      user.add.push('activeTasks :active');
      user.values[':active'] = delta.activeTasks;
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
            Key: keys.user(countedIn(order)),
            UpdateExpression: `ADD ${user.add.join(', ')}`,
            ConditionExpression: userCond.join(' AND '),
            ExpressionAttributeValues: user.values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ]);
    }
    // Until its delivery settles: a delivery that fails to start, or dies, is the sweep's to start again.
    if (t.event) items.push(...eventPuts(T, t.event));
    // A closed order needs no workflow any more, nor its deadline: the sweep stops looking at it. (No condition: a
    // marker already gone is fine.)
    if (t.to === 'done' || t.to === 'error') {
      items.push(['open', { Delete: { TableName: T, Key: keys.openOrder(order.queueShard, order.id) } }]);
      if (order.deadlineAt) items.push(['deadline', { Delete: { TableName: T, Key: keys.deadline(order.queueShard, order.deadlineAt, order.id) } }]);
    }
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
}
