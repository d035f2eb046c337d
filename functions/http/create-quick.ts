/** POST /videos:quick: an order from a one-line master prompt; the planner chooses the parameters (and so the price). */
import { quickVideoBody } from '../contract/orders.ts';
import { createOrderReply, orderOptions } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, body: quickVideoBody, countPost: 'deferred' }, (req) =>
  createOrderReply(req, { route: 'POST /videos:quick', prompt: req.body.prompt, ...orderOptions(req.body) }),
);
