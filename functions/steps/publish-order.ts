/** The posting pack, then running -> done. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.publish(input.orderId));
