/**
 * Stored items made into records field by field: each record type has its function, which picks its fields and checks
 * each one's type, so a malformed item fails loudly (MalformedItem names the item and the field) instead of flowing
 * on as a record it is not. Attributes a record does not name (the table's keys, TTL) are left behind.
 */
import type { Asset } from '../core/assets.ts';
import type { Slot, Waiter } from '../core/capacity.ts';
import type { DeliveryAttempt, DeliveryStatus, StoredEvent } from '../core/deliveries.ts';
import type { Order } from '../core/orders.ts';
import type { IdempotencyRecord, OrderEvent } from '../core/ports.ts';
import type { Account, Charge, Extra } from '../core/pricing.ts';
import type { Quote } from '../core/quote-order.ts';
import type { LedgerLine } from '../core/transactions.ts';
import type { Webhook } from '../core/webhooks.ts';
import { TABLE_KEYS } from './keys.ts';

export class MalformedItem extends Error {
  override readonly name = 'MalformedItem';
}

type Item = Record<string, unknown>;

/** A reader of one item's fields, each checked; `what` names the record in errors. */
export class Fields {
  constructor(
    private readonly item: Item,
    private readonly what: string,
  ) {}

  private fail(field: string, expected: string): never {
    const at = [this.item[TABLE_KEYS.pk], this.item[TABLE_KEYS.sk]].filter((k) => k !== undefined).join(' ');
    throw new MalformedItem(
      `A stored ${this.what}${at ? ` (${at})` : ''} has no valid ${field}: ${expected} expected, ${JSON.stringify(this.item[field]) ?? 'nothing'} found`,
    );
  }

  str = (k: string): string => (typeof this.item[k] === 'string' ? (this.item[k] as string) : this.fail(k, 'a string'));
  num = (k: string): number => (typeof this.item[k] === 'number' && Number.isFinite(this.item[k]) ? (this.item[k] as number) : this.fail(k, 'a number'));
  bool = (k: string): boolean => (typeof this.item[k] === 'boolean' ? (this.item[k] as boolean) : this.fail(k, 'a boolean'));
  /** An object whose shape the domain owns (its parameters, script): checked to be an object, taken as it is. */
  obj = <T>(k: string): T => {
    const v = this.item[k];
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as T) : this.fail(k, 'an object');
  };
  oneOf = <V extends string>(k: string, values: readonly V[]): V =>
    values.includes(this.item[k] as V) ? (this.item[k] as V) : this.fail(k, values.join(' | '));
  strings = (k: string): string[] => {
    const v = this.item[k];
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : this.fail(k, 'a list of strings');
  };
  /** The field read by `read` when the item has it; nothing when it has not. */
  maybe = <K extends string, V>(k: K, read: (k: K) => V): { [P in K]?: V } => (this.item[k] === undefined ? {} : ({ [k]: read(k) } as { [P in K]?: V }));
}

const STATUSES = ['queued', 'running', 'awaiting_review', 'done', 'error'] as const;
const EVENT_TYPES = ['video.awaiting_review', 'video.done', 'video.error', 'balance.low'] as const;
const EXTRAS: readonly Extra[] = ['placement', 'ai_visual', 'song', 'voice_clone'];

export function chargeOf(item: Item): Charge {
  const f = new Fields(item, 'charge');
  const extras = f.strings('extras');
  if (!extras.every((e) => EXTRAS.includes(e as Extra))) throw new MalformedItem(`A stored charge names an unknown extra: ${extras.join(', ')}`);
  return {
    cost: f.num('cost'),
    trial: f.bool('trial'),
    extras: extras as Extra[],
    ...f.maybe('heavyAllowanceMonth', f.str),
    ...(f.maybe('test', f.bool).test ? { test: true } : {}),
    ...f.maybe('spendMonth', f.str),
  };
}

/** A user item as its account: the counters a write never made read as 0, the plan from its two attributes. */
export function accountOf(item: Item): Account {
  const f = new Fields(item, 'account');
  const { planName, heavyMonth, testOf, testAccount, spendMonth } = {
    ...f.maybe('planName', f.str),
    ...f.maybe('heavyMonth', f.str),
    ...f.maybe('testOf', f.str),
    ...f.maybe('testAccount', f.str),
    ...f.maybe('spendMonth', f.str),
  };
  const count = (k: string) => f.maybe(k, f.num)[k] ?? 0;
  return {
    userId: f.str('userId'),
    balance: f.num('balance'),
    trialVideosLeft: f.num('trialVideosLeft'),
    ...(planName ? { plan: { name: planName, heavyPerMonth: count('planHeavyPerMonth') } } : {}),
    ...(heavyMonth ? { heavyMonth } : {}),
    heavyUsed: count('heavyUsed'),
    activeTasks: f.num('activeTasks'),
    reviewsPending: count('reviewsPending'),
    ledgerSeq: count('ledgerSeq'),
    ...(testOf ? { testOf } : {}),
    ...(testAccount ? { testAccount } : {}),
    ...f.maybe('spendLimit', f.num),
    ...(spendMonth ? { spendMonth, spentInMonth: count('spentInMonth') } : {}),
    ...f.maybe('lowBelow', f.num),
    ...(f.maybe('lowAlertSent', f.bool).lowAlertSent ? { lowAlertSent: true } : {}),
    ...(count('lowAlerts') ? { lowAlerts: count('lowAlerts') } : {}),
  };
}

