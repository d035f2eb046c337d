/**
 * GET /videos: the user's orders, newest first, a page at a time. Orders are read by id range (an id begins with its
 * creation time), so the time filters narrow the read itself; a status or metadata filter is applied to what is read, and one
 * request reads at most `examinedAtMost(limit)` orders, so a filter that matches little answers a short (even empty)
 * page with has_more and a cursor instead of reading the whole history.
 */
import { laneOf } from './capacity.ts';
import { standingOf } from './eta.ts';
import { InvalidParams } from './errors.ts';
import { orderIdFloor } from './ids.ts';
import type { OrderRecord } from '../contract/order-record.ts';
import { isActiveTask, type Order, type OrderStatus } from './orders.ts';
import type { OrderStore } from './ports.ts';
import { orderView, type OrderViewPorts } from './read-order.ts';

/** The orders one request with a status or metadata filter reads at most: three pages' worth (3 to 300). */
export const examinedAtMost = (limit: number) => 3 * limit;

export interface ListQuery {
  limit: number;
  startingAfter?: string;
  status?: OrderStatus;
  createdGte?: Date;
  createdLt?: Date;
  /** Only orders whose client metadata has this pair. */
  metadata?: [key: string, value: string];
}

export interface OrderPage {
  orders: Order[];
  hasMore: boolean;
  /** Where the next page starts (exclusive), when hasMore. */
  next?: string;
}

export async function listOrders(store: Pick<OrderStore, 'ofUser'>, userId: string, q: ListQuery): Promise<OrderPage> {
  const gte = q.createdGte?.getTime();
  const lt = q.createdLt?.getTime();
  if (gte !== undefined && lt !== undefined && gte > lt) throw new InvalidParams('created_gte', 'must not be after created_lt');
  // Ids carry times from 1970 on: a lower bound before that bounds nothing, an upper one leaves nothing.
  if (lt !== undefined && lt <= 0) return { orders: [], hasMore: false };
  const from = gte !== undefined && gte > 0 ? orderIdFloor(gte) : undefined;
  const bounds = [q.startingAfter, lt !== undefined ? orderIdFloor(lt) : undefined].filter((b): b is string => b !== undefined);
  let below = bounds.length ? bounds.sort()[0] : undefined;
  // An empty range (a cursor older than the lower bound, equal bounds): nothing to read, and a store refuses it.
  if (from !== undefined && below !== undefined && below <= from) return { orders: [], hasMore: false };
  const found: Order[] = [];
  const most = examinedAtMost(q.limit);
  let examined = 0;
  for (;;) {
    const filtered = q.status !== undefined || q.metadata !== undefined;
    const want = filtered ? Math.min(100, most - examined) : q.limit - found.length;
    const page = await store.ofUser(userId, { ...(from ? { from } : {}), ...(below ? { below } : {}), limit: want });
    examined += page.orders.length;
    for (const [i, order] of page.orders.entries()) {
      if (q.status && order.status !== q.status) continue;
      if (q.metadata && !(order.clientMetadata && Object.hasOwn(order.clientMetadata, q.metadata[0]) && order.clientMetadata[q.metadata[0]] === q.metadata[1]))
        continue;
      found.push(order);
      if (found.length === q.limit) {
        const hasMore = i < page.orders.length - 1 || page.more;
        return { orders: found, hasMore, ...(hasMore ? { next: order.id } : {}) };
      }
    }
    const last = page.orders.at(-1)?.id;
    if (!page.more || !last) return { orders: found, hasMore: false };
    below = last;
    if (examined >= most) return { orders: found, hasMore: true, next: last };
  }
}

/** GET /videos: a page of the user's orders, each as GET /videos/{id} answers it, from one view of the queue for the page. */
export async function listOrderRecords(
  p: OrderViewPorts & { orders: Pick<OrderStore, 'ofUser'> },
  userId: string,
  q: ListQuery,
  now: Date,
): Promise<{ records: OrderRecord[]; hasMore: boolean; next?: string }> {
  const page = await listOrders(p.orders, userId, q);
  // An account's orders are all of its one mode, so of one lane: that lane's view of their shards, read once for the page.
  const active = page.orders.filter((o) => isActiveTask(o.status));
  const view = active.length ? await p.queues[laneOf(active[0]!)].view(active.map(standingOf)) : undefined;
  const records = await Promise.all(page.orders.map(async (o) => (await orderView(p, o, now, view)).record));
  return { records, hasMore: page.hasMore, ...(page.next ? { next: page.next } : {}) };
}
