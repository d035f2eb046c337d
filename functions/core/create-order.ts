/**
 * Creating an order: price it, then commit everything in one transaction whose conditions guard the facts the price
 * was based on. A failed condition re-prices from the account as it is now, so concurrency never charges twice and
 * never lets a balance go below zero. Quoting a price is quote-order.ts; what a request asks for, order-request.ts.
 */
import type { CreationResponse } from '../contract/orders.ts';
import { AppError, InvalidParams, maxCostExceeded, notFound, quoteInvalid, rateLimited, serviceUnavailable, unauthorized } from './errors.ts';
import { type QueueViews, queuedEta } from './eta.ts';
import { expiryOf, IDEMPOTENCY_TTL_MS } from './expiry.ts';
import { newOrderId, shardOf } from './ids.ts';
import { limitsOwner, minuteWindow, type Throughput } from './limits.ts';
import { ASSET_GONE, type AssetPorts, assetRefsOf, checkAssets, copyAssets } from './assets.ts';
import { type AskedOrder, askedOrder, type OrderRequest, type RequestDeps, requestHashes, STORED_TAG, sha256 } from './order-request.ts';
import { type Channel, countsAgainstKey, type Order, type OrderFailure } from './orders.ts';
import { balanceLowEvent, crossesLowBalance } from './balance.ts';
import type { AccountStore, Announce, IdempotencyRecord, Metrics, OrderEvent, OrderStore, Workflow } from './ports.ts';
import { type Account, type Charge, chargeFor, isLive, type Limits, type Prices, withinSpendLimit } from './pricing.ts';
import { type Lane, laneOf } from './capacity.ts';
import { type Quote, type QuoteStore, quotedCharge } from './quote-order.ts';
import { AGAIN, Again, untilDone } from './retry.ts';
import { ACCOUNT_CONFLICTS, LEDGER_MOVED } from './transactions.ts';
import { present } from './present.ts';

export type { OrderRequest, PromptPlanner } from './order-request.ts';

export interface CreateOrderInput {
  account: Account;
  /** `api` unless the operators' bot places the order. */
  channel?: Channel;
  request: OrderRequest;
  idempotencyKey?: string;
  now: Date;
}

/**
 * A creation's answer: a new order (`created`: charged, and this POST counted in its rate window by the same
 * transaction), or the order an earlier request with the same Idempotency-Key created (`replayed`: nothing charged,
 * nothing counted; its status as it is now).
 */
export type CreateOrderResult = { kind: 'created' | 'replayed'; response: CreationResponse };

export interface OrderCreationPorts extends RequestDeps {
  orders: Pick<OrderStore, 'create' | 'get' | 'idempotency' | 'started'>;
  quotes: Pick<QuoteStore, 'get'>;
  /** Each lane's render queue as this process sees it, for eta_seconds (a test-mode order's is the test lane's). */
  queues: Readonly<Record<Lane, Pick<QueueViews, 'view' | 'drop'>>>;
  workflow: Workflow;
  /**
   * Queues an order that needs a render slot before anything else (any order but a director-mode one): its admission
   * starts its execution (core/capacity.ts START_AT_ADMISSION), so none runs while it waits. The same write records
   * its place and drops its unstarted marker.
   */
  admission: { enqueue(order: Order): Promise<void> };
  limits: Limits;
  prices: Prices;
  throughput: Throughput;
  metrics: Metrics;
  /** Hands the balance.low event a charge recorded to webhook delivery. */
  announce: Announce;
  log: { error(message: string, ...extra: Record<string, unknown>[]): void; warn(message: string, ...extra: Record<string, unknown>[]): void };
  /**
   * The key's assets an order may name (`placement.image`, `logo`): checked before the charge, copied into the order
   * once it is committed, as it starts.
   */
  assets: AssetPorts;
  /** Ends an order in error, refunded (core/close-order.ts closeInError): one whose asset went before its copy. */
  close(order: Order, error: OrderFailure): Promise<Order | undefined>;
}

