/** Start the order: queued -> running (a resumed order keeps its status). */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.start(input.orderId));
