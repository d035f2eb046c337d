/** The first script of the order. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('write-script', (input) => orderSteps().write(input.orderId, input.execution));
