/** What the store contract's scenarios build: orders, their creation commits, status changes and events. */
import { it } from 'node:test';
import * as z from 'zod/mini';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { newOrderId, shardOf } from '../../functions/core/ids.ts';
import { minuteWindow } from '../../functions/core/limits.ts';
import { type Channel, type Order, toRecord } from '../../functions/core/orders.ts';
import type { OrderCommit, OrderEvent, Transition } from '../../functions/core/ports.ts';
import { type Account, DEFAULT_LIMITS } from '../../functions/core/pricing.ts';
import type { Stores } from './implementations.ts';

/** A scenario's stores: a factory call gives empty ones. */
export type MakeStores = () => Promise<Stores>;

/**
 * Scenarios known to fail on one implementation, by name, with the reason: registered as todo there (node:test runs
 * them and reports the failure without failing the run), so a drift reported but not yet decided stays visible.
 */
export type KnownDrifts = Readonly<Record<string, string>>;

/** Registers a scenario on fresh stores; todo where this implementation is known to differ. */
export function scenario(make: MakeStores, known: KnownDrifts, name: string, run: (s: Stores) => Promise<void>) {
  const todo = known[name];
  it(name, todo ? { todo } : {}, async () => run(await make()));
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

/** An order's parameters: the contract's defaults for a topic. */
const PARAMS = z.parse(createVideoBody, { topic: 'Green tea' });

/** An order as the creation builds it, created at `at` (its id carries that time). */
export function orderOf(
  userId: string,
  at: Date,
  o: { cost?: number; trial?: boolean; heavyMonth?: string; channel?: Channel; director?: boolean; deadlineAt?: Date } = {},
): Order {
  const id = newOrderId(at.getTime());
  return {
    id,
    userId,
    status: 'queued',
    kind: 'explicit',
    channel: o.channel ?? 'api',
    params: { ...PARAMS, director_mode: o.director ?? false },
    charge: { cost: o.cost ?? 100, trial: o.trial ?? false, extras: [], ...(o.heavyMonth ? { heavyAllowanceMonth: o.heavyMonth } : {}) },
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    etaSeconds: 20,
    queueShard: shardOf(id),
    ...(o.deadlineAt ? { deadlineAt: o.deadlineAt.toISOString() } : {}),
  };
}

/** An order whose markers go to partition `shard` (its id hashes there), created at `at`. */
export function orderInShard(userId: string, at: Date, shard: number, o: Parameters<typeof orderOf>[2] = {}): Order {
  for (;;) {
    const order = orderOf(userId, at, o);
    if (order.queueShard === shard) return order;
  }
}

/** The creation's commit of `order` on `account` as read, counted in its minute's POSTs. */
export function commitOf(order: Order, account: Account, more: Partial<OrderCommit> = {}): OrderCommit {
  const now = new Date(order.createdAt);
  return { order, account, limits: DEFAULT_LIMITS, now, postWindowStart: minuteWindow(now).start, ...more };
}

/** Creates an order for the user as the account stands now (in marker partition `shard` when given); fails unless created. */
export async function created(s: Stores, userId: string, at: Date, o: Parameters<typeof orderOf>[2] & { shard?: number } = {}): Promise<Order> {
  const { shard, ...more } = o;
  const order = shard === undefined ? orderOf(userId, at, more) : orderInShard(userId, at, shard, more);
  const outcome = await s.orders.create(commitOf(order, (await s.accounts.get(userId))!));
  if (outcome.kind !== 'created') throw new Error(`order not created: ${JSON.stringify(outcome)}`);
  return order;
}

/** The event a status change records. */
export function eventOf(order: Order, to: 'done' | 'error' | 'awaiting_review', at: Date): OrderEvent {
  const type = to === 'awaiting_review' ? 'video.awaiting_review' : to === 'done' ? 'video.done' : 'video.error';
  return { id: `${order.id}:${to}`, type, orderId: order.id, userId: order.userId, record: toRecord({ ...order, status: to }), createdAt: at.toISOString() };
}

/** The transition to error that a failure makes: refunded against the ledger as read now, its event recorded. */
export async function failure(s: Stores, order: Order, at: Date, more: Partial<Transition> = {}): Promise<Transition> {
  const account = (await s.accounts.get(order.userId))!;
  return {
    order,
    to: 'error',
    set: { error: { code: 'generation_failed', message: 'the render failed' }, finishedAt: at.toISOString(), refunded: true },
    refund: { heavyMonth: account.heavyMonth, spendMonth: account.spendMonth, ledger: { seq: account.ledgerSeq, balance: account.balance } },
    event: eventOf(order, 'error', at),
    now: at,
    ...more,
  };
}

export const after = (d: Date, ms: number) => new Date(d.getTime() + ms);
/** A moment at the start of a second, so that sub-second offsets stay in it. */
export const wholeSecond = (ms = Date.now()) => new Date(Math.floor(ms / 1000) * 1000);
