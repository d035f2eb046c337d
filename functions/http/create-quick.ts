/** POST /videos:quick: an order from a one-line master prompt; the planner chooses the parameters (and so the price). */
import { quickVideoBody } from '../contract/orders.ts';
import { validate } from '../contract/validate.ts';
import { planFromPrompt } from '../generator/planner.ts';
import { createOrderReply } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, withQueue: true, body: true, countPost: 'deferred' }, (req) => {
  const { prompt } = validate(quickVideoBody, req.body);
  return createOrderReply(req, 'POST /videos:quick', { kind: 'quick', prompt, params: planFromPrompt(prompt) });
});
