/** The review wait (.waitForTaskToken): running -> awaiting_review with the token; POST /videos/{id}/review completes it. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('await-review', async (input) => {
  if (!input.taskToken) throw new Error('The review wait was started without a task token');
  await orderSteps().awaitReview(input.orderId, input.taskToken, input.execution);
  return {};
});
