/**
 * Prices, trial and plans. One table of prices; one function decides what an order costs
 * and what it consumes, so the transaction that charges it only has to guard the same facts with conditions.
 */
import type { OrderParams } from '../contract/orders.ts';
import { activeTasksExceeded, fairUseExceeded, insufficientFunds, reviewLimitExceeded, spendLimitExceeded } from './errors.ts';

export const DEFAULT_PRICES = { base: 100, placement: 50, ai_visual: 100, song: 70, voice_clone: 100 } as const;
export type Extra = Exclude<keyof typeof DEFAULT_PRICES, 'base'>;
/** Doubloons per item; a deployment may set its own (PRICES). */
export type Prices = Record<keyof typeof DEFAULT_PRICES, number>;

/** A deployment's prices: the defaults with the items `given` names, each a non-negative integer. */
export function pricesFrom(given: object, setting: string): Prices {
  const out: Prices = { ...DEFAULT_PRICES };
  for (const [k, n] of Object.entries(given)) {
    if (!(k in DEFAULT_PRICES)) throw new Error(`Setting ${setting} names an unknown item "${k}"`);
    if (!Number.isInteger(n) || (n as number) < 0) throw new Error(`Setting ${setting}: ${k} must be a non-negative integer`);
    out[k as keyof Prices] = n as number;
  }
  return out;
}
const HEAVY: ReadonlySet<Extra> = new Set(['ai_visual', 'song', 'voice_clone']);

/** The parameters an order's charge was computed from: its extras (extrasOf) and how it is paid. */
const PRICED = ['placement', 'ai_visual', 'music', 'voice', 'billing'] as const satisfies readonly (keyof OrderParams)[];

/**
 * `proposed` with the charged order's priced parameters: a plan refines what an order does not pay for (topic,
 * duration, tone, ...), never what it was charged for, whatever the planner proposes.
 */
export function keepPriced(proposed: OrderParams, charged: OrderParams): OrderParams {
  const out: Partial<Record<keyof OrderParams, unknown>> = { ...proposed };
  for (const k of PRICED) {
    if (charged[k] === undefined) delete out[k];
    else out[k] = charged[k];
  }
  return out as OrderParams;
}

export interface Limits {
  activeTasks: number;
  postsPerMinute: number;
  /** Director-mode orders a key may hold before their approval (awaiting review, or on their way to it). */
  reviewsPending: number;
  /** Keyed GETs per minute: ten a second, which a client polling as the answers' Retry-After says never meets. */
  getsPerMinute: number;
}
export const DEFAULT_LIMITS: Limits = { activeTasks: 10, postsPerMinute: 30, reviewsPending: 20, getsPerMinute: 600 };

/** What the billing rules need to know about a user; read once per request. */
export interface Account {
  userId: string;
  balance: number;
  trialVideosLeft: number;
  plan?: { name: string; heavyPerMonth: number };
  /** Heavy videos taken from the plan's allowance in `heavyMonth` (YYYY-MM, UTC). */
  heavyMonth?: string;
  heavyUsed: number;
  activeTasks: number;
  /** The key's director-mode orders not yet approved (orders.ts `awaitsApproval`). */
  reviewsPending?: number;
  /** The entries of the user's ledger: a balance change writes the next, on condition that this is still the count. */
  ledgerSeq: number;
  /** A test-mode account: the live account whose test key it serves (its orders cost nothing and move no money). */
  testOf?: string;
  /** A live account's test-mode account, once its first test key was issued. */
  testAccount?: string;
  /** The operator's cap on what the key's orders charge in a UTC month (doubloons); none when absent. */
  spendLimit?: number;
  /** What the key's orders charged in `spendMonth` (YYYY-MM, UTC), refunds given back within that month deducted. */
  spendMonth?: string;
  spentInMonth?: number;
  /** The key's low-balance alert (POST /balance/alerts): its threshold, whether balance.low was sent and waits for a top-up, and how many were sent. */
  lowBelow?: number;
  lowAlertSent?: boolean;
  lowAlerts?: number;
}

/** Whether money moves for this account: never in test mode (docs/decisions.md "Test mode"). */
export const isLive = (account: Pick<Account, 'testOf'>) => account.testOf === undefined;

/** What one order takes from the account; a refund gives back exactly this. */
export interface Charge {
  cost: number;
  trial: boolean;
  /** The month whose plan allowance this order used, when it used one. */
  heavyAllowanceMonth?: string;
  extras: Extra[];
  /** A test-mode order's: nothing taken, no ledger entry, nothing to refund. */
  test?: true;
  /** The month whose key spend this charge counted in (an API order's that cost something): a refund in it gives it back. */
  spendMonth?: string;
}

/** Whether the charge moves money (a ledger entry, a refund): every charge but a test-mode order's. */
export const movesMoney = (charge: Pick<Charge, 'test'>) => charge.test !== true;

export const monthOf = (now: Date) => now.toISOString().slice(0, 7);

