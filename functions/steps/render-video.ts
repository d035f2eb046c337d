/** Renders the mp4 and the cover and stores them, unless they are stored already. */
import { orderSteps } from '../app/step-services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('render-video', (input) => orderSteps().render(input.orderId, input.execution));