/** One request's order, before any attempt to commit it: what every attempt shares. */
interface Draft {
  input: CreateOrderInput;
  asked: AskedOrder;
  id: string;
  channel: Channel;
  /** Held to a key's limits and counted in its POSTs (API orders; the bot's are not). */
  keyed: boolean;
  limits: Limits;
  hashes: { priced: string; full: string };
  /** SHA-256 of the Idempotency-Key, when one was sent. */
  keyHash?: string;
  eta: number;
  quote?: Quote;
  /** The assets the order names, checked (the version each check read); copied once the order is committed. */
  assets?: Order['assets'];
}

/** What committing a request came to: its new order, or the earlier order of its Idempotency-Key. */
type Committed = { kind: 'created'; order: Order; response: CreationResponse; event?: OrderEvent } | { kind: 'replayed'; response: CreationResponse };

export class OrderCreation {
  constructor(private readonly deps: OrderCreationPorts) {}

  async create(input: CreateOrderInput): Promise<CreateOrderResult> {
    const committed = await this.commit(input);
    if (committed.kind === 'replayed') return committed;
    this.deps.metrics.count('OrdersCreated');
    // The order is committed and charged and stays queued: should its start fail, its unstarted marker stays and the
    // audit sweep starts it (as does a repeat of the same Idempotency-Key).
    const closed = await this.start(committed.order, true);
    // Closed at once (its asset went before its copy): it waits for nothing.
    if (closed) this.deps.queues[laneOf(committed.order)].drop(committed.order.id);
    // A failed hand-over leaves the event's pending marker, written with the charge: the sweep starts its delivery.
    if (committed.event) await this.deps.announce(committed.event);
    // Answered queued all the same, as the spec has every creation answered; a GET (and its video.error) tells the rest.
    return { kind: 'created', response: committed.response };
  }

  /** The request's draft, committed within the retry budgets; the process's queue view forgets an order not created. */
  private async commit(input: CreateOrderInput): Promise<Committed> {
    const channel = input.channel ?? 'api';
    const keyed = countsAgainstKey({ channel });
    const asked = askedOrder(this.deps, input.request);
    // The id carries the creation time, so that GET /videos filters by time on ids.
    const id = newOrderId(input.now.getTime());
    // The lane it will wait in: its account's mode decides, as it decides its charge (core/capacity.ts laneOf).
    const queue = this.deps.queues[isLive(input.account) ? 'live' : 'test'];
    // Read after the key was verified (the handler's auth ran first), from a snapshot of the queue; the order counts
    // in this process's view at once, so the next creation of a burst sees it ahead (director mode waits for review).
    const view = await queue.view([{ id }], asked.params.director_mode ? undefined : { id, channel });
    const { quoteId } = input.request;
    const draft: Draft = {
      input,
      asked,
      id,
      channel,
      keyed,
      // The bot's orders are not held to a key's active-task limit (and are not counted in a key's POSTs).
      limits: keyed ? this.deps.limits : { ...this.deps.limits, activeTasks: Number.POSITIVE_INFINITY, reviewsPending: Number.POSITIVE_INFINITY },
      hashes: requestHashes(input.request, asked, channel),
      ...(input.idempotencyKey !== undefined ? { keyHash: sha256(input.idempotencyKey) } : {}),
      // A key with no order active joins the rotation's end; the bot's orders' accounts are not counted so: every wait.
      eta: queuedEta(
        view,
        { id, channel, videoSeconds: asked.params.duration_seconds, keyActive: keyed ? input.account.activeTasks : undefined },
        input.now.getTime(),
      ),
    };
    try {
      if (quoteId !== undefined) {
        const quote = await this.deps.quotes.get(input.account.userId, quoteId, input.now);
        if (quote) draft.quote = quote;
      }
      const replayed = await this.withAssets(draft);
      if (replayed) {
        queue.drop(id);
        return replayed;
      }
      let account: Account | undefined = input.account;
      const committed = await untilDone<Committed>(
        ACCOUNT_CONFLICTS,
        async () => {
          if (!account) throw unauthorized();
          const outcome = await this.attempt(draft, account);
          // The account moved on (each time another write of the user's committed): priced again at once from it.
          if (outcome instanceof Again || !('account' in outcome)) return outcome;
          account = outcome.account;
          return new Again(LEDGER_MOVED);
        },
        () => serviceUnavailable('The account is busy with concurrent orders; retry with the same Idempotency-Key', 1),
      );
      if (committed.kind !== 'created') queue.drop(id);
      return committed;
    } catch (err) {
      queue.drop(id);
      throw err;
    }
  }

