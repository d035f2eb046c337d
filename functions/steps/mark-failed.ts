/**
 * The workflow's catch: any active state -> error, refunded exactly once. As ReviewLapsed (the review deadline
 * passed), the order fails only if it is still unreviewed: a review that won the race is gone on from.
 */
import { logger } from '../app/services.ts';
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler(async (input) => {
  if (input.lapsed) return orderSteps().lapse(input.orderId, input.failure, input.execution);
  // The client sees a safe reason; the operator sees what happened.
  logger.warn('order failed', { failure: input.failure });
  await orderSteps().fail(input.orderId, input.failure, input.execution);
  return {};
});
