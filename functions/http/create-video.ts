/** POST /videos: an order from explicit parameters. */
import { createVideoBody } from '../contract/orders.ts';
import { validate } from '../contract/validate.ts';
import { resolveLanguage } from '../generator/planner.ts';
import { createOrderReply } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, withQueue: true, body: true, countPost: 'deferred' }, (req) =>
  createOrderReply(req, 'POST /videos', { kind: 'explicit', params: resolveLanguage(validate(createVideoBody, req.body)) }),
);