export function orderOf(item: Item): Order {
  const f = new Fields(item, 'order');
  return {
    id: f.str('id'),
    userId: f.str('userId'),
    status: f.oneOf('status', STATUSES),
    kind: f.oneOf('kind', ['quick', 'explicit'] as const),
    ...f.maybe('channel', (k) => f.oneOf(k, ['api', 'bot'] as const)),
    ...f.maybe('prompt', f.str),
    params: f.obj('params'),
    charge: chargeOf(f.obj('charge')),
    createdAt: f.str('createdAt'),
    updatedAt: f.str('updatedAt'),
    etaSeconds: f.num('etaSeconds'),
    queueShard: f.num('queueShard'),
    ...f.maybe('limitsOf', f.str),
    ...f.maybe('execution', f.str),
    ...f.maybe('planned', f.bool),
    ...f.maybe('script', f.obj<NonNullable<Order['script']>>),
    ...f.maybe('reviewToken', f.str),
    ...f.maybe('reviewRound', f.num),
    ...f.maybe('reviewed', f.bool),
    ...f.maybe('regenNote', f.str),
    ...f.maybe('regens', f.num),
    ...f.maybe('renderStartedAt', f.str),
    ...f.maybe('renderExecution', f.str),
    ...f.maybe('rendered', f.bool),
    ...f.maybe('metadata', f.obj<NonNullable<Order['metadata']>>),
    ...f.maybe('error', (k) => {
      const e = new Fields(f.obj(k), 'order error');
      return { code: e.str('code'), message: e.str('message') };
    }),
    ...f.maybe('finishedAt', f.str),
    ...f.maybe('queuePlace', (k) => {
      const p = new Fields(f.obj(k), 'queue place');
      return { shard: p.num('shard'), ticket: p.num('ticket'), ...p.maybe('head', p.num), ...p.maybe('behind', p.num) };
    }),
    ...f.maybe('startedAt', f.str),
    ...f.maybe('deadlineAt', f.str),
    ...f.maybe('clientMetadata', (k) => {
      const pairs = f.obj<Record<string, unknown>>(k);
      for (const [key, value] of Object.entries(pairs)) if (typeof value !== 'string') throw new MalformedItem(`order: clientMetadata.${key} is not a string`);
      return pairs as Record<string, string>;
    }),
    ...f.maybe('refunded', f.bool),
    ...f.maybe('assets', (k) => {
      const assets = f.obj<Record<string, unknown>>(k);
      return Object.fromEntries(
        Object.entries(assets).map(([id, v]) => {
          const a = new Fields(v as Item, `order asset ${id}`);
          return [id, { contentType: a.oneOf('contentType', ASSET_TYPES), width: a.num('width'), height: a.num('height'), ...a.maybe('etag', a.str) }];
        }),
      );
    }),
  };
}

const ASSET_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

export function assetOf(item: Item): Asset {
  const f = new Fields(item, 'asset');
  return {
    id: f.str('id'),
    userId: f.str('userId'),
    kind: f.oneOf('kind', ['image'] as const),
    contentType: f.oneOf('contentType', ASSET_TYPES),
    sizeBytes: f.num('sizeBytes'),
    createdAt: f.str('createdAt'),
    expiresAt: new Date(f.num(TABLE_KEYS.ttl) * 1000).toISOString(),
    ...f.maybe('check', (k) => {
      const c = new Fields(f.obj(k), 'asset check');
      return c.oneOf('status', ['ready', 'refused'] as const) === 'ready'
        ? { status: 'ready' as const, width: c.num('width'), height: c.num('height'), etag: c.str('etag') }
        : { status: 'refused' as const, reason: c.str('reason') };
    }),
  };
}

export function idempotencyRecordOf(item: Item): IdempotencyRecord {
  const f = new Fields(item, 'idempotency record');
  const r = new Fields(f.obj('response'), 'idempotency record response');
  return {
    route: f.str('route'),
    requestHash: f.str('requestHash'),
    orderId: f.str('orderId'),
    response: { id: r.str('id'), status: r.oneOf('status', STATUSES), cost: r.num('cost'), eta_seconds: r.num('eta_seconds') },
  };
}

