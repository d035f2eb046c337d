/** Reading orders as GET /videos/{id} and GET /videos answer them. */
import type { OrderRecord } from '../contract/order-record.ts';
import { type Lane, laneOf } from './capacity.ts';
import { type QueueView, type QueueViews, standing, standingOf } from './eta.ts';
import { forbidden, notFound } from './errors.ts';
import { ORDER_ID_RE } from './ids.ts';
import { isActiveTask, type Order, type OrderLinks, type Standing, toRecord } from './orders.ts';
import type { OrderStore } from './ports.ts';

/** The order if it is the caller's: 404 when there is none, 403 when it belongs to another key's user. */
export async function readOwnOrder(store: Pick<OrderStore, 'get'>, userId: string, orderId: string | undefined): Promise<Order> {
  const order = orderId && ORDER_ID_RE.test(orderId) ? await store.get(orderId) : undefined;
  if (!order) throw notFound('order');
  if (order.userId !== userId) throw forbidden('order');
  return order;
}

/** What an answered order shows beyond the stored one: links signed afresh, the render queue as this process sees it. */
export interface OrderViewPorts {
  links: { issue(orderId: string, now: Date): Promise<OrderLinks> };
  /** Each lane's render queue as this process sees it: an order stands in its own lane's (core/capacity.ts laneOf). */
  queues: Readonly<Record<Lane, Pick<QueueViews, 'view'>>>;
}

/**
 * An order as it is answered: a done order with links signed afresh, an active one with where it stands in the queue's
 * lane's view now (a snapshot a few seconds old at most; `view`, of its lane, when the caller read one already), any
 * other as stored.
 */
export async function orderView(p: OrderViewPorts, order: Order, now: Date, view?: QueueView): Promise<{ record: OrderRecord; standing?: Standing }> {
  if (order.status === 'done') return { record: toRecord(order, await p.links.issue(order.id, now)) };
  if (!isActiveTask(order.status)) return { record: toRecord(order) };
  const stands = standingOf(order);
  const where = standing(view ?? (await p.queues[laneOf(order)].view([stands])), stands, now.getTime());
  return { record: toRecord(order, undefined, where), standing: where };
}

/** GET /videos/{id}: the caller's order (404, 403) and its view. */
export async function readOrder(p: OrderViewPorts & { orders: Pick<OrderStore, 'get'> }, userId: string, orderId: string | undefined, now: Date) {
  const order = await readOwnOrder(p.orders, userId, orderId);
  return { order, ...(await orderView(p, order, now)) };
}
