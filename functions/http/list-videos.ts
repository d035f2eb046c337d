/** GET /videos: the key's orders, newest first, a page at a time. */
import { listOrders } from '../core/list-orders.ts';
import { isActiveTask } from '../core/orders.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';
import { orderView } from './order-view.ts';

export const handler = httpRoute(operations.listVideos)(async (req) => {
  const { orders } = services();
  const q = req.query;
  const page = await listOrders(orders, req.account.userId, {
    limit: q.limit,
    ...(q.starting_after ? { startingAfter: q.starting_after } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.created_gte ? { createdGte: new Date(q.created_gte) } : {}),
    ...(q.created_lt ? { createdLt: new Date(q.created_lt) } : {}),
  });
  // As GET /videos/{id} answers each, from one view of the queue for the page.
  const view = page.orders.some((o) => isActiveTask(o.status)) ? await services().snapshots.view() : undefined;
  const data = await Promise.all(page.orders.map(async (o) => (await orderView(o, req.now, view)).record));
  return { status: 200, body: { data, has_more: page.hasMore, ...(page.next ? { next_starting_after: page.next } : {}) } };
});
