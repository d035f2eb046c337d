/**
 * Creating an order: price it, then commit everything in one transaction whose conditions guard the facts the price
 * was based on. A failed condition re-prices from the account as it is now, so concurrency never charges twice and
 * never lets a balance go below zero.
 */
import { createHash } from 'node:crypto';
import type { CreationResponse, OrderParams, QuoteResponse } from '../contract/orders.ts';
import { AppError, InvalidParams, insufficientFunds, maxCostExceeded, quoteInvalid, rateLimited, serviceUnavailable, unauthorized } from './errors.ts';
import { newOrderId, newQuoteId, shardOf } from './ids.ts';
import { resolveLanguage } from './language.ts';
import { minuteWindow, type Throughput } from './limits.ts';
import { type QueueViews, queuedEta } from './eta.ts';
import { type Channel, countsAgainstKey, type Order } from './orders.ts';
import type { Deliverable } from './generator.ts';
import type { IdempotencyRecord, Metrics, OrderStore, StoredQuote, Workflow } from './ports.ts';
import { retry } from './retry.ts';
import { expiryOf, IDEMPOTENCY_TTL_MS, QUOTE_TTL_MS } from './expiry.ts';
import { ACCOUNT_CONFLICTS, LEDGER_MOVED } from './transactions.ts';
import { type Account, breakdownOf, type Charge, checkKeyLimits, heavyLeft, type Limits, type Prices, priceOf, quote } from './pricing.ts';

/** What a client asked for, on one of the two creation routes. */
export type OrderRequest = ({ route: 'POST /videos'; params: OrderParams } | { route: 'POST /videos:quick'; prompt: string; director_mode?: boolean }) & {
  /** Seconds after which the order, unless done, is canceled and refunded. */
  deadlineSeconds?: number;
  /** The quote to be charged by (POST /videos:quote for the same request). */
  quoteId?: string;
  /** The most the order may cost. */
  maxCost?: number;
};

export interface CreateOrderInput {
  account: Account;
  /** `api` unless the operators' bot places the order. */
  channel?: Channel;
  request: OrderRequest;
  idempotencyKey?: string;
  now: Date;
}

export interface CreateOrderResult {
  response: CreationResponse;
  replayed: boolean;
  /** Whether this POST was counted in its rate window by the transaction (a replay is counted by the caller). */
  counted: boolean;
}

/**
 * Prices a prompt: the parameters a quick order is charged for. It must be deterministic (the same prompt, the same
 * parameters, so a repeat is recognised and priced alike) and fast, since it runs inside the creation request.
 */
export type PromptPlanner = (prompt: string) => OrderParams;

