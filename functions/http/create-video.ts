/** POST /videos: an order from explicit parameters. */
import { createOrderReply, orderOptions } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.createVideo)((req) => {
  const { deadline_seconds, quote_id, max_cost, metadata, ...params } = req.body;
  return createOrderReply(req, { kind: 'explicit', params, ...orderOptions({ deadline_seconds, quote_id, max_cost, metadata }) });
});
