/**
 * In-memory implementations of core's ports, for the domain tests only. Each write checks the same conditions the
 * DynamoDB adapters put on it (functions/adapters/order-creation.ts, order-transitions.ts) and applies all or nothing, so a use case meets the same
 * answers here as on the table; test/integration runs the same use cases on DynamoDB Local.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CapacityStore,
  type Claim,
  emptyShardState,
  type NewWait,
  placeOf,
  queueOrder,
  type Recount,
  type RecountMark,
  type ShardState,
  type Slot,
  type Waiter,
  type Wakeup,
} from '../../functions/core/capacity.ts';
import {
  type Asset,
  type AssetCheck,
  type AssetFiles,
  type AssetPorts,
  type AssetStore,
  createAsset,
  type ImageCheck,
  type ImageVerdict,
  inspectUpload,
  SIGNATURE_BYTES,
} from '../../functions/core/assets.ts';
import { decodeImage } from '../../functions/generator/image-decode.ts';
import { OrderCreation, type OrderCreationPorts } from '../../functions/core/create-order.ts';
import { closeInError } from '../../functions/core/close-order.ts';
import { OrderQuoting, type Quote, type QuoteStore } from '../../functions/core/quote-order.ts';
import { QueueViews } from '../../functions/core/eta.ts';
import { epochSeconds, heldAt } from '../../functions/core/expiry.ts';
import type { DeliveryAttempt, DeliveryStatus, EventRef, EventStore, Reopened, Reopening, StoredEvent } from '../../functions/core/deliveries.ts';
import type { Deliverable, Generator, RenderRequest } from '../../functions/core/generator.ts';
import { ledgerEntryId, SHARDS } from '../../functions/core/ids.ts';
import { orderLinks } from '../../functions/core/links.ts';
import { awaitsApproval, type Channel, countedIn, counterDeltas, countsAgainstKey, type Order, type OrderFile } from '../../functions/core/orders.ts';
import type {
  AccountStore,
  Announce,
  CommitOutcome,
  ExecutionState,
  FileStore,
  GaugeName,
  IdempotencyRecord,
  MarkerPage,
  MetricName,
  OrderCommit,
  OrderEvent,
  OrderStore,
  Patch,
  Transition,
} from '../../functions/core/ports.ts';
import { type Account, type Charge, DEFAULT_LIMITS, DEFAULT_PRICES, movesMoney, type Prices, refundsSpend } from '../../functions/core/pricing.ts';
import { rearmsLowBalance } from '../../functions/core/balance.ts';
import type { Budget } from '../../functions/core/limits.ts';
import type { LedgerEntry, LedgerLine as CoreLedgerLine } from '../../functions/core/transactions.ts';
import type { Webhook, WebhookStore } from '../../functions/core/webhooks.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { EmbeddedWriter } from '../../functions/generator/writer.ts';

const clone = <T>(v: T): T => structuredClone(v);
/** A quote counts as the table's does: by its expiry in epoch seconds. */
const quoteHeld = (q: Quote, now: Date) => heldAt(epochSeconds(new Date(q.expiresAt)), now);

/** A ledger entry as the adapter stores it (core/transactions.ts LedgerEntry), with its user and its place. */
export interface LedgerLine extends Omit<LedgerEntry, 'orderId'> {
  userId: string;
  orderId: string;
  seq: number;
}

/** What a ledger entry says of its order's payment, as the adapter writes it: a trial video, the plan's allowance. */
const paidBy = (charge: Charge, allowance: boolean) => ({ ...(charge.trial ? { trial: true } : {}), ...(allowance ? { allowance: true } : {}) });

/** The random part of every ledger entry id here (the adapter's is random): ids sort by their place first. */
const MEMORY_ENTRY_TAIL = '0'.repeat(16);

/** The single table's facts, as plain maps. */
export class MemoryTable {
  accounts = new Map<string, Account>();
  orders = new Map<string, Order>();
  /** Each with its expiry in epoch seconds, as the table keeps it. */
  idempotency = new Map<string, { record: IdempotencyRecord; expiresAt: number }>();
  quotes = new Map<string, Quote>();
  posts = new Map<string, number>();
  /** Resent events by `<user>:<hour start>`. */
  resends = new Map<string, number>();
  ledger: LedgerLine[] = [];
  events = new Map<string, StoredEvent>();
  /** Each with its user, whose partition the adapter writes it in. */
  attempts: (DeliveryAttempt & { userId: string })[] = [];
  webhooks = new Map<string, Webhook>();
  /** Orders not done or in error (their markers). */
  open = new Set<string>();
  /** Events whose delivery has not settled (their markers). */
  pending = new Set<string>();
  /** The moment of a marker a resend wrote again (the others are their event's recording). */
  pendingSince = new Map<string, string>();
  /** Orders whose workflow start the creation has not seen succeed (their markers). */
  unstarted = new Set<string>();
  /** Orders with a deadline, by id: the deadline's moment (their markers). */
  deadlines = new Map<string, string>();
  /** The keys' assets by id (the owner item is the asset's userId). */
  assets = new Map<string, Asset>();

  addAccount(a: Partial<Account> & { userId: string }): Account {
    const account: Account = { balance: 0, trialVideosLeft: 0, heavyUsed: 0, activeTasks: 0, reviewsPending: 0, ledgerSeq: 0, ...a };
    this.accounts.set(account.userId, account);
    return clone(account);
  }

  account(userId: string): Account {
    return clone(this.accounts.get(userId)!);
  }

  /** The operator's top-up: the balance and its ledger entry, next in the ledger; a sent low-balance alert re-armed as the adapter does. */
  topUp(userId: string, amount: number, now = new Date()) {
    const user = this.accounts.get(userId)!;
    if (rearmsLowBalance(user, user.balance + amount)) delete user.lowAlertSent;
    user.balance += amount;
    this.ledger.push({ userId, amount, kind: 'top_up', orderId: '', balanceAfter: user.balance, seq: ++user.ledgerSeq, createdAt: now.toISOString() });
  }
}

