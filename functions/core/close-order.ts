/**
 * Ending an order in error: the one conditional transition with its refund and its video.error event, then its render
 * slot (or its place in the queue) given back and the event handed to delivery. The workflow's failures and the
 * client's cancel both end an order this way, so each is refunded exactly once whichever comes first.
 */
import { toRecord, type Order, type OrderFailure, type OrderLinks } from './orders.ts';
import type { RenderLanes } from './capacity.ts';
import { movesMoney } from './pricing.ts';
import type { AccountStore, Announce, EventType, Metrics, OrderEvent, OrderStore } from './ports.ts';

export interface ClosePorts {
  orders: Pick<OrderStore, 'transition'>;
  accounts: Pick<AccountStore, 'get'>;
  /** The render queue of the order's lane: the order's slot, or its place in the queue, given back. */
  capacity: Pick<RenderLanes, 'release'>;
  announce: Announce;
  metrics: Metrics;
  now: () => Date;
}

/** The key of each status change's event: with the order id it makes the event's id, unique per change. */
export const EVENT_KEYS = { error: 'error', done: 'done', awaitingReview: (round: number) => `awaiting_review:${round}` } as const;
export const eventIdOf = (orderId: string, key: string) => `${orderId}:${key}`;

/** The event recorded at a status change. */
export const eventOf = (order: Order, type: EventType, key: string, links?: OrderLinks): OrderEvent => ({
  id: eventIdOf(order.id, key),
  type,
  orderId: order.id,
  userId: order.userId,
  record: toRecord(order, links),
  createdAt: order.updatedAt,
});

/**
 * The order as read -> error, refunded, with its event; undefined when it had moved meanwhile (nothing was done).
 * `beforeRender`: only while its render has not started (a deadline's cancel).
 */
export async function closeInError(p: ClosePorts, order: Order, error: OrderFailure, opts: { beforeRender?: boolean } = {}): Promise<Order | undefined> {
  const now = p.now();
  // A test-mode order took nothing: there is nothing to give back.
  const refunds = movesMoney(order.charge);
  const account = refunds ? await p.accounts.get(order.userId) : undefined;
  const set = { error, finishedAt: now.toISOString(), ...(refunds ? { refunded: true } : {}) };
  const failed: Order = { ...order, ...set, status: 'error', updatedAt: now.toISOString() };
  delete failed.reviewToken;
  const event = eventOf(failed, 'video.error', EVENT_KEYS.error);
  const moved = await p.orders.transition({
    order,
    to: 'error',
    set,
    remove: ['reviewToken'],
    ...(refunds
      ? {
          refund: {
            heavyMonth: account?.heavyMonth,
            spendMonth: account?.spendMonth,
            ledger: { seq: account?.ledgerSeq ?? 0, balance: account?.balance ?? 0 },
          },
        }
      : {}),
    event,
    now,
    ...(opts.beforeRender ? { beforeRender: true } : {}),
  });
  if (!moved) return undefined;
  p.metrics.count('OrdersFailed');
  if (refunds) p.metrics.count('OrdersRefunded');
  // The order may still wait for a slot (queued, or reviewed and waiting to render): it leaves the queue, so that no
  // slot is given to it.
  await p.capacity.release(order, false, order.channel ?? 'api');
  await p.announce(event);
  return failed;
}
