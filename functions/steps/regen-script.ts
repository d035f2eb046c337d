/** A regen decision: the script is rewritten along the note. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('regen-script', (input) => orderSteps().regen(input.orderId, input.execution));