/** The accounts as the use cases see them (core's AccountStore), on the table's maps. */
export class MemoryAccounts implements AccountStore {
  /** Users whose key was revoked. */
  revoked = new Set<string>();
  constructor(private readonly t: MemoryTable) {}
  async get(userId: string) {
    const a = this.t.accounts.get(userId);
    return a && clone(a);
  }
  /** GET /balance/transactions' read (the adapter's `ledgerPage`): newest first, below the cursor's entry. */
  async ledgerPage(userId: string, q: { limit: number; below?: string }): Promise<{ lines: CoreLedgerLine[]; more: boolean }> {
    const lines = this.t.ledger
      .filter((l) => l.userId === userId)
      // + 0: a free order's charge is -0 here; DynamoDB keeps no sign of zero.
      .map(
        ({ userId: _u, seq, orderId, amount, ...entry }): CoreLedgerLine => ({
          ...entry,
          amount: amount + 0,
          ...(orderId ? { orderId } : {}),
          id: ledgerEntryId(seq, MEMORY_ENTRY_TAIL),
        }),
      )
      .filter((l) => q.below === undefined || l.id < q.below)
      .sort((a, b) => b.id.localeCompare(a.id));
    return { lines: lines.slice(0, q.limit), more: lines.length > q.limit };
  }
  async revokeKey(userId: string) {
    this.revoked.add(userId);
  }
  async setLowBalanceAlert(userId: string, below: number | undefined) {
    const a = this.t.accounts.get(userId);
    if (!a) return undefined;
    // As the adapter: a new threshold (or none) is armed; the same one set again keeps its state.
    if (below === a.lowBelow) return clone(a);
    if (below === undefined) delete a.lowBelow;
    else a.lowBelow = below;
    delete a.lowAlertSent;
    return clone(a);
  }
  /** As the adapter: the user item, the ledger, idempotency records, counters and delivery attempts go. */
  async deletePartition(userId: string) {
    this.t.accounts.delete(userId);
    this.t.ledger = this.t.ledger.filter((l) => l.userId !== userId);
    this.t.attempts = this.t.attempts.filter((a) => a.userId !== userId);
    // Account events are kept in the user's partition (keys.ts `event`).
    for (const [id, e] of this.t.events) if (e.orderId === userId) this.t.events.delete(id);
    for (const map of [this.t.idempotency, this.t.posts, this.t.resends]) for (const k of [...map.keys()]) if (k.startsWith(`${userId}:`)) map.delete(k);
  }
}

export class MemoryOrders implements OrderStore {
  constructor(private readonly t: MemoryTable) {}

  async create(c: OrderCommit): Promise<CommitOutcome> {
    const { order, account, limits } = c;
    const { charge } = order;
    const user = this.t.accounts.get(account.userId);
    // The key's counters and POST window are those of the account its limits count in (a test-mode key's live one).
    const counter = this.t.accounts.get(countedIn(order));
    const postKey = `${countedIn(order)}:${c.postWindowStart}`;
    const idemKey = c.idempotency && `${account.userId}:${c.idempotency.keyHash}`;
    const held = idemKey ? this.t.idempotency.get(idemKey) : undefined;
    // The same conditions as the transaction's items, read in the adapter's order.
    const keyed = countsAgainstKey(order);
    if (c.postWindowStart !== undefined && (this.t.posts.get(postKey) ?? 0) >= limits.postsPerMinute) return { kind: 'rate_limited' };
    if (held && heldAt(held.expiresAt, c.now)) return { kind: 'replay', record: clone(held.record) };
    const quoted = c.quoteId ? this.t.quotes.get(c.quoteId) : undefined;
    if (c.quoteId && (!quoted || quoted.userId !== account.userId || quoted.orderId || !quoteHeld(quoted, c.now))) return { kind: 'quote_used' };
    const counts =
      counter !== undefined &&
      (!keyed || counter.activeTasks < limits.activeTasks) &&
      (!awaitsApproval(order) || (counter.reviewsPending ?? 0) < limits.reviewsPending);
    const fits =
      user !== undefined &&
      // A test-mode order writes no ledger entry: nothing to follow the head as read.
      (!movesMoney(charge) || user.ledgerSeq === account.ledgerSeq) &&
      (countedIn(order) !== account.userId || counts) &&
      (charge.cost === 0 || user.balance >= charge.cost) &&
      (charge.trial ? user.trialVideosLeft > 0 : user.trialVideosLeft <= 0) &&
      (!charge.heavyAllowanceMonth ||
        (account.heavyMonth === charge.heavyAllowanceMonth
          ? user.heavyMonth === charge.heavyAllowanceMonth && user.heavyUsed < (user.plan?.heavyPerMonth ?? 0)
          : user.heavyMonth !== charge.heavyAllowanceMonth && (user.plan?.heavyPerMonth ?? 0) > 0)) &&
      (!charge.spendMonth ||
        ((account.spendMonth === charge.spendMonth
          ? user.spendMonth === charge.spendMonth && (account.spendLimit === undefined || (user.spentInMonth ?? 0) <= account.spendLimit - charge.cost)
          : user.spendMonth !== charge.spendMonth) &&
          user.spendLimit === account.spendLimit)) &&
      // The alert as read decided whether a paid charge crosses its threshold: guarded as the debit guards it.
      (charge.cost === 0 || (user.lowBelow === account.lowBelow && !user.lowAlertSent === !account.lowAlertSent));
    if (!fits || !counts) {
      // As the adapter's: the account as it is when its own item failed, with the live account's counters as they are
      // when those failed (one item when the order counts in its own account).
      const base = !fits ? user && clone(user) : account;
      if (counts || countedIn(order) === account.userId) return { kind: 'account_changed', account: base };
      return {
        kind: 'account_changed',
        account: base && counter && { ...base, activeTasks: counter.activeTasks, reviewsPending: counter.reviewsPending ?? 0 },
      };
    }
    if (c.event && this.t.events.has(c.event.id)) throw new Error(`event ${c.event.id} recorded twice`);
    // The order's own condition: its id taken is a lasting fault, thrown (a 500), not a conflict to try again.
    if (this.t.orders.has(order.id)) throw Object.assign(new Error(`order ${order.id} exists`), { name: 'TransactionCanceledException' });
    if (quoted) quoted.orderId = order.id;

    this.t.orders.set(order.id, clone(order));
    this.t.open.add(order.id);
    this.t.unstarted.add(order.id);
    if (order.deadlineAt) this.t.deadlines.set(order.id, order.deadlineAt);
    if (keyed) counter.activeTasks += 1;
    if (awaitsApproval(order)) counter.reviewsPending = (counter.reviewsPending ?? 0) + 1;
    user.balance -= charge.cost;
    if (charge.trial) user.trialVideosLeft -= 1;
    if (charge.heavyAllowanceMonth) {
      user.heavyUsed = user.heavyMonth === charge.heavyAllowanceMonth ? user.heavyUsed + 1 : 1;
      user.heavyMonth = charge.heavyAllowanceMonth;
    }
    if (charge.spendMonth) {
      user.spentInMonth = (user.spendMonth === charge.spendMonth ? (user.spentInMonth ?? 0) : 0) + charge.cost;
      user.spendMonth = charge.spendMonth;
    }
    if (c.event) {
      user.lowAlertSent = true;
      user.lowAlerts = (user.lowAlerts ?? 0) + 1;
      this.t.events.set(c.event.id, clone(c.event));
      this.t.pending.add(c.event.id);
    }
    if (c.postWindowStart !== undefined) this.t.posts.set(postKey, (this.t.posts.get(postKey) ?? 0) + 1);
    const entry = {
      amount: -charge.cost,
      kind: 'charge' as const,
      orderId: order.id,
      ...paidBy(charge, !!charge.heavyAllowanceMonth),
      createdAt: order.createdAt,
    };
    if (movesMoney(charge)) this.t.ledger.push({ ...entry, userId: account.userId, balanceAfter: user.balance, seq: ++user.ledgerSeq });
    if (idemKey) this.t.idempotency.set(idemKey, { record: clone(c.idempotency!.record), expiresAt: epochSeconds(c.idempotency!.expiresAt) });
    return { kind: 'created' };
  }

