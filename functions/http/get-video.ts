/** GET /videos/{id}: the order record. */
import { toRecord } from '../core/orders.ts';
import { readOwnOrder } from '../core/read-order.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  const { orders, links } = services();
  const order = await readOwnOrder(orders, req.account.userId, req.pathParameters.id);
  // A done order's links are signed afresh on every read: an expired result_url is renewed by reading again.
  return { status: 200, body: toRecord(order, order.status === 'done' ? await links.issue(order.id, req.now) : undefined) };
});
