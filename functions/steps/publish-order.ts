/** The posting pack, then running -> done. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('publish-order', (input) => orderSteps().publish(input.orderId, input.execution));
