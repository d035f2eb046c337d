/** The first script of the order. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.write(input.orderId));