  /**
   * The assets the order names, checked before anything is charged (422 naming the field when one is unusable); no
   * copy yet, so a request then refused (402, 409, 429) or replayed stores nothing. A repeat of a creation that went
   * through is its replay even when an asset went since: the order has its copies.
   */
  private async withAssets(d: Draft): Promise<Committed | undefined> {
    const refs = assetRefsOf(d.asked.params);
    if (!refs.length) return undefined;
    const { account, now } = d.input;
    try {
      d.assets = await checkAssets(this.deps.assets, account.userId, refs, now);
      return undefined;
    } catch (err) {
      return this.replayOr(err, d, account.userId);
    }
  }

  /** One attempt: price the order for `account` and commit it; Again when another transaction held an item. */
  private async attempt(d: Draft, account: Account): Promise<Committed | Again | { account: Account | undefined }> {
    const { input, asked, id, keyed, limits } = d;
    const { maxCost, quoteId, deadlineSeconds, metadata } = input.request;
    let charge: Charge;
    try {
      charge =
        quoteId !== undefined
          ? quotedCharge(d.quote, d.hashes.priced, asked.params, account, limits, input.now, this.deps.throughput.orderSeconds)
          : chargeFor(asked.params, account, limits, input.now, this.deps.throughput.orderSeconds, this.deps.prices);
      if (maxCost !== undefined && charge.cost > maxCost) throw maxCostExceeded(charge.cost, maxCost);
      // The monthly spend limit caps what the key spends: the bot's orders are the operator's (docs/decisions.md).
      if (keyed) charge = withinSpendLimit(charge, account, input.now);
    } catch (err) {
      // A repeat of a creation that went through (its answer lost) has spent the balance or the slot it would be
      // priced against: it is the original order's replay, not a 402 or a 429.
      return this.replayOr(err, d, account.userId);
    }
    const ts = input.now.toISOString();
    const order: Order = {
      id,
      userId: account.userId,
      status: 'queued',
      kind: asked.kind,
      channel: d.channel,
      ...present({ prompt: asked.prompt }),
      params: asked.params,
      charge,
      createdAt: ts,
      updatedAt: ts,
      ...(deadlineSeconds ? { deadlineAt: new Date(input.now.getTime() + deadlineSeconds * 1000).toISOString() } : {}),
      ...(metadata && Object.keys(metadata).length ? { clientMetadata: metadata } : {}),
      ...(d.assets ? { assets: d.assets } : {}),
      etaSeconds: d.eta,
      queueShard: shardOf(id),
      // A test-mode key's order counts in its live account's active tasks and reviews pending.
      ...(limitsOwner(account) !== account.userId ? { limitsOf: limitsOwner(account) } : {}),
    };
    const response: CreationResponse = { id, status: 'queued', cost: charge.cost, eta_seconds: d.eta };
    // Priced on this account's balance, which the commit guards: the crossing and its event commit with the charge.
    const event = crossesLowBalance(account, charge.cost) ? balanceLowEvent(account, charge.cost, id, input.now) : undefined;
    const outcome = await this.deps.orders.create({
      order,
      account,
      ...(event ? { event } : {}),
      ...present({ quoteId }),
      ...(keyed ? { postWindowStart: minuteWindow(input.now).start } : {}),
      limits: this.deps.limits,
      now: input.now,
      ...(d.keyHash !== undefined
        ? {
            idempotency: {
              keyHash: d.keyHash,
              record: { route: STORED_TAG[input.request.kind], requestHash: d.hashes.full, orderId: id, response },
              expiresAt: expiryOf(input.now, IDEMPOTENCY_TTL_MS),
            },
          }
        : {}),
    });
    switch (outcome.kind) {
      case 'created':
        return { kind: 'created', order, response, ...(event ? { event } : {}) };
      case 'replay':
        return this.replay(outcome.record, d);
      case 'rate_limited':
        throw rateLimited(minuteWindow(input.now).retryAfterSeconds, limits.postsPerMinute);
      case 'quote_used':
        throw quoteInvalid('was used by another order');
      case 'account_changed':
        return { account: outcome.account };
      case 'conflict':
        return AGAIN;
    }
  }