export function orderEventOf(item: Item): OrderEvent {
  const f = new Fields(item, 'event');
  return {
    id: f.str('id'),
    type: f.oneOf('type', EVENT_TYPES),
    orderId: f.str('orderId'),
    userId: f.str('userId'),
    record: f.obj('record'),
    createdAt: f.str('createdAt'),
  };
}

/**
 * A quote: its request's hash is stored as `requestHash` (its attribute since quotes were first kept), and its expiry
 * only as the TTL attribute, in epoch seconds (which took the name `expiresAt`).
 */
export function quoteOf(item: Item): Quote {
  const f = new Fields(item, 'quote');
  return {
    id: f.str('id'),
    userId: f.str('userId'),
    pricedHash: f.str('requestHash'),
    charge: chargeOf(f.obj('charge')),
    createdAt: f.str('createdAt'),
    expiresAt: new Date(f.num(TABLE_KEYS.ttl) * 1000).toISOString(),
    ...f.maybe('orderId', f.str),
  };
}

/** A ledger entry; its id is the rest of its sort key after the ledger's prefix. */
export function ledgerLineOf(item: Item, idOf: (sortKey: string) => string): LedgerLine {
  const f = new Fields(item, 'ledger entry');
  return {
    id: idOf(f.str(TABLE_KEYS.sk)),
    amount: f.num('amount'),
    kind: f.oneOf('kind', ['top_up', 'charge', 'refund'] as const),
    ...f.maybe('orderId', f.str),
    ...f.maybe('trial', f.bool),
    ...f.maybe('allowance', f.bool),
    ...f.maybe('reason', f.str),
    balanceAfter: f.num('balanceAfter'),
    createdAt: f.str('createdAt'),
  };
}

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dropped', 'no_webhook'];

/** An order event with where its delivery stands. */
export function storedEventOf(item: Item): StoredEvent {
  const f = new Fields(item, 'order event');
  return {
    ...orderEventOf(item),
    ...f.maybe('delivery', (k) => f.oneOf(k, DELIVERY_STATUSES)),
    ...f.maybe('attempts', f.num),
    ...f.maybe('lastAttempt', f.num),
    ...f.maybe('execution', f.str),
  };
}

export function deliveryAttemptOf(item: Item): DeliveryAttempt {
  const f = new Fields(item, 'delivery attempt');
  return {
    eventId: f.str('eventId'),
    orderId: f.str('orderId'),
    type: f.oneOf('type', EVENT_TYPES),
    webhookId: f.str('webhookId'),
    attempt: f.num('attempt'),
    at: f.str('at'),
    url: f.str('url'),
    ...f.maybe('status', f.num),
    ...f.maybe('error', f.str),
    latencyMs: f.num('latencyMs'),
    outcome: f.oneOf('outcome', DELIVERY_STATUSES),
  };
}

export function webhookOf(item: Item): Webhook {
  const f = new Fields(item, 'webhook');
  return {
    id: f.str('id'),
    userId: f.str('userId'),
    url: f.str('url'),
    active: f.bool('active'),
    createdAt: f.str('createdAt'),
    secret: f.str('secret'),
    ...f.maybe('previousSecret', f.str),
    ...f.maybe('previousUntil', f.str),
    ...f.maybe('version', f.num),
  };
}

const CHANNELS = ['api', 'bot'] as const;

/** Render slot `n` (its number is in its key); a free one has no holder. */
export function slotOf(item: Item, n: number): Slot {
  const f = new Fields(item, 'render slot');
  return {
    n,
    ...f.maybe('holder', f.str),
    ...f.maybe('channel', (k) => f.oneOf(k, CHANNELS)),
    ...f.maybe('leaseUntil', f.num),
    ...f.maybe('since', f.str),
    ...f.maybe('videoSeconds', f.num),
  };
}

/** An order's wait for a render slot. */
export function waiterOf(item: Item): Waiter {
  const f = new Fields(item, 'render queue wait');
  return {
    orderId: f.str('orderId'),
    channel: f.oneOf('channel', CHANNELS),
    token: f.str('token'),
    since: f.str('since'),
    ...f.maybe('videoSeconds', f.num),
    shard: f.num('shard'),
    ticket: f.num('ticket'),
    // Waits recorded before the round robin had no key: each its own.
    key: item.key === undefined ? f.str('orderId') : f.str('key'),
    ...f.maybe('head', f.num),
    ...f.maybe('behind', f.num),
  };
}
