/** A regen decision: the script is rewritten along the note. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.regen(input.orderId));
