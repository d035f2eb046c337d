/**
 * Canceling an order: the client's (POST /videos/{id}/cancel) and the deadline's (`deadline_seconds` at creation, kept
 * by the sweep and checked before a render). The order ends in error, fully refunded, with its video.error event, and
 * its workflow is stopped. Both apply until the order's render starts, and never after: a render cannot be stopped.
 * So a client may cancel an order queued, awaiting_review, or running before its render (writing its script, or
 * waiting for a slot after its review), whichever of these it happens to be in at the moment; the render step's mark
 * (`renderStartedAt`) and the cancel's transition are conditional writes on each other, so exactly one wins.
 */
import { closeInError, type ClosePorts } from './close-order.ts';
import { notCancelable, serviceUnavailable } from './errors.ts';
import { ORDER_MOVED, type Order, type OrderFailure } from './orders.ts';
import type { OrderStore } from './ports.ts';
import { readOwnOrder } from './read-order.ts';
import { AGAIN, untilDone } from './retry.ts';

export const CANCELED = { code: 'canceled', message: 'The order was canceled by the client and refunded' } as const;
export const DEADLINE_EXCEEDED = { code: 'deadline_exceeded', message: 'The order was not done by its deadline; it was canceled and refunded' } as const;

export interface CancelPorts extends ClosePorts {
  orders: Pick<OrderStore, 'get' | 'transition'>;
  /** Stops the order's workflow execution; it would otherwise wait, parked, until its wait times out. */
  stopWorkflow(order: Order): Promise<void>;
  log: { warn(message: string, ...extra: Record<string, unknown>[]): void };
}

/** Whether the order may be canceled: it is active and its render has not started. */
export const cancelable = (order: Pick<Order, 'status' | 'renderStartedAt'>) =>
  (order.status === 'queued' || order.status === 'awaiting_review' || order.status === 'running') && order.renderStartedAt === undefined;

/** Ends `order` with `reason`, then stops its workflow; undefined when the order moved first. */
export async function cancel(p: CancelPorts, order: Order, reason: OrderFailure): Promise<Order | undefined> {
  // Neither a client nor a deadline cancels a render that has started: it cannot be stopped, so it is finished and paid.
  const closed = await closeInError(p, order, reason, { beforeRender: true });
  // The order is closed and refunded: a workflow left running ends by itself at its next step (OrderClosed).
  if (closed)
    await p
      .stopWorkflow(closed)
      .catch((err: unknown) => p.log.warn('the workflow of a canceled order was not stopped', { orderId: order.id, cause: String(err) }));
  return closed;
}

/** The client's cancel: the canceled order; a repeated cancel answers the same. */
export async function cancelOrder(p: CancelPorts, userId: string, orderId: string | undefined): Promise<Order> {
  return untilDone(
    ORDER_MOVED,
    async () => {
      const order = await readOwnOrder(p.orders, userId, orderId);
      if (order.status === 'error' && order.error?.code === CANCELED.code) return order;
      if (!cancelable(order)) throw notCancelable(order.status, order.renderStartedAt !== undefined);
      // The order may move between the read and the transition (its render started, a review arrived): read it again.
      return (await cancel(p, order, CANCELED)) ?? AGAIN;
    },
    () => serviceUnavailable('The order keeps changing; retry the cancel', 1),
  );
}

/** Whether the order's deadline has passed while it still applies: until its render starts. */
export const pastDeadline = (order: Pick<Order, 'deadlineAt' | 'renderStartedAt'>, now: Date) =>
  order.deadlineAt !== undefined && order.renderStartedAt === undefined && Date.parse(order.deadlineAt) <= now.getTime();
