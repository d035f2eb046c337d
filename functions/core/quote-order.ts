/**
 * POST /videos:quote: what an order would cost this account now, item by item, and a quote (quote_id) that holds that
 * price for QUOTE_TTL_MS for one order of the same request; and the charge of an order placed with a quote.
 */
import type { OrderParams, QuoteResponse } from '../contract/orders.ts';
import { insufficientFunds, quoteInvalid } from './errors.ts';
import { type Lane, laneOf } from './capacity.ts';
import { type QueueViews, queuedEta } from './eta.ts';
import { expiryOf, QUOTE_TTL_MS } from './expiry.ts';
import { newQuoteId } from './ids.ts';
import { askedOrder, type OrderRequest, type RequestDeps, requestHashes } from './order-request.ts';
import { type Channel, countsAgainstKey } from './orders.ts';
import { type Account, breakdownOf, type Charge, checkKeyLimits, heavyLeft, type Limits, type Prices, priceOf } from './pricing.ts';

/** A quote: a binding price, kept until it expires or an order uses it. */
export interface Quote {
  id: string;
  userId: string;
  /** The hash of the request it prices (order-request.ts `requestHashes().priced`). */
  pricedHash: string;
  charge: Charge;
  createdAt: string;
  expiresAt: string;
  /** The order that used it. */
  orderId?: string;
}

export interface QuoteStore {
  save(quote: Quote): Promise<void>;
  /** The user's quote, unless it has expired. */
  get(userId: string, quoteId: string, now: Date): Promise<Quote | undefined>;
}

export interface QuoteInput {
  account: Account;
  channel?: Channel;
  request: OrderRequest;
  now: Date;
}

export interface OrderQuotingPorts extends RequestDeps {
  quotes: QuoteStore;
  /** Each lane's render queue as this process sees it, for eta_seconds (a test-mode order's is the test lane's). */
  queues: Readonly<Record<Lane, Pick<QueueViews, 'view'>>>;
  prices: Prices;
}

export class OrderQuoting {
  constructor(private readonly deps: OrderQuotingPorts) {}

  /**
   * Nothing is charged; a request the creation would refuse for what it asks (an extra no provider makes, a used-up
   * allowance) is refused alike. A balance too small is not: the quote says the price.
   */
  async quote(input: QuoteInput): Promise<QuoteResponse> {
    const channel = input.channel ?? 'api';
    const asked = askedOrder(this.deps, input.request);
    const charge = priceOf(asked.params, input.account, input.now, this.deps.prices);
    const view = await this.deps.queues[laneOf({ charge })].view();
    const keyActive = countsAgainstKey({ channel }) ? input.account.activeTasks : undefined;
    const eta = queuedEta(view, { id: 'quote', channel, videoSeconds: asked.params.duration_seconds, keyActive }, input.now.getTime());
    const quote: Quote = {
      id: newQuoteId(),
      userId: input.account.userId,
      pricedHash: requestHashes(input.request, asked, channel).priced,
      charge,
      createdAt: input.now.toISOString(),
      expiresAt: expiryOf(input.now, QUOTE_TTL_MS).toISOString(),
    };
    await this.deps.quotes.save(quote);
    const { cost, ...breakdown } = breakdownOf(charge, this.deps.prices);
    const { billing: _b, ...params } = asked.params;
    return { quote_id: quote.id, cost, breakdown, params, eta_seconds: eta, expires_at: quote.expiresAt };
  }
}

/**
 * The quote's charge for this account now, or the refusal: 409 quote_invalid when the quote is gone or was made for
 * another request, or relied on a trial video or a plan allowance that is no longer there; the slots and the balance
 * as for any order. Its price holds even if the price list changed since.
 */
export function quotedCharge(
  quote: Quote | undefined,
  pricedHash: string,
  params: OrderParams,
  account: Account,
  limits: Limits,
  now: Date,
  retryAfter: number,
): Charge {
  if (!quote) throw quoteInvalid('is unknown or has expired (a quote holds for 15 minutes)');
  if (quote.orderId) throw quoteInvalid(`was used by order ${quote.orderId}`);
  if (quote.pricedHash !== pricedHash) throw quoteInvalid('was made for a different request');
  const { charge } = quote;
  checkKeyLimits(params, account, limits, retryAfter);
  if (charge.trial !== account.trialVideosLeft > 0)
    throw quoteInvalid(charge.trial ? 'counted on a trial video that is used up' : 'was made before a trial video was added');
  if (charge.heavyAllowanceMonth && (charge.heavyAllowanceMonth !== now.toISOString().slice(0, 7) || !heavyLeft(account, now))) {
    throw quoteInvalid("counted on the plan's allowance, which is used up or has renewed");
  }
  if (charge.cost > account.balance) throw insufficientFunds(charge.cost, account.balance);
  return charge;
}
