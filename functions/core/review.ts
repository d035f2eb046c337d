/**
 * A review decision on an order waiting in director mode. The order leaves awaiting_review through one conditional
 * write, so of two concurrent decisions exactly one wins and the other gets 409; then the workflow resumes.
 */
import type { ReviewDecision } from '../contract/review.ts';
import { notAwaitingReview } from './errors.ts';
import type { Order } from './orders.ts';
import type { OrderStore } from './ports.ts';
import { readOwnOrder } from './read-order.ts';

export interface ReviewPorts {
  orders: Pick<OrderStore, 'get'> & {
    /** awaiting_review -> running, only if the order still waits; false when it does not. */
    leaveReview(orderId: string, now: Date): Promise<boolean>;
  };
  workflow: { resumeAfterReview(order: Order, decision: ReviewDecision): Promise<void> };
}

export async function reviewOrder(p: ReviewPorts, userId: string, orderId: string | undefined, decision: ReviewDecision, now: Date): Promise<Order> {
  const order = await readOwnOrder(p.orders, userId, orderId);
  if (order.status !== 'awaiting_review' || !(await p.orders.leaveReview(order.id, now))) {
    const current = order.status === 'awaiting_review' ? ((await p.orders.get(order.id))?.status ?? order.status) : order.status;
    throw notAwaitingReview(current);
  }
  await p.workflow.resumeAfterReview(order, decision);
  return (await p.orders.get(order.id)) ?? order;
}
