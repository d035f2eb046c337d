/** POST /videos:quick: an order from a one-line master prompt; the planner chooses the parameters (and so the price). */
import { createOrderReply, orderOptions } from './create-order-reply.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.createQuickVideo)((req) =>
  createOrderReply(req, { kind: 'quick', prompt: req.body.prompt, ...(req.body.logo ? { logo: req.body.logo } : {}), ...orderOptions(req.body) }),
);
