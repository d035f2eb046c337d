/** POST /videos/{id}/cancel: an order whose render has not started ends in error, fully refunded. */
import { toRecord } from '../core/orders.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.cancelVideo)(async (req) => {
  const order = await services().orders.cancel(req.account.userId, req.pathParameters.id);
  return { status: 200, body: toRecord(order) };
});
