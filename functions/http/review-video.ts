/** POST /videos/{id}/review: approve, edit or regen the script of an order in awaiting_review. */
import { reviewBody } from '../contract/review.ts';
import { toRecord } from '../core/orders.ts';
import { reviewOrder } from '../core/review.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, body: reviewBody, countPost: 'before' }, async (req) => {
  const order = await reviewOrder(services(), req.account.userId, req.pathParameters.id, req.body, req.now);
  return { status: 200, body: toRecord(order) };
});
