/**
 * A review decision on an order waiting in director mode. The order leaves awaiting_review through one conditional
 * write that also records the decision (approved, the edited script, or the regen note), so of two concurrent
 * decisions exactly one wins and the other gets 409; then the workflow's wait is completed.
 */
import type { ReviewDecision } from '../contract/review.ts';
import { parseScript } from './script-text.ts';
import { notAwaitingReview } from './errors.ts';
import type { Order } from './orders.ts';
import type { OrderStore } from './ports.ts';
import { readOwnOrder } from './read-order.ts';

export interface ReviewPorts {
  orders: Pick<OrderStore, 'get' | 'transition'>;
  workflow: { resumeAfterReview(order: Order, decision: ReviewDecision): Promise<void> };
}

function decisionFields(order: Order, decision: ReviewDecision): Partial<Order> {
  switch (decision.action) {
    case 'approve':
      return { reviewed: true };
    case 'edit':
      // The client's text is the script from now on (422 naming `text` when it cannot be one).
      return { reviewed: true, script: { ...order.script!, scenes: parseScript(decision.text, order.params.duration_seconds) } };
    case 'regen':
      return { regenNote: decision.note };
  }
}

export async function reviewOrder(p: ReviewPorts, userId: string, orderId: string | undefined, decision: ReviewDecision, now: Date): Promise<Order> {
  const order = await readOwnOrder(p.orders, userId, orderId);
  if (order.status !== 'awaiting_review') throw notAwaitingReview(order.status);
  const set = decisionFields(order, decision);
  if (!(await p.orders.transition({ order, to: 'running', set, remove: ['reviewToken'], now }))) {
    throw notAwaitingReview((await p.orders.get(order.id))?.status ?? order.status);
  }
  await p.workflow.resumeAfterReview(order, decision);
  return (await p.orders.get(order.id)) ?? order;
}
