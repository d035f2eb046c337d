/** GET /videos/{id}: the order record. */
import { toRecord } from '../core/orders.ts';
import { orderEta } from '../core/eta.ts';
import { readOwnOrder } from '../core/read-order.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  const { orders, links, snapshots } = services();
  const order = await readOwnOrder(orders, req.account.userId, req.pathParameters.id);
  // A done order's links are signed afresh on every read: an expired result_url is renewed by reading again.
  if (order.status === 'done') return { status: 200, body: toRecord(order, await links.issue(order.id, req.now)) };
  // An active order's eta_seconds is the queue's estimate now (from a snapshot a few seconds old at most).
  const active = order.status === 'queued' || order.status === 'running';
  const eta = active ? orderEta(await snapshots.view(), { ...order, videoSeconds: order.params.duration_seconds }, req.now.getTime()) : undefined;
  return { status: 200, body: toRecord(order, undefined, eta) };
});