  async unstarted(before: Date, limit: number, first = 0) {
    // The port's rule as it reads: each shard's markers of orders created before `before`, by their sort key (the
    // order id, which begins with its creation time: the adapter bounds its query by it), one at a time from each
    // shard in turn from `first`.
    const marked = Array.from({ length: SHARDS }, () => [] as { id: string; queueShard: number }[]);
    for (const id of this.t.unstarted) {
      const order = this.t.orders.get(id);
      if (!order || order.createdAt < before.toISOString()) marked[order?.queueShard ?? 0]!.push({ id, queueShard: order?.queueShard ?? 0 });
    }
    for (const list of marked) list.sort((a, b) => byKey(a.id, b.id));
    const found: { id: string; queueShard: number }[] = [];
    for (let turn = first; found.length < limit && marked.some((list) => list.length); turn++) {
      const next = marked[turn % SHARDS]!.shift();
      if (next) found.push(next);
    }
    return found;
  }

  async started(order: Pick<Order, 'id'>) {
    this.t.unstarted.delete(order.id);
  }

  async deadlinesDue(now: Date, limit: number, first = 0) {
    // The port's rule as it reads: each shard's due markers by its sort key (the deadline, then the order id), taken one
    // at a time from each shard in turn from `first` (the adapter reads the same in rounds of queries).
    const due = Array.from({ length: SHARDS }, () => [] as { id: string; deadlineAt: string; queueShard: number }[]);
    for (const [id, deadlineAt] of this.t.deadlines) {
      const queueShard = this.t.orders.get(id)?.queueShard ?? 0;
      if (deadlineAt <= now.toISOString()) due[queueShard]!.push({ id, deadlineAt, queueShard });
    }
    for (const list of due) list.sort((a, b) => byKey(`${a.deadlineAt}#${a.id}`, `${b.deadlineAt}#${b.id}`));
    const found: { id: string; deadlineAt: string; queueShard: number }[] = [];
    for (let turn = first; found.length < limit && due.some((list) => list.length); turn++) {
      const next = due[turn % SHARDS]!.shift();
      if (next) found.push(next);
    }
    return found;
  }

  async dropDeadline(order: Pick<Order, 'id'>) {
    this.t.deadlines.delete(order.id);
  }

  async dropOpen(order: Pick<Order, 'id' | 'queueShard'>): Promise<void> {
    this.t.open.delete(order.id);
  }

  async openPage(before: Date, from: string | undefined, limit: number) {
    const young = (id: string) => this.t.orders.has(id) && this.t.orders.get(id)!.createdAt >= before.toISOString();
    return markerPage([...this.t.open], young, from, limit, (id) => ({ id, queueShard: this.t.orders.get(id)?.queueShard ?? 0 }));
  }

  async get(orderId: string): Promise<Order | undefined> {
    const order = this.t.orders.get(orderId);
    return order && clone(order);
  }

  async ofUser(userId: string, range: { from?: string | undefined; below?: string | undefined; limit: number }): Promise<{ orders: Order[]; more: boolean }> {
    const ids = [...this.t.orders.values()]
      .filter((o) => o.userId === userId && o.id >= (range.from ?? '') && (range.below === undefined || o.id < range.below))
      .map((o) => o.id)
      .sort()
      .reverse();
    return { orders: ids.slice(0, range.limit).map((id) => clone(this.t.orders.get(id)!)), more: ids.length > range.limit };
  }

  async idempotency(userId: string, keyHash: string, now: Date): Promise<IdempotencyRecord | undefined> {
    const held = this.t.idempotency.get(`${userId}:${keyHash}`);
    return held && heldAt(held.expiresAt, now) ? clone(held.record) : undefined;
  }

  async transition(tr: Transition): Promise<boolean> {
    const stored = this.t.orders.get(tr.order.id);
    if (!stored || stored.status !== tr.order.status) return false;
    if (tr.reviewToken !== undefined && stored.reviewToken !== tr.reviewToken) return false;
    if (tr.beforeRender && stored.renderStartedAt) return false;
    if (tr.event && this.t.events.has(tr.event.id)) throw new Error(`event ${tr.event.id} recorded twice`);
    const delta = counterDeltas(tr.order, tr);
    const user = this.t.accounts.get(stored.userId)!;
    // The key's counters on the account they are counted in (a test-mode order's live one).
    const counter = this.t.accounts.get(countedIn(stored))!;
    if (delta.activeTasks > 0 && tr.activeLimit !== undefined && counter.activeTasks >= tr.activeLimit) return false;
    apply(stored, tr.set, tr.remove, tr.now);
    stored.status = tr.to;
    counter.activeTasks += delta.activeTasks;
    counter.reviewsPending = (counter.reviewsPending ?? 0) + delta.reviewsPending;
    if (tr.refund) {
      const { charge } = tr.order;
      user.balance += charge.cost;
      if (charge.trial) user.trialVideosLeft += 1;
      if (charge.heavyAllowanceMonth && charge.heavyAllowanceMonth === tr.refund.heavyMonth) user.heavyUsed -= 1;
      if (refundsSpend(charge, tr.refund.spendMonth, tr.now)) user.spentInMonth = (user.spentInMonth ?? 0) - charge.cost;
      // The refund's entry follows the ledger as it is (the store reads its head again when it moved).
      const allowance = !!charge.heavyAllowanceMonth && charge.heavyAllowanceMonth === tr.refund.heavyMonth;
      const reason = tr.set?.error ? { reason: tr.set.error.code } : {};
      const entry = {
        amount: charge.cost,
        kind: 'refund' as const,
        orderId: stored.id,
        ...paidBy(charge, allowance),
        ...reason,
        createdAt: tr.now.toISOString(),
      };
      this.t.ledger.push({ ...entry, userId: stored.userId, balanceAfter: user.balance, seq: ++user.ledgerSeq });
    }
    if (tr.event) {
      this.t.events.set(tr.event.id, clone(tr.event));
      this.t.pending.add(tr.event.id);
    }
    if (tr.to === 'done' || tr.to === 'error') {
      this.t.open.delete(stored.id);
      // The deadline the order was read with, as the adapter's delete is keyed by it.
      if (tr.order.deadlineAt) this.t.deadlines.delete(stored.id);
    }
    return true;
  }

  async patch(orderId: string, p: Patch, now: Date): Promise<boolean> {
    const stored = this.t.orders.get(orderId);
    if (!stored || stored.status !== p.status) return false;
    if (p.withoutScript && stored.script) return false;
    if (p.regenNote !== undefined && stored.regenNote !== p.regenNote) return false;
    if (p.reviewToken !== undefined && stored.reviewToken !== p.reviewToken) return false;
    apply(stored, p.set, p.remove, now);
    return true;
  }

  async idsOfUser(userId: string): Promise<string[]> {
    return [...this.t.orders.values()]
      .filter((o) => o.userId === userId)
      .map((o) => o.id)
      .sort()
      .reverse();
  }

  /** As the adapter: the order and its recorded events (its partition). */
  async delete(orderId: string): Promise<void> {
    this.t.orders.delete(orderId);
    for (const [id, e] of this.t.events) if (e.orderId === orderId) this.t.events.delete(id);
  }
}

export class MemoryQuotes implements QuoteStore {
  constructor(private readonly t: MemoryTable) {}

