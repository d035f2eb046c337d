/** The order: its internal shape, and the public record (GET /videos/{id} and every webhook body). */
import { createVideoBody, type OrderParams, type OrderRecord, type OrderStatus } from '../contract/orders.ts';
import type { Charge } from './pricing.ts';

export type { OrderStatus };
const publicParams = createVideoBody.omit({ billing: true }).strip();
export const ACTIVE_STATUSES: readonly OrderStatus[] = ['queued', 'running'];

export interface Order {
  id: string;
  userId: string;
  status: OrderStatus;
  /** quick: made from a master prompt by the planner; explicit: POST /videos. */
  kind: 'quick' | 'explicit';
  prompt?: string;
  params: OrderParams;
  charge: Charge;
  createdAt: string;
  updatedAt: string;
  etaSeconds: number;
  /** Which shard of the global queue counter this order was added to. */
  queueShard: number;
  script?: string;
  /** The task token of the review wait, while the order is awaiting_review. */
  reviewToken?: string;
  metadata?: { title: string; description: string; hashtags: string[] };
  error?: { code: string; message: string };
}

export function toRecord(order: Order, resultUrl?: string): OrderRecord {
  // Stored maps come back in any order; the schema gives the documented one.
  const params = publicParams.parse(order.params);
  return {
    id: order.id,
    status: order.status,
    cost: order.charge.cost,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    director_mode: order.params.director_mode,
    trial: order.charge.trial,
    params,
    ...(order.status === 'queued' || order.status === 'running' ? { eta_seconds: order.etaSeconds } : {}),
    ...(order.script !== undefined ? { script: order.script } : {}),
    ...(order.status === 'done' && resultUrl ? { result_url: resultUrl } : {}),
    ...(order.status === 'done' && order.metadata ? { metadata: order.metadata } : {}),
    ...(order.status === 'error' && order.error ? { error: order.error } : {}),
  };
}
