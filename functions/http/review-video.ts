/** POST /videos/{id}/review: approve, edit or regen the script of an order in awaiting_review. */
import { toRecord } from '../core/orders.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.reviewVideo)(async (req) => {
  const order = await services().orders.review(req.account.userId, req.pathParameters.id, req.body, req.now);
  return { status: 200, body: toRecord(order) };
});