  async save(q: Quote): Promise<void> {
    this.t.quotes.set(q.id, clone(q));
  }

  async get(userId: string, quoteId: string, now: Date): Promise<Quote | undefined> {
    const q = this.t.quotes.get(quoteId);
    return q && q.userId === userId && quoteHeld(q, now) ? clone(q) : undefined;
  }
}

/**
 * A page of a marker set walked in sort order as the DynamoDB index is (one shard here): the markers after `from`,
 * young ones passed over, at most `limit`; `next` while more remain.
 */
function markerPage<T>(ids: string[], young: (id: string) => boolean, from: string | undefined, limit: number, ref: (id: string) => T): MarkerPage<T> {
  const rest = ids.sort().filter((id) => from === undefined || id > from);
  const taken = rest.slice(0, limit);
  const items = taken.filter((id) => !young(id)).map((id) => ({ ref: ref(id), after: id }));
  return taken.length < rest.length ? { items, next: taken.at(-1)! } : { items };
}

/** Sort keys in DynamoDB's order: by their bytes (UTF-8 and UTF-16 agree on the ASCII of keys). */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function apply(order: Order, set: Partial<Order> = {}, remove: (keyof Order)[] = [], now: Date) {
  Object.assign(order, clone(set), { updatedAt: now.toISOString() });
  for (const k of remove) delete order[k];
}

/** Both lanes' views of an empty render queue of two slots (eta_seconds). */
export const emptyQueues = () => {
  const view = () =>
    new QueueViews(async (ks) => ks.map(() => ({ ...emptyShardState(), slots: 2 })), { shards: 1, botRun: 3, defaultSecondsPerVideoSecond: 0.5 }, 2000);
  return { live: view(), test: view() };
};

/** The creation use case on these ports, with the default prices and limits, and no render queue unless given one. */
export function memoryCreation(
  table: MemoryTable,
  workflow: MemoryWorkflow,
  metrics: MemoryMetrics,
  log: (message: string) => void = () => undefined,
  deliverable: Deliverable = { ai_visual: true, voice_clone: true },
  prices: Prices = DEFAULT_PRICES,
  announce: Announce = async () => undefined,
  assets: AssetPorts = memoryAssets(table),
  /** A render queue's admission; by default none, the execution started at once. */
  admission?: OrderCreationPorts['admission'],
) {
  const orders = new MemoryOrders(table);
  return new OrderCreation({
    assets,
    orders,
    quotes: new MemoryQuotes(table),
    planPrompt: planFromPrompt,
    deliverable,
    workflow,
    // No render queue here: an order's execution starts at once, as the audit's fallback starts it (and its marker
    // goes, as a queue's enqueue drops it).
    admission: admission ?? {
      enqueue: async (order) => {
        await workflow.start(order);
        await orders.started(order);
      },
    },
    limits: DEFAULT_LIMITS,
    prices,
    announce,
    throughput: { orderSeconds: 20 },
    queues: emptyQueues(),
    metrics,
    log: { error: log, warn: log },
    close: (order, error) =>
      closeInError(
        { orders, accounts: { get: async (id) => table.account(id) }, capacity: { release: async () => undefined }, announce, metrics, now: () => new Date() },
        order,
        error,
      ),
  });
}

/** The keys' assets on the table's map (their records, conditions as the adapter's: TTL counted as the table does). */
export class MemoryAssets implements AssetStore {
  constructor(private readonly t: MemoryTable) {}
  private held = (a: Asset | undefined, now: Date) => (a && heldAt(epochSeconds(new Date(a.expiresAt)), now) ? a : undefined);
  async create(asset: Asset, budget: Budget): Promise<boolean> {
    if (this.t.assets.has(asset.id)) throw new Error(`asset ${asset.id} exists`);
    // As the adapter's window count: one transaction with the asset, nothing written when the day's budget is spent.
    const key = `${budget.owner}:assets:${budget.window.start}`;
    if ((this.t.posts.get(key) ?? 0) >= budget.limit) return false;
    this.t.posts.set(key, (this.t.posts.get(key) ?? 0) + 1);
    this.t.assets.set(asset.id, clone(asset));
    return true;
  }
  async get(userId: string, assetId: string, now: Date): Promise<Asset | undefined> {
    const a = this.held(this.t.assets.get(assetId), now);
    return a?.userId === userId ? clone(a) : undefined;
  }
  async ownerOf(assetId: string, now: Date): Promise<string | undefined> {
    return this.held(this.t.assets.get(assetId), now)?.userId;
  }
  async ofUser(userId: string, range: { below?: string; limit: number }, now: Date): Promise<{ assets: Asset[]; more: boolean }> {
    const mine = [...this.t.assets.values()]
      .filter((a) => a.userId === userId && this.held(a, now) && (range.below === undefined || a.id < range.below))
      .sort((a, b) => byKey(b.id, a.id));
    return { assets: mine.slice(0, range.limit).map(clone), more: mine.length > range.limit };
  }
  async recordCheck(asset: Asset, check: AssetCheck): Promise<void> {
    const a = this.t.assets.get(asset.id);
    if (a) a.check = clone(check);
  }
  async delete(asset: Pick<Asset, 'id' | 'userId'>): Promise<boolean> {
    return this.t.assets.get(asset.id)?.userId === asset.userId && this.t.assets.delete(asset.id);
  }
  async idsOfUser(userId: string): Promise<string[]> {
    return [...this.t.assets.values()].filter((a) => a.userId === userId).map((a) => a.id);
  }
}

/**
 * The bucket's asset objects and the orders' copies; `upload` is a client's PUT to the presigned URL, which only
 * creates (If-None-Match: *): false, and nothing written, where an object is (an upload, or a deleted asset's marker).
 */
export class MemoryAssetFiles implements AssetFiles {
  objects = new Map<string, { bytes: Uint8Array; etag: string }>();
  copies = new Map<string, Uint8Array>();
  private versions = 0;
  upload(asset: Pick<Asset, 'id'>, bytes: Uint8Array): boolean {
    if (this.objects.has(asset.id)) return false;
    this.objects.set(asset.id, { bytes, etag: `"v${++this.versions}"` });
    return true;
  }
  async uploadUrl(asset: Asset, seconds: number) {
    return {
      url: `https://files.example/assets/${asset.userId}/${asset.id}?seconds=${seconds}`,
      headers: { 'Content-Type': asset.contentType, 'Content-Length': String(asset.sizeBytes), 'If-None-Match': '*' },
    };
  }
  async stat(asset: Asset) {
    const o = this.objects.get(asset.id);
    return o ? { size: o.bytes.length, etag: o.etag } : undefined;
  }
  async readTo(asset: Pick<Asset, 'id'>, etag: string, toPath: string) {
    const o = this.objects.get(asset.id);
    if (o?.etag !== etag) return false;
    writeFileSync(toPath, o.bytes);
    return true;
  }
  async copyToOrder(asset: Pick<Asset, 'id'>, etag: string, orderId: string) {
    const o = this.objects.get(asset.id);
    if (o?.etag !== etag) return false;
    this.copies.set(`${orderId}/${asset.id}`, o.bytes);
    return true;
  }
  async readCopy(orderId: string, assetId: string, toPath: string) {
    const copy = this.copies.get(`${orderId}/${assetId}`);
    if (!copy) throw new Error(`no copy of ${assetId} in ${orderId}`);
    writeFileSync(toPath, copy);
  }
  /** As the adapter's: the bytes replaced by an empty marker, which a later upload meets. */
  async delete(asset: Pick<Asset, 'id'>) {
    this.objects.set(asset.id, { bytes: new Uint8Array(0), etag: `"v${++this.versions}"` });
  }
}

