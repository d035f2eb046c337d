/** POST /videos: an order from explicit parameters. */
import { createVideoBody } from '../contract/orders.ts';
import { createOrderReply } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, body: createVideoBody, countPost: 'deferred' }, (req) =>
  createOrderReply(req, { route: 'POST /videos', params: req.body }),
);
