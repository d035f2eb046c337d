/** Start the order: queued -> running (a resumed order keeps its status). */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('start-order', (input) => orderSteps().start(input.orderId, input.execution));
