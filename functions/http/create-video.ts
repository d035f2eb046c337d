/** POST /videos: an order from explicit parameters. */
import { createVideoRequest } from '../contract/orders.ts';
import { createOrderReply, orderOptions } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, body: createVideoRequest, countPost: 'deferred' }, (req) => {
  const { deadline_seconds, quote_id, max_cost, ...params } = req.body;
  return createOrderReply(req, { route: 'POST /videos', params, ...orderOptions({ deadline_seconds, quote_id, max_cost }) });
});