export function extrasOf(p: Pick<OrderParams, 'placement' | 'ai_visual' | 'music' | 'voice'>): Extra[] {
  const extras: Extra[] = [];
  if (p.placement) extras.push('placement');
  if (p.ai_visual) extras.push('ai_visual');
  if (p.music === 'song') extras.push('song');
  if (p.voice === 'clone') extras.push('voice_clone');
  return extras;
}

export function heavyLeft(account: Account, now: Date): number | undefined {
  if (!account.plan) return undefined;
  const used = account.heavyMonth === monthOf(now) ? account.heavyUsed : 0;
  return Math.max(0, account.plan.heavyPerMonth - used);
}

/**
 * What an order of these parameters costs this account and what it takes (a trial video, the plan's allowance), or
 * 409 fair_use_exceeded when it needs an allowance that is used up. Neither the balance nor the slots are looked at.
 */
export function priceOf(params: OrderParams, account: Account, now: Date, prices: Prices = DEFAULT_PRICES): Charge {
  const extras = extrasOf(params);
  // Test mode: nothing is charged, and neither a trial video nor the plan's allowance is taken.
  if (!isLive(account)) return { cost: 0, trial: false, extras, test: true };
  const heavy = extras.some((e) => HEAVY.has(e));
  const trial = account.trialVideosLeft > 0;
  let heavyAllowanceMonth: string | undefined;
  if (heavy && params.billing !== 'doubloons' && account.plan) {
    if (!heavyLeft(account, now)) throw fairUseExceeded(account.plan.name);
    heavyAllowanceMonth = monthOf(now);
  }
  const { cost } = breakdownOf({ trial, extras, ...(heavyAllowanceMonth ? { heavyAllowanceMonth } : {}) }, prices);
  return { cost, trial, extras, ...(heavyAllowanceMonth ? { heavyAllowanceMonth } : {}) };
}

/** A charge item by item: the base (0 with a trial video) and each extra (0 when the plan's allowance covers it). */
export function breakdownOf(c: Omit<Charge, 'cost'>, prices: Prices) {
  const base = c.trial || c.test ? 0 : prices.base;
  const extras = Object.fromEntries(c.extras.map((e) => [e, c.test || (c.heavyAllowanceMonth && HEAVY.has(e)) ? 0 : prices[e]])) as Partial<
    Record<Extra, number>
  >;
  return { cost: base + Object.values(extras).reduce((a, b) => a + b, 0), base, extras, trial: c.trial, plan_allowance: c.heavyAllowanceMonth !== undefined };
}

/** The key's limits an order must fit: its active tasks and, in director mode, the orders waiting for review. */
export function checkKeyLimits(params: Pick<OrderParams, 'director_mode'>, account: Account, limits: Limits, retryAfter: number): void {
  if (account.activeTasks >= limits.activeTasks) throw activeTasksExceeded(retryAfter, limits.activeTasks);
  if (params.director_mode && (account.reviewsPending ?? 0) >= limits.reviewsPending) throw reviewLimitExceeded(limits.reviewsPending);
}

/**
 * What an order charges this account, or the error the client gets: 429 active_tasks_exceeded,
 * 409 review_limit_exceeded, 409 fair_use_exceeded or 402 insufficient_funds. (A quote, quote-order.ts, is the
 * binding offer of a price; this is the computation.)
 */
export function chargeFor(params: OrderParams, account: Account, limits: Limits, now: Date, retryAfter: number, prices: Prices = DEFAULT_PRICES): Charge {
  checkKeyLimits(params, account, limits, retryAfter);
  const charge = priceOf(params, account, now, prices);
  if (charge.cost > account.balance) throw insufficientFunds(charge.cost, account.balance);
  return charge;
}

/** What the key's orders charged in `month`. */
export const spentIn = (account: Pick<Account, 'spendMonth' | 'spentInMonth'>, month: string) =>
  account.spendMonth === month ? (account.spentInMonth ?? 0) : 0;

/**
 * An API order's charge held to the key's monthly spend limit (402 spend_limit_exceeded when it would pass it), with
 * the month it counts in when it costs something. The bot's orders are not counted (docs/decisions.md, Spend controls).
 */
export function withinSpendLimit(charge: Charge, account: Account, now: Date): Charge {
  if (charge.cost === 0) return charge;
  const month = monthOf(now);
  const spent = spentIn(account, month);
  if (account.spendLimit !== undefined && spent + charge.cost > account.spendLimit) throw spendLimitExceeded(charge.cost, spent, account.spendLimit, month);
  return { ...charge, spendMonth: month };
}

/** Whether a refund at `now` gives a charge's spend back: only within the month it counted in, while the key's counter is that month's. */
export const refundsSpend = (charge: Pick<Charge, 'spendMonth'>, counterMonth: string | undefined, now: Date) =>
  charge.spendMonth !== undefined && charge.spendMonth === counterMonth && charge.spendMonth === monthOf(now);
