/** The workflow's catch: any active state -> error, refunded exactly once. */
import { logger } from '../app/services.ts';
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('mark-failed', async (input) => {
  // The client sees a safe reason; the operator sees what happened.
  logger.warn('order failed', { failure: input.failure });
  await orderSteps().fail(input.orderId, input.failure, input.execution);
  return {};
});
