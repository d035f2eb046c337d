/** The delivery workflow's one Task: one webhook attempt for a recorded event, and what comes next. */
import { services } from '../app/services.ts';
import { stepHandler } from './step.ts';

export const handler = stepHandler('deliver-event', (input) => services().deliver(input.orderId, input.eventId!));
