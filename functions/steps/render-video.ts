/** Renders the mp4 and the cover and stores them, unless they are stored already. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.render(input.orderId));
