/** The posting pack, then running -> done. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((steps, input) => steps.publish(input.orderId));
