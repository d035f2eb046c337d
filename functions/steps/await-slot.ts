/** The wait for a render slot (.waitForTaskToken): recorded in the queue; an admission completes it. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('await-slot', async (input) => {
  if (!input.taskToken) throw new Error('The slot wait was started without a task token');
  await orderSteps().awaitSlot(input.orderId, input.taskToken, input.execution);
  return {};
});