export interface OrderCreationDeps {
  orders: OrderStore;
  /** The render queue as this process sees it, for eta_seconds. */
  queue: Pick<QueueViews, 'view' | 'drop'>;
  planPrompt: PromptPlanner;
  /** What the configured generator delivers of the paid extras: the others are refused before any charge. */
  deliverable: Deliverable;
  workflow: Workflow;
  /**
   * Queues an order that needs a render slot before anything else (any order but a director-mode one): its admission
   * starts its execution (core/capacity.ts START_AT_ADMISSION), so none runs while it waits.
   */
  admission: { enqueue(order: Order): Promise<void> };
  limits: Limits;
  prices: Prices;
  throughput: Throughput;
  metrics: Metrics;
  log: { error(message: string, ...extra: Record<string, unknown>[]): void };
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** What a quote binds: the route, the prompt and the parameters priced (not the order's options). */
const quoteHash = (route: OrderRequest['route'], asked: Pick<Order, 'prompt' | 'params'>) =>
  sha256(JSON.stringify([route, asked.prompt ?? null, asked.params]));

export class OrderCreation {
  constructor(private readonly deps: OrderCreationDeps) {}

  async create(input: CreateOrderInput): Promise<CreateOrderResult> {
    const outcome = await this.commit(input, this.orderOf(input.request));
    if (outcome.kind === 'created') {
      this.deps.metrics.count('OrdersCreated');
      // The order is committed and charged and stays queued: should its start fail, its unstarted marker stays and the
      // audit sweep starts it (as does a repeat of the same Idempotency-Key).
      await this.start(outcome.order);
      return { response: outcome.response, replayed: false, counted: true };
    }
    return this.replay(outcome.record.orderId, outcome.record.response);
  }

  /**
   * POST /videos:quote: what the order would cost this account now, item by item, held for QUOTE_TTL_MS by a quote an
   * order of the same request can be charged by. Nothing is charged; a request the creation would refuse for what it
   * asks (an extra no provider makes, a used-up allowance) is refused alike.
   */
  async quote(input: Omit<CreateOrderInput, 'idempotencyKey'>): Promise<QuoteResponse> {
    const asked = this.orderOf(input.request);
    const charge = priceOf(asked.params, input.account, input.now, this.deps.prices);
    const channel = input.channel ?? 'api';
    const videoSeconds = asked.params.duration_seconds;
    const eta = queuedEta(await this.deps.queue.view(), { id: 'quote', channel, videoSeconds }, input.now.getTime());
    const stored: StoredQuote = {
      id: newQuoteId(),
      userId: input.account.userId,
      requestHash: quoteHash(input.request.route, asked),
      charge,
      createdAt: input.now.toISOString(),
      expiresAt: expiryOf(input.now, QUOTE_TTL_MS).toISOString(),
    };
    await this.deps.orders.saveQuote(stored);
    const { cost, ...breakdown } = breakdownOf(charge, this.deps.prices);
    const { billing: _b, ...params } = asked.params;
    return { quote_id: stored.id, cost, breakdown, params, eta_seconds: eta, expires_at: stored.expiresAt };
  }

  /**
   * The quote's charge for this account now, or the refusal: 409 quote_invalid when the quote is gone or was made for
   * another request, or relied on a trial video or a plan allowance that is no longer there; the slots and the balance
   * as for any order. Its price holds even if the price list changed since.
   */
  private chargeByQuote(quoted: StoredQuote | undefined, hash: string, params: OrderParams, account: Account, limits: Limits, now: Date): Charge {
    if (!quoted) throw quoteInvalid('is unknown or has expired (a quote holds for 15 minutes)');
    if (quoted.orderId) throw quoteInvalid(`was used by order ${quoted.orderId}`);
    if (quoted.requestHash !== hash) throw quoteInvalid('was made for a different request');
    const { charge } = quoted;
    checkKeyLimits(params, account, limits, this.deps.throughput.orderSeconds);
    if (charge.trial !== account.trialVideosLeft > 0)
      throw quoteInvalid(charge.trial ? 'counted on a trial video that is used up' : 'was made before a trial video was added');
    if (charge.heavyAllowanceMonth && (charge.heavyAllowanceMonth !== now.toISOString().slice(0, 7) || !heavyLeft(account, now))) {
      throw quoteInvalid("counted on the plan's allowance, which is used up or has renewed");
    }
    if (charge.cost > account.balance) throw insufficientFunds(charge.cost, account.balance);
    return charge;
  }

  /** The order's kind, prompt and parameters: a quick order's come from its prompt, and so does its price. */
  private orderOf(request: OrderRequest): Pick<Order, 'kind' | 'prompt' | 'params'> {
    if (request.route === 'POST /videos:quick') {
      const params = this.refuseUndeliverable(this.deps.planPrompt(request.prompt), 'the prompt asks for ');
      return { kind: 'quick', prompt: request.prompt, params: request.director_mode ? { ...params, director_mode: true } : params };
    }
    return { kind: 'explicit', params: this.refuseUndeliverable(resolveLanguage(request.params), '') };
  }

  /** 422 naming the field of a paid extra this service cannot deliver now: nothing is charged for it. */
  private refuseUndeliverable(params: OrderParams, asked: string): OrderParams {
    const { deliverable } = this.deps;
    if (params.ai_visual && !deliverable.ai_visual) {
      throw new InvalidParams('ai_visual', `${asked}AI visuals, which this service cannot make now (no image generator is configured)`);
    }
    if (params.voice === 'clone' && !deliverable.voice_clone) {
      throw new InvalidParams('voice', `${asked}a cloned voice, which this service cannot make now (no voice-cloning speech provider is configured)`);
    }
    return params;
  }

  private async commit(input: CreateOrderInput, asked: Pick<Order, 'kind' | 'prompt' | 'params'>) {
    const channel = input.channel ?? 'api';
    const keyed = countsAgainstKey({ channel });
    // The bot's orders are not held to a key's active-task limit (and are not counted in a key's POSTs).
    const limits = keyed ? this.deps.limits : { ...this.deps.limits, activeTasks: Number.POSITIVE_INFINITY, reviewsPending: Number.POSITIVE_INFINITY };
    const { route } = input.request;
    // The id carries the creation time, so that GET /videos filters by time on ids.
    const id = newOrderId(input.now.getTime());
    // The bot's requests hash apart from the API's, so one Idempotency-Key cannot replay across channels.
    const { deadlineSeconds, quoteId, maxCost } = input.request;
    const options = [deadlineSeconds, quoteId, maxCost].some((o) => o !== undefined) ? [[deadlineSeconds ?? null, quoteId ?? null, maxCost ?? null]] : [];
    const requestHash = sha256(JSON.stringify([route, asked.prompt ?? null, asked.params, ...(keyed ? [] : ['bot']), ...options]));
    const expiresAt = expiryOf(input.now, IDEMPOTENCY_TTL_MS);
    // Read after the key was verified (the handler's auth ran first), from a snapshot of the queue; the order counts
    // in this process's view at once, so the next creation of a burst sees it ahead (director mode waits for review).
    const view = await this.deps.queue.view(asked.params.director_mode ? undefined : { id, channel });
    const eta = queuedEta(view, { id, channel, videoSeconds: asked.params.duration_seconds }, input.now.getTime());
    try {
      const committed = await this.attempts(input, asked, { id, channel, keyed, limits, route, requestHash, expiresAt, eta });
      if (committed.kind !== 'created') this.deps.queue.drop(id);
      return committed;
    } catch (err) {
      this.deps.queue.drop(id);
      throw err;
    }
  }

  private async attempts(
    input: CreateOrderInput,
    asked: Pick<Order, 'kind' | 'prompt' | 'params'>,
    o: { id: string; channel: Channel; keyed: boolean; limits: Limits; route: OrderRequest['route']; requestHash: string; expiresAt: Date; eta: number },
  ) {
    const { throughput } = this.deps;
    const { id, channel, keyed, limits, route, requestHash, expiresAt, eta } = o;
    const { quoteId, maxCost } = input.request;
    const quoted = quoteId !== undefined ? await this.deps.orders.quoteOf(input.account.userId, quoteId, input.now) : undefined;
    let account: Account | undefined = input.account;
    const outcome = await retry({
      policy: ACCOUNT_CONFLICTS,
      op: async () => {
        if (!account) throw unauthorized();
        let charge: Charge;
        try {
          charge =
            quoteId !== undefined
              ? this.chargeByQuote(quoted, quoteHash(route, asked), asked.params, account, limits, input.now)
              : quote(asked.params, account, limits, input.now, throughput.orderSeconds, this.deps.prices);
          if (maxCost !== undefined && charge.cost > maxCost) throw maxCostExceeded(charge.cost, maxCost);
        } catch (err) {
          // A repeat of a creation that went through (its answer lost) has spent the balance or the slot it would be
          // priced against: it is the original order's replay, not a 402 or a 429.
          const record =
            err instanceof AppError && input.idempotencyKey !== undefined
              ? await this.deps.orders.idempotency(account.userId, sha256(input.idempotencyKey), input.now)
              : undefined;
          if (!record) throw err;
          return this.replayOf(record, route, requestHash);
        }
        const ts = input.now.toISOString();
        const order: Order = {
          id,
          userId: account.userId,
          status: 'queued',
          kind: asked.kind,
          channel,
          ...(asked.prompt !== undefined ? { prompt: asked.prompt } : {}),
          params: asked.params,
          charge,
          createdAt: ts,
          updatedAt: ts,
          ...(input.request.deadlineSeconds ? { deadlineAt: new Date(input.now.getTime() + input.request.deadlineSeconds * 1000).toISOString() } : {}),
          etaSeconds: eta,
          queueShard: shardOf(id),
        };
        const response: CreationResponse = { id, status: 'queued', cost: charge.cost, eta_seconds: eta };
        const outcome = await this.deps.orders.create({
          order,
          account,
          ...(quoteId !== undefined ? { quoteId } : {}),
          ...(keyed ? { postWindowStart: minuteWindow(input.now).start } : {}),
          limits: this.deps.limits,
          now: input.now,
          ...(input.idempotencyKey !== undefined
            ? {
                idempotency: {
                  keyHash: sha256(input.idempotencyKey),
                  record: { route, requestHash, orderId: id, response },
                  expiresAt,
                },
              }
            : {}),
        });
        switch (outcome.kind) {
          case 'created':
            return { kind: 'created' as const, order, response };
          case 'replay':
            return this.replayOf(outcome.record, route, requestHash);
          case 'rate_limited':
            throw rateLimited(minuteWindow(input.now).retryAfterSeconds, limits.postsPerMinute);
          case 'quote_used':
            throw quoteInvalid('was used by another order');
          case 'account_changed':
            account = outcome.account;
            return outcome;
          case 'conflict':
            return outcome;
        }
      },
      // The account moved on (each time another write of the user's committed): priced again at once from it.
      retryable: (o) => (o.kind === 'account_changed' ? LEDGER_MOVED : o.kind === 'conflict'),
      exhausted: () => serviceUnavailable('The account is busy with concurrent orders; retry with the same Idempotency-Key', 1),
    });
    if (outcome.kind !== 'created' && outcome.kind !== 'replay') throw new Error(`unreachable: ${outcome.kind}`);
    return outcome;
  }

  /** The same key for the same request is a replay; for another request, 422 naming the key. */
  private replayOf(record: IdempotencyRecord, route: string, requestHash: string) {
    if (record.route !== route || record.requestHash !== requestHash) {
      throw new InvalidParams('Idempotency-Key', 'was already used with a different request in the last 24 hours');
    }
    return { kind: 'replay' as const, record };
  }

  /**
   * Starts the order's workflow (a director-mode order), or queues it for the admission that starts it (any other),
   * then drops its unstarted marker; a failure of either leaves the marker, and the audit starts the order.
   */
  private async start(order: Order): Promise<void> {
    try {
      if (order.params.director_mode) await this.deps.workflow.start(order);
      else await this.deps.admission.enqueue(order);
    } catch (cause) {
      return this.startFailed(order.id, cause);
    }
    await this.deps.orders.started(order).catch(() => undefined);
  }

  /** A charged order whose workflow did not start: logged and counted (an alarm reads the count). */
  private startFailed(orderId: string, cause: unknown): void {
    this.deps.log.error('workflow start failed', { orderId, cause: String(cause) });
    this.deps.metrics.count('WorkflowStartsFailed');
  }

  /** A repeat returns the original task, with its status as it is now. */
  private async replay(orderId: string, original: CreationResponse): Promise<CreateOrderResult> {
    const order = await this.deps.orders.get(orderId);
    // The first request may have died between its commit and its start; starting again is a no-op otherwise. A start
    // that fails here too still answers the order: the recovery sweep starts it.
    // Not once it has a place in the queue: its wait is recorded, or it was admitted and its execution started.
    if (order?.status === 'queued' && !order.queuePlace) await this.start(order);
    return {
      response: { id: original.id, status: order?.status ?? original.status, cost: original.cost, eta_seconds: original.eta_seconds },
      replayed: true,
      counted: false,
    };
  }
}
