/** GET /videos/{id}: the order record. */
import { toRecord } from '../core/orders.ts';
import { readOwnOrder } from '../core/read-order.ts';
import { services } from '../adapters/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  const order = await readOwnOrder(services().orders, req.account.userId, req.pathParameters.id);
  return { status: 200, body: toRecord(order) };
});
