/** The first script of the order. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((steps, input) => steps.write(input.orderId));
