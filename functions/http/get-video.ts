/** GET /videos/{id}: the order record; an active one with where it stands now, and a hint of when to ask again. */
import { pollAfterSeconds, standing, standingOf } from '../core/eta.ts';
import { holdsSlot, toRecord } from '../core/orders.ts';
import { readOwnOrder } from '../core/read-order.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  const { orders, links, snapshots } = services();
  const order = await readOwnOrder(orders, req.account.userId, req.pathParameters.id);
  // A done order's links are signed afresh on every read: an expired result_url is renewed by reading again.
  if (order.status === 'done') return { status: 200, body: toRecord(order, await links.issue(order.id, req.now)) };
  if (!holdsSlot(order.status)) return { status: 200, body: toRecord(order) };
  // An active order: the queue's view now (from a snapshot a few seconds old at most).
  const now = standing(await snapshots.view(), standingOf(order), req.now.getTime());
  const after = pollAfterSeconds(order.status, now.eta);
  return { status: 200, body: toRecord(order, undefined, now), ...(after ? { headers: { 'retry-after': String(after) } } : {}) };
});
