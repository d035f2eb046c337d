/** GET /videos: the key's orders, newest first, a page at a time. */
import { listOrdersQuery } from '../contract/orders.ts';
import { standing, standingOf } from '../core/eta.ts';
import { listOrders } from '../core/list-orders.ts';
import { holdsSlot, toRecord } from '../core/orders.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, query: listOrdersQuery }, async (req) => {
  const { orders, links, snapshots } = services();
  const q = req.query;
  const page = await listOrders(orders, req.account.userId, {
    limit: q.limit,
    ...(q.starting_after ? { startingAfter: q.starting_after } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.created_gte ? { createdGte: new Date(q.created_gte) } : {}),
    ...(q.created_lt ? { createdLt: new Date(q.created_lt) } : {}),
  });
  // As GET /videos/{id} answers each: fresh links for done orders, the queue's estimate for active ones.
  const view = page.orders.some((o) => holdsSlot(o.status)) ? await snapshots.view() : undefined;
  const data = await Promise.all(
    page.orders.map(async (o) => {
      if (o.status === 'done') return toRecord(o, await links.issue(o.id, req.now));
      return toRecord(o, undefined, view && holdsSlot(o.status) ? standing(view, standingOf(o), req.now.getTime()) : undefined);
    }),
  );
  return { status: 200, body: { data, has_more: page.hasMore, ...(page.next ? { next_starting_after: page.next } : {}) } };
});
