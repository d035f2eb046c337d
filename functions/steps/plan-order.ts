/** Quick orders: the planner refines the prompt's parameters. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('plan-order', (input) => orderSteps().plan(input.orderId, input.execution));