  /** A refusal (an AppError) of a request whose Idempotency-Key went through before: that creation's replay. */
  private async replayOr(err: unknown, d: Draft, userId: string): Promise<Committed> {
    const record = err instanceof AppError && d.keyHash !== undefined ? await this.deps.orders.idempotency(userId, d.keyHash, d.input.now) : undefined;
    if (!record) throw err;
    return this.replay(record, d);
  }

  /**
   * Makes the order's copies of its assets, then starts its workflow (a director-mode order) and drops its unstarted
   * marker, or queues it for the admission that starts it (any other), the marker dropped by the write that records
   * its wait. A failure before that leaves the marker, and the audit copies and starts the order; after it, the order
   * waits, and a later admission (a release's, the audit's) starts it.
   * An asset gone before its copy: at the creation's own start (`fresh`: no copy can have been made) the order is
   * closed in error, refunded, and returned; at a repeat's start its copies may have been made by the first, so it
   * goes on (a copy that is missing fails its render, refunded too).
   */
  private async start(order: Order, fresh = false): Promise<Order | undefined> {
    let closed: Order | undefined;
    try {
      const lost = await copyAssets(this.deps.assets.files, order);
      if (lost.length && fresh) closed = await this.deps.close(order, ASSET_GONE);
      else {
        if (lost.length) this.deps.log.warn('an asset went before a repeated start copied it', { orderId: order.id, assets: lost });
        if (!order.params.director_mode) return void (await this.deps.admission.enqueue(order));
        await this.deps.workflow.start(order);
      }
    } catch (cause) {
      return void this.startFailed(order.id, cause);
    }
    await this.deps.orders.started(order).catch(() => undefined);
    return closed;
  }

  /** A charged order whose workflow did not start: logged and counted (an alarm reads the count). */
  private startFailed(orderId: string, cause: unknown): void {
    this.deps.log.error('workflow start failed', { orderId, cause: String(cause) });
    this.deps.metrics.count('WorkflowStartsFailed');
  }

  /**
   * The same key for the same request is a replay: it answers the original order, with its status as it is now. For
   * another request, 422 naming the key.
   */
  private async replay(record: IdempotencyRecord, d: Draft): Promise<Committed> {
    if (record.route !== STORED_TAG[d.input.request.kind] || record.requestHash !== d.hashes.full) {
      throw new InvalidParams('Idempotency-Key', 'was already used with a different request in the last 24 hours');
    }
    const original = record.response;
    const order = await this.deps.orders.get(record.orderId);
    // The first request may have died between its commit and its start; starting again is a no-op otherwise. A start
    // that fails here too still answers the order: the recovery sweep starts it.
    // Not once it has a place in the queue: its wait is recorded, or it was admitted and its execution started.
    if (order?.status === 'queued' && !order.queuePlace) await this.start(order);
    return {
      kind: 'replayed',
      response: { id: original.id, status: order?.status ?? original.status, cost: original.cost, eta_seconds: original.eta_seconds },
    };
  }
}

/** The operators' bot's order: for the account it names (404 when there is none), on the bot's channel. */
export async function placeBotOrder(
  p: { accounts: Pick<AccountStore, 'get'>; creation: Pick<OrderCreation, 'create'> },
  userId: string,
  input: Omit<CreateOrderInput, 'account' | 'channel'>,
): Promise<CreateOrderResult> {
  const account = await p.accounts.get(userId);
  if (!account) throw notFound('user');
  return p.creation.create({ ...input, account, channel: 'bot' });
}
