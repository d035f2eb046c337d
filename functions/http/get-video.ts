/** GET /videos/{id}: the order record; an active one with where it stands now, and a hint of when to ask again. */
import { pollAfterSeconds } from '../core/eta.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.getVideo)(async (req) => {
  const { order, record, standing } = await services().orders.read(req.account.userId, req.pathParameters.id, req.now);
  const after = standing && pollAfterSeconds(order.status, standing.eta);
  return { status: 200, body: record, ...(after ? { headers: { 'retry-after': String(after) } } : {}) };
});