/**
 * The first-use check as the check function makes it (inspectUpload, the real ffmpeg decode), in this process; a
 * verdict is kept by content, so the model's sequences decode each distinct picture once.
 */
export class LocalImageCheck implements ImageCheck {
  private readonly verdicts = new Map<string, ImageVerdict>();
  constructor(private readonly files: MemoryAssetFiles) {}
  async check(asset: Asset, etag: string): Promise<ImageVerdict | undefined> {
    const o = this.files.objects.get(asset.id);
    if (o?.etag !== etag) return undefined;
    const known = `${asset.contentType} ${createHash('sha256').update(o.bytes).digest('hex')}`;
    const cached = this.verdicts.get(known);
    if (cached) return cached;
    const dir = mkdtempSync(join(tmpdir(), 'asset-check-'));
    try {
      const readStart = async (path: string) => new Uint8Array(readFileSync(path).subarray(0, SIGNATURE_BYTES));
      const verdict = await inspectUpload({ files: this.files, decode: decodeImage, readStart }, asset, etag, join(dir, 'upload'));
      if (verdict) this.verdicts.set(known, verdict);
      return verdict;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

export const memoryAssets = (table: MemoryTable, files = new MemoryAssetFiles()): AssetPorts & { files: MemoryAssetFiles } => ({
  assets: new MemoryAssets(table),
  files,
  images: new LocalImageCheck(files),
});

/** A 1 x 1 PNG: a picture the check passes. */
export const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNg+M8AAAICAQB7CYF4AAAAAElFTkSuQmCC', 'base64');

/** A client's POST /assets and the PUT of its bytes: the asset's id. */
export async function uploadedAsset(assets: ReturnType<typeof memoryAssets>, userId: string, now: Date, bytes: Uint8Array = PNG_1x1): Promise<string> {
  const created = await createAsset(assets, { userId }, { kind: 'image', content_type: 'image/png', size_bytes: bytes.length }, now);
  assets.files.upload(created, bytes);
  return created.id;
}

/** The quoting use case on these ports, with the default prices, and an empty render queue. */
export function memoryQuoting(table: MemoryTable, prices: Prices = DEFAULT_PRICES) {
  return new OrderQuoting({
    quotes: new MemoryQuotes(table),
    planPrompt: planFromPrompt,
    deliverable: { ai_visual: true, voice_clone: true },
    prices,
    queues: emptyQueues(),
  });
}

/**
 * Executions by name, as Step Functions keeps them: a start of a name that exists is a no-op; `end` makes one end
 * (stopped, or failed before it closed its order), `lose` makes it vanish as a local stop does.
 */
class MemoryExecutions {
  executions = new Map<string, 'running' | 'ended'>();
  /** The names started, in order. */
  started: string[] = [];
  /** When set, a start fails as StartExecution does when Step Functions is away. */
  failStarts = false;
  /** True when it started the execution; false when one of that name was there. */
  protected run(name: string): boolean {
    if (this.failStarts) throw Object.assign(new Error('Step Functions is away'), { name: 'ServiceUnavailable' });
    if (this.executions.has(name)) return false;
    this.executions.set(name, 'running');
    this.started.push(name);
    return true;
  }
  /** DescribeExecution calls made, and how many of the next ones are throttled (past the SDK's own retries). */
  describes = 0;
  described: string[] = [];
  throttleDescribes = 0;
  protected stateOf(name: string): ExecutionState {
    this.describes++;
    this.described.push(name);
    if (this.throttleDescribes > 0) {
      this.throttleDescribes--;
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    }
    return this.executions.get(name) ?? 'missing';
  }
  end(name: string) {
    this.executions.set(name, 'ended');
  }
  lose(name: string) {
    this.executions.delete(name);
  }
}

/** The delivery workflow: executions named by the event (or the name a restart recorded on it). */
export class MemoryDeliveryWorkflow extends MemoryExecutions {
  async start(event: EventRef & { execution?: string }): Promise<boolean> {
    return this.run(event.execution ?? event.id);
  }
  async state(event: EventRef & { execution?: string }): Promise<ExecutionState> {
    return this.stateOf(event.execution ?? event.id);
  }
}

/** The order workflow: executions named by the order (or the name a restart recorded on it); review answers. */
export class MemoryWorkflow extends MemoryExecutions {
  answered: { taskToken: string; action: string }[] = [];
  /** Task tokens whose wait is gone (its execution was stopped). */
  goneTokens = new Set<string>();

  async start(order: Order): Promise<boolean> {
    return this.run(order.execution ?? order.id);
  }

  async state(order: Order): Promise<ExecutionState> {
    return this.stateOf(order.execution ?? order.id);
  }

  /** The executions stopped, by name. */
  stopped: string[] = [];

  async stop(order: Order): Promise<void> {
    const name = order.execution ?? order.id;
    if (this.executions.get(name) !== 'running') return;
    this.end(name);
    this.stopped.push(name);
  }

  /** How many hand-offs fail next, as SendTaskSuccess does when Step Functions throttles. */
  failAnswers = 0;

  async answerReview(taskToken: string, decision: { action: string }): Promise<boolean> {
    if (this.failAnswers > 0) {
      this.failAnswers--;
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    }
    if (this.goneTokens.has(taskToken)) return false;
    this.answered.push({ taskToken, action: decision.action });
    return true;
  }
}

export class MemoryMetrics {
  counts = new Map<MetricName, number>();
  count(name: MetricName) {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }
  of(name: MetricName) {
    return this.counts.get(name) ?? 0;
  }
  gauges = new Map<GaugeName, number>();
  gauge(name: GaugeName, value: number) {
    this.gauges.set(name, value);
  }
}

/** Stored order files by `<order id>/<file>`. */
export class MemoryFiles implements FileStore {
  stored = new Map<string, Buffer | string>();
  puts = 0;
  async put(orderId: string, file: OrderFile, body: Buffer | string): Promise<void> {
    this.puts++;
    this.stored.set(`${orderId}/${file}`, body);
  }
  async exists(orderId: string, file: OrderFile): Promise<boolean> {
    return this.stored.has(`${orderId}/${file}`);
  }
  async presign(orderId: string, file: OrderFile, seconds: number): Promise<string> {
    return `https://files.example/${orderId}/${file}?seconds=${seconds}`;
  }
  /** Every file of the order; how many there were. */
  async deleteAll(orderId: string): Promise<number> {
    const mine = [...this.stored.keys()].filter((k) => k.startsWith(`${orderId}/`));
    for (const k of mine) this.stored.delete(k);
    return mine.length;
  }
}

/**
 * The embedded planner and writer (pure and fast), and a renderer that writes two small files instead of encoding a
 * video (test/generator renders real ones). It counts its calls, so a test can tell a step that rendered again.
 */
export class MemoryGenerator implements Generator {
  renders: RenderRequest[] = [];
  writes = 0;
  planner = { plan: async (prompt: string) => planFromPrompt(prompt) };
  writer = {
    write: async (req: Parameters<EmbeddedWriter['write']>[0]) => {
      this.writes++;
      return new EmbeddedWriter().write(req);
    },
  };
  renderer = {
    render: async (req: RenderRequest) => {
      this.renders.push(req);
      const video = join(req.outDir, 'video.mp4');
      const cover = join(req.outDir, 'cover.jpg');
      writeFileSync(video, `video of ${req.orderId} ${req.watermark ?? ''}`);
      writeFileSync(cover, 'cover');
      return { video, cover, seconds: req.params.duration_seconds };
    },
  };
}

export const memoryLinks = { issue: async (orderId: string, now: Date) => orderLinks('https://api.example/v1', 'link-key', orderId, now) };

export class MemoryWebhooks implements WebhookStore {
  constructor(private readonly t: MemoryTable) {}
  async ofUser(userId: string) {
    const w = this.t.webhooks.get(userId);
    return w && clone(w);
  }
  async ownerOf(webhookId: string) {
    return [...this.t.webhooks.values()].find((w) => w.id === webhookId)?.userId;
  }
  /** As the adapter: only over the webhook as read (its version; undefined: none), bumping the version. */
  async save(w: Webhook, read: Webhook | undefined) {
    const current = this.t.webhooks.get(w.userId);
    const unchanged = read ? current?.id === read.id && current.version === read.version : current === undefined;
    if (unchanged) this.t.webhooks.set(w.userId, clone({ ...w, version: (read?.version ?? 0) + 1 }));
    return unchanged;
  }
  async delete(w: { id: string; userId: string }) {
    const mine = this.t.webhooks.get(w.userId)?.id === w.id;
    if (mine) this.t.webhooks.delete(w.userId);
    return mine;
  }
}

/** Recorded events and attempts, with the adapter's rule: one record per attempt number. */
export class MemoryEvents implements EventStore {
  constructor(private readonly t: MemoryTable) {}
  async settled(event: EventRef) {
    this.t.pending.delete(event.id);
    this.t.pendingSince.delete(event.id);
  }
  async restartAs(event: StoredEvent, execution: string) {
    const stored = this.t.events.get(event.id);
    if (!stored || stored.attempts !== event.attempts) return false;
    stored.execution = execution;
    return true;
  }
  async pendingPage(before: Date, from: string | undefined, limit: number) {
    // A marker's own moment: the event's recording, or the resend that reopened it.
    const young = (id: string) => (this.t.pendingSince.get(id) ?? this.t.events.get(id)!.createdAt) >= before.toISOString();
    return markerPage([...this.t.pending], young, from, limit, (id) => ({ id, orderId: this.t.events.get(id)!.orderId }));
  }
  async get(_orderId: string, eventId: string) {
    const e = this.t.events.get(eventId);
    return e && clone(e);
  }
  async record(event: StoredEvent, attempt: DeliveryAttempt, userId: string): Promise<boolean> {
    const stored = this.t.events.get(event.id)!;
    if ((stored.attempts ?? 0) !== attempt.attempt - 1) return false;
    stored.attempts = attempt.attempt;
    stored.delivery = attempt.outcome;
    this.t.attempts.push({ ...clone(attempt), userId });
    return true;
  }
  async mark(event: StoredEvent, delivery: DeliveryStatus) {
    this.t.events.get(event.id)!.delivery = delivery;
  }
  /** As the adapter: only from the settled state it was read in and within the key's budget, its pending marker again. */
  async reopen(event: StoredEvent, r: Reopening): Promise<Reopened> {
    const stored = this.t.events.get(event.id);
    if (!stored || stored.delivery !== event.delivery || stored.attempts !== event.attempts) return 'moved';
    const window = `${r.budget.owner}:${r.budget.window.start}`;
    if ((this.t.resends.get(window) ?? 0) >= r.budget.limit) return 'over_budget';
    this.t.resends.set(window, (this.t.resends.get(window) ?? 0) + 1);
    Object.assign(stored, { delivery: 'pending', execution: r.execution, lastAttempt: r.lastAttempt, resentAt: r.now.toISOString() });
    this.t.pending.add(event.id);
    this.t.pendingSince.set(event.id, r.now.toISOString());
    return 'reopened';
  }
  async droppedSince(userId: string, since: Date) {
    const ids = new Set(this.t.attempts.filter((a) => a.outcome === 'dropped' && a.at >= since.toISOString()).map((a) => a.eventId));
    return [...ids]
      .map((id) => this.t.events.get(id)!)
      .filter((e) => e.userId === userId)
      .map((e) => ({ id: e.id, orderId: e.orderId }));
  }
  async attemptsOfUser(userId: string, limit: number): Promise<DeliveryAttempt[]> {
    return (
      this.t.attempts
        .filter((a) => a.userId === userId)
        .map(({ userId: _u, ...a }) => clone(a))
        // As the adapter's sort key orders them: the moment, the event, the attempt.
        .sort((a, b) => `${b.at}#${b.eventId}#${b.attempt}`.localeCompare(`${a.at}#${a.eventId}#${a.attempt}`))
        .slice(0, limit)
    );
  }
}

/** A webhook receiver that answers each attempt with the next status of its script (then 200). */
export class ScriptedReceiver {
  received: { url: string; body: string; headers: Record<string, string> }[] = [];
  constructor(private readonly statuses: number[] = []) {}
  async send(url: string, body: string, headers: Record<string, string>) {
    this.received.push({ url, body, headers });
    const status = this.statuses.shift() ?? 200;
    return { ok: status >= 200 && status < 300, status, latencyMs: 1 };
  }
}

/** The event a status change records, as the steps write it. */
export function recordEvent(t: MemoryTable, e: OrderEvent): StoredEvent {
  t.events.set(e.id, clone(e));
  t.pending.add(e.id);
  return clone(e);
}

/** Slots and waits with the DynamoDB adapter's conditions; wakes are recorded, and a token can be made to have died. */
/**
 * The render queue's items, with the adapter's conditions. Every write counts against the item it writes (`writes`,
 * by the names below), so a test can tell whether some item is written by every admission.
 */
/** The waits by order id, and by their shard's channel (a partition of the adapter's): its waits found without a scan of all. */
export class Waits extends Map<string, Waiter> {
  private readonly parts = new Map<string, Map<string, Waiter>>();
  /** The waits of a shard's channel. */
  in(shard: number, channel: Channel): Iterable<Waiter> {
    return this.parts.get(`${shard}#${channel}`)?.values() ?? [];
  }
  override set(id: string, w: Waiter) {
    const old = this.get(id);
    if (old) this.parts.get(`${old.shard}#${old.channel}`)?.delete(id);
    super.set(id, w);
    const key = `${w.shard}#${w.channel}`;
    if (!this.parts.has(key)) this.parts.set(key, new Map());
    this.parts.get(key)!.set(id, w);
    return this;
  }
  override delete(id: string) {
    const old = this.get(id);
    if (old) this.parts.get(`${old.shard}#${old.channel}`)?.delete(id);
    return super.delete(id);
  }
}

export class MemoryCapacity implements CapacityStore, Wakeup {
  held = new Map<number, Slot>();
  waiting = new Waits();
  shardStates = new Map<number, ShardState>();
  holds = new Map<string, number>();
  woken: { token: string; slot: number }[] = [];
  deadTokens = new Set<string>();
  /** Writes per item: slot#<n>, state#<shard>, waiting#<shard>#<channel>#<order>, hold#<order>. */
  writes = new Map<string, number>();
  /** The items each admission wrote, in order. */
  claims: string[][] = [];
  /** Reads per kind of item, as the adapter would send them (slots and states by key, heads by a query). */
  reads = { slot: 0, state: 0, waiting: 0 };

  private wrote(...items: string[]) {
    for (const item of items) this.writes.set(item, (this.writes.get(item) ?? 0) + 1);
  }
  private state(shard: number): ShardState {
    if (!this.shardStates.has(shard)) this.shardStates.set(shard, emptyShardState());
    return this.shardStates.get(shard)!;
  }
  async slots(ns: readonly number[]) {
    this.reads.slot += ns.length;
    return ns.map((n) => clone(this.held.get(n) ?? { n }));
  }
  async states(shards: readonly number[]) {
    this.reads.state += shards.length;
    return shards.map((k) => clone(this.shardStates.get(k) ?? emptyShardState()));
  }
  async head(shard: number, channel: Channel) {
    this.reads.waiting++;
    const first = [...this.waiting.in(shard, channel)].sort(queueOrder)[0];
    return first && clone(first);
  }
  async waiter(shard: number, channel: Channel, orderId: string, _key: string) {
    this.reads.waiting++;
    const w = this.waiting.get(orderId);
    return w?.shard === shard && w.channel === channel ? clone(w) : undefined;
  }
  /** How many orders of a channel wait, in every shard. */
  async waitingCount(channel: Channel) {
    return [...this.waiting.values()].filter((w) => w.channel === channel).length;
  }
  /** For each head waiting, the orders of each other key admitted while it waited (a fairness check's record, not the adapter's). */
  passedBy = new Map<string, Map<string, Set<string>>>();
  /** Each key's waits per shard and channel (the adapter's keys.queueKey items): how many, and its head. */
  keyStates = new Map<string, { n: number; head?: { orderId: string; number: number } }>();
  private keyOf(w: Pick<Waiter, 'shard' | 'channel' | 'key'>) {
    const id = `${w.shard}#${w.channel}#${w.key}`;
    if (!this.keyStates.has(id)) this.keyStates.set(id, { n: 0 });
    return { id, kx: this.keyStates.get(id)! };
  }
  async wait(w: NewWait) {
    const before = this.waiting.get(w.orderId);
    if (before && before.shard === w.shard && before.channel === w.channel) {
      const again = { ...before, token: w.token, since: w.since };
      this.waiting.set(w.orderId, again);
      this.wrote(`waiting#${w.shard}#${w.channel}#${w.orderId}`);
      return placeOf(again);
    }
    return this.newWait(w);
  }
  /**
   * When set, the next enqueue (a new order's wait) takes its ticket and then its write fails, as the adapter's
   * transaction may throw (DynamoDB's InternalServerError): the ticket stays counted with no wait, a ghost.
   */
  failNextEnqueue = false;
  /** Tickets the failures above left counted with no wait. */
  ghostsMade = 0;
  /** A wait's ticket (and head number, for a key with none waiting), as the adapter's counter update hands them. */
  private take(w: NewWait): Waiter {
    const { kx } = this.keyOf(w);
    const state = this.state(w.shard);
    const ticket = ++state.issued[w.channel];
    this.wrote(`state#${w.shard}`);
    if (kx.n === 0 && !kx.head) return { ...clone(w), ticket, head: ++state.headsIssued[w.channel] };
    return { ...clone(w), ticket, behind: kx.n };
  }
  /** A taken wait written, its key's item counting it (a head's, its key's head). */
  private put(x: Waiter) {
    const { id, kx } = this.keyOf(x);
    this.waiting.set(x.orderId, x);
    kx.n++;
    if (x.head !== undefined) kx.head = { orderId: x.orderId, number: x.head };
    this.wrote(`waiting#${x.shard}#${x.channel}#${x.orderId}`, `key#${id}`);
    return placeOf(x);
  }
  /** A wait with its shard's next ticket, its key's head or parked behind it. */
  protected newWait(w: NewWait) {
    return this.put(this.take(w));
  }
  /** The table whose orders a new order's wait marks (its place, its unstarted marker), as the adapter's transaction does. */
  constructor(private readonly table?: MemoryTable) {}
  async enqueue(w: NewWait, order: Pick<Order, 'id' | 'queueShard'>) {
    const stored = this.table?.orders.get(order.id);
    // As the adapter: an order that waits already as its key's head is seen before any ticket is taken.
    if (this.keyOf(w).kx.head?.orderId === w.orderId) return undefined;
    if ((this.table && stored?.status !== 'queued') || this.waiting.has(w.orderId)) {
      // As the adapter: its counters handed a ticket before the transaction was refused, and it was given back.
      const x = this.take(w);
      const state = this.state(w.shard);
      state.served[w.channel]++;
      if (x.head !== undefined) state.headsServed[w.channel]++;
      return undefined;
    }
    if (this.failNextEnqueue) {
      this.failNextEnqueue = false;
      this.ghostsMade++;
      this.take(w);
      throw Object.assign(new Error("the wait's transaction failed after its ticket"), { name: 'InternalServerError' });
    }
    const place = this.newWait(w);
    if (stored) stored.queuePlace = { shard: w.shard, ...place };
    this.table?.unstarted.delete(order.id);
    return place;
  }
  /**
   * A wait leaves (admitted, or forgotten): its key counts one less, and a head's key's oldest parked wait becomes its
   * head at the rotation's end (its number from the state as read, as the adapter takes it).
   */
  private leave(w: Waiter, read: ShardState): Waiter | undefined {
    const { id, kx } = this.keyOf(w);
    this.passedBy.delete(w.orderId);
    const state = this.state(w.shard);
    this.waiting.delete(w.orderId);
    state.served[w.channel]++;
    if (w.head !== undefined) state.headsServed[w.channel]++;
    if (kx.head?.orderId !== w.orderId) {
      kx.n = Math.max(0, kx.n - 1);
      return undefined;
    }
    const next = [...this.waiting.in(w.shard, w.channel)].filter((x) => x.key === w.key && x.head === undefined).sort(queueOrder)[0];
    if (kx.n > 1 && next) {
      const promoted: Waiter = { ...next, head: read.headsIssued[w.channel] + 1 };
      delete promoted.behind;
      state.headsIssued[w.channel]++;
      this.waiting.set(next.orderId, promoted);
      this.keyStates.set(id, { n: kx.n - 1, head: { orderId: next.orderId, number: promoted.head! } });
      this.wrote(`waiting#${w.shard}#${w.channel}#${next.orderId}`);
      return promoted;
    }
    this.keyStates.set(id, { n: 0 });
    return undefined;
  }
  /** Whether the wait's leaving makes its key's next parked wait its head. */
  private promotes(w: Waiter) {
    const { kx } = this.keyOf(w);
    return kx.head?.orderId === w.orderId && kx.n > 1 && [...this.waiting.in(w.shard, w.channel)].some((x) => x.key === w.key && x.head === undefined);
  }
  async unwait(shard: number, channel: Channel, orderId: string, _key: string) {
    const w = this.waiting.get(orderId);
    if (w?.shard !== shard || w.channel !== channel) return;
    const promoted = this.leave(w, clone(this.state(shard)));
    if (promoted) await this.place(promoted);
    this.wrote(`waiting#${shard}#${channel}#${orderId}`, `key#${shard}#${channel}#${w.key}`, `state#${shard}`);
  }
  async claim(c: Claim) {
    const slot = this.held.get(c.slot.n);
    if (c.slot.holder ? slot?.holder !== c.slot.holder || (slot.leaseUntil ?? 0) >= c.now.getTime() : slot?.holder) return false;
    const w = this.waiting.get(c.waiter.orderId);
    const queue = this.state(c.waiter.shard);
    // As the adapter: the wait's item as read (a head by its number, or parked), its token, the bot run.
    if (w?.token !== c.waiter.token || w.shard !== c.waiter.shard || w.head !== c.waiter.head || queue.botRun !== c.streak.from) return false;
    // A promotion numbers its key's next head from the counter as read: only while it is.
    if (this.promotes(w) && queue.headsIssued[w.channel] !== c.queue.headsIssued[w.channel]) return false;
    const since = c.now.getTime();
    this.held.set(c.slot.n, {
      n: c.slot.n,
      holder: w.orderId,
      channel: w.channel,
      leaseUntil: c.leaseUntil.getTime(),
      since: c.now.toISOString(),
      ...(w.videoSeconds !== undefined ? { videoSeconds: w.videoSeconds } : {}),
    });
    // The heads of other keys this admission passed, and the orders of each key that passed them.
    for (const h of this.waiting.in(w.shard, w.channel)) {
      if (h.head === undefined || h.key === w.key) continue;
      const byKey = this.passedBy.get(h.orderId) ?? new Map<string, Set<string>>();
      byKey.set(w.key, (byKey.get(w.key) ?? new Set()).add(w.orderId));
      this.passedBy.set(h.orderId, byKey);
    }
    const promoted = this.leave(w, c.queue);
    queue.botRun = c.streak.to;
    const busy = this.state(c.slotShard);
    busy.busy++;
    busy.busyVideoSeconds += w.videoSeconds ?? 0;
    busy.busySinceMs += since;
    if (slot?.holder) {
      // The lease ended: the old holder's counts leave the shard, and its hold with them.
      busy.busy--;
      busy.busyVideoSeconds -= slot.videoSeconds ?? 0;
      busy.busySinceMs -= slot.since ? Date.parse(slot.since) : 0;
      this.holds.delete(slot.holder);
    }
    this.holds.set(w.orderId, c.slot.n);
    const items = [
      `slot#${c.slot.n}`,
      `waiting#${w.shard}#${w.channel}#${w.orderId}`,
      `key#${w.shard}#${w.channel}#${w.key}`,
      `state#${w.shard}`,
      `hold#${w.orderId}`,
    ];
    if (c.slotShard !== w.shard) items.push(`state#${c.slotShard}`);
    if (slot?.holder) items.push(`hold#${slot.holder}`);
    this.wrote(...items);
    this.claims.push(items);
    return promoted ? { promoted } : {};
  }
  /** As the adapter: a promoted head's place on its order, while it is active. */
  async place(w: Waiter) {
    const order = this.table?.orders.get(w.orderId);
    if (w.head !== undefined && order && (order.status === 'queued' || order.status === 'running'))
      order.queuePlace = { shard: w.shard, ticket: w.ticket, head: w.head };
  }
  async renew(n: number, orderId: string, leaseUntil: Date) {
    const slot = this.held.get(n);
    if (slot?.holder !== orderId) return false;
    slot.leaseUntil = leaseUntil.getTime();
    this.wrote(`slot#${n}`);
    return true;
  }
  async release(s: Slot, slotShard: number, rate?: number) {
    const slot = this.held.get(s.n);
    if (!s.holder || slot?.holder !== s.holder || slot.since !== s.since) return false;
    this.held.delete(s.n);
    const state = this.state(slotShard);
    state.busy--;
    state.busyVideoSeconds -= slot.videoSeconds ?? 0;
    state.busySinceMs -= slot.since ? Date.parse(slot.since) : 0;
    if (rate !== undefined) state.rate = rate;
    this.holds.delete(s.holder);
    this.wrote(`slot#${s.n}`, `state#${slotShard}`, `hold#${s.holder}`);
    return true;
  }
  async holding(orderId: string) {
    return this.holds.get(orderId);
  }
  async tickets(shard: number, channel: Channel) {
    this.reads.waiting++;
    return [...this.waiting.in(shard, channel)].map((w) => ({ ticket: w.ticket, head: w.head !== undefined }));
  }
  async recount(r: Recount) {
    const state = this.state(r.shard);
    const mark = state.marks[r.channel];
    const same = (a?: RecountMark, b?: RecountMark) => a?.issued === b?.issued && a?.atMs === b?.atMs;
    if (state.served[r.channel] !== r.from.served || !same(mark, r.from.mark)) return false;
    if (r.from.issued !== undefined && state.issued[r.channel] !== r.from.issued) return false;
    const heads = r.from.heads;
    if (heads && (state.headsIssued[r.channel] !== heads.issued || state.headsServed[r.channel] !== heads.served)) return false;
    if (heads && r.to.headsServed !== undefined) state.headsServed[r.channel] = r.to.headsServed;
    state.served[r.channel] = r.to.served;
    state.marks[r.channel] = { ...r.to.mark };
    this.wrote(`state#${r.shard}`);
    return true;
  }
  /**
   * A wait's first write alone: its shard's next ticket, counted. The wait is written when the returned call is made;
   * never made, the ticket is a ghost (a wait's write that failed or died after its ticket).
   */
  ticketOnly(w: NewWait): () => Promise<void> {
    const { kx } = this.keyOf(w);
    const read = clone(kx);
    const x = this.take(w);
    return async () => {
      // As the adapter's transaction: only while the key's waits are as read.
      if (kx.n !== read.n || kx.head?.orderId !== read.head?.orderId) throw Object.assign(new Error('the key moved'), { name: 'TransactionCanceledException' });
      this.put(x);
    };
  }
  /** When set, a wake fails as a call to an unreachable Step Functions does. */
  unreachable = false;
  async wake(token: string, slot: number) {
    if (this.unreachable) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    if (this.deadTokens.has(token)) return false;
    this.woken.push({ token, slot });
    return true;
  }
  /** Which orders hold a slot now. */
  holders() {
    return [...this.held.values()].map((s) => s.holder);
  }
}
