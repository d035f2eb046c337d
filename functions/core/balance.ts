/**
 * The balance as a key sees it, and its spend controls: the monthly spend limit the operator sets (the creation's
 * transaction enforces it: pricing.ts withinSpendLimit) and the key's low-balance alert (balance.low, recorded with the
 * charge that crosses the threshold, in the same transaction).
 */
import { BALANCE_LOW, type BalanceLowEvent, type BalanceResponse } from '../contract/balance.ts';
import { notFound } from './errors.ts';
import type { AccountStore, OrderEvent } from './ports.ts';
import { type Account, heavyLeft, isLive, monthOf, spentIn } from './pricing.ts';
import { present } from './present.ts';

export function balanceView(account: Account, now: Date): BalanceResponse {
  const heavy = heavyLeft(account, now);
  const month = monthOf(now);
  return {
    balance: account.balance,
    trial_videos_left: account.trialVideosLeft,
    ...(account.plan ? { plan: account.plan.name, heavy_videos_left: heavy ?? 0 } : {}),
    livemode: isLive(account),
    spend: { month, spent: spentIn(account, month), ...present({ limit: account.spendLimit }) },
    ...(account.lowBelow !== undefined ? { low_balance_alert: { below: account.lowBelow, sent: account.lowAlertSent === true } } : {}),
  };
}

/**
 * Whether a charge of `cost` crosses the key's low-balance threshold: it leaves the balance below it while the alert
 * is armed (set, or lifted by a top-up since it was last sent). A free order charges nothing and crosses nothing.
 */
export const crossesLowBalance = (account: Account, cost: number) =>
  cost > 0 && account.lowBelow !== undefined && !account.lowAlertSent && account.balance - cost < account.lowBelow;

/** Whether a top-up that leaves `balanceAfter` re-arms a sent alert: it lifts the balance to the threshold or more. */
export const rearmsLowBalance = (account: Pick<Account, 'lowBelow' | 'lowAlertSent'>, balanceAfter: number) =>
  account.lowAlertSent === true && account.lowBelow !== undefined && balanceAfter >= account.lowBelow;

/**
 * The balance.low event of a crossing charge, recorded with it. Its id is the user's (the event is stored in the user's
 * partition: keys.ts `event`) and the crossing's number, so a retried creation records the same crossing once.
 */
export function balanceLowEvent(account: Account, cost: number, orderId: string, now: Date): OrderEvent {
  const id = `${account.userId}:${BALANCE_LOW}:${(account.lowAlerts ?? 0) + 1}`;
  const body: BalanceLowEvent = {
    id,
    object: 'event',
    type: BALANCE_LOW,
    balance: account.balance - cost,
    threshold: account.lowBelow!,
    order_id: orderId,
    created_at: now.toISOString(),
    livemode: true,
  };
  return { id, type: BALANCE_LOW, orderId: account.userId, userId: account.userId, record: body, createdAt: now.toISOString() };
}

/** POST /balance/alerts: the key's threshold set (and armed) or removed; the balance as GET /balance answers it after. */
export async function setBalanceAlert(
  p: { accounts: Pick<AccountStore, 'setLowBalanceAlert'> },
  userId: string,
  below: number | null,
  now: Date,
): Promise<BalanceResponse> {
  const account = await p.accounts.setLowBalanceAlert(userId, below ?? undefined);
  if (!account) throw notFound('user');
  return balanceView(account, now);
}
