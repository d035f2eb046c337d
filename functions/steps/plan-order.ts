/** Quick orders: the planner refines the prompt's parameters. */
import { stepHandler } from './step.ts';

export const handler = stepHandler((s, input) => s.steps.plan(input.orderId));
