import { forbidden, notFound } from './errors.ts';
import { ORDER_ID_RE } from './ids.ts';
import type { Order } from './orders.ts';
import type { OrderStore } from './ports.ts';

/** The order if it is the caller's: 404 when there is none, 403 when it belongs to another key's user. */
export async function readOwnOrder(store: Pick<OrderStore, 'get'>, userId: string, orderId: string | undefined): Promise<Order> {
  const order = orderId && ORDER_ID_RE.test(orderId) ? await store.get(orderId) : undefined;
  if (!order) throw notFound('order');
  if (order.userId !== userId) throw forbidden('order');
  return order;
}
