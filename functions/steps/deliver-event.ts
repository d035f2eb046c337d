/** The delivery workflow's one Task: one webhook attempt for a recorded event, and what comes next. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.deliveries.deliver(input.orderId, input.eventId!));
