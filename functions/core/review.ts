/**
 * A review decision on an order waiting in director mode. The order leaves awaiting_review through one conditional
 * write that also records the decision (approved, the edited script, or the regen note), so of two concurrent
 * decisions exactly one wins and the other gets 409; then the workflow's wait is completed.
 */
import type { ReviewDecision } from '../contract/review.ts';
import { parseScript } from './script-text.ts';
import { notAwaitingReview } from './errors.ts';
import type { Order } from './orders.ts';
import type { OrderStore, Workflow } from './ports.ts';
import { readOwnOrder } from './read-order.ts';

export interface ReviewPorts {
  orders: Pick<OrderStore, 'get' | 'transition' | 'patch'>;
  workflow: Pick<Workflow, 'start' | 'state'> & {
    /** Completes the review wait's task token with the decision; false when that wait no longer exists. */
    answerReview(taskToken: string, decision: ReviewDecision): Promise<boolean>;
  };
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
  const answered = order.reviewToken !== undefined && (await p.workflow.answerReview(order.reviewToken, decision));
  if (!answered) {
    // The wait is gone. An execution lost with a local stop starts again under its name; otherwise (it ended, or the
    // one running waits on a token the order no longer holds) a new execution, its name recorded first, goes on from
    // the decision. A second execution left running cannot charge or close twice: every status change is conditional.
    const running: Order = { ...order, status: 'running' };
    if ((await p.workflow.state(running)) === 'missing') await p.workflow.start(running);
    else {
      const execution = `${order.id}-r${now.getTime()}`;
      if (await p.orders.patch(order.id, { status: 'running', set: { execution } }, now)) await p.workflow.start({ ...running, execution });
    }
  }
  return (await p.orders.get(order.id)) ?? order;
}
