/** An order its admission started: start, plan and script in one step (functions/core/order-steps.ts prepare). */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('prepare-order', (input) => orderSteps().prepare(input.orderId, input.execution));
