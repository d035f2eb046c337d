/** What the domain needs from the outside world. Adapters implement these; the domain never imports AWS. */
import type { CreationResponse } from '../contract/orders.ts';
import type { Order } from './orders.ts';
import type { Account, Limits } from './pricing.ts';

export interface IdempotencyRecord {
  /** Which creation route the key was first used on. */
  route: string;
  /** SHA-256 of the route and the normalized request, to tell a repeat from a reuse of the key. */
  requestHash: string;
  orderId: string;
  response: CreationResponse;
}

export interface OrderCommit {
  order: Order;
  /** The account snapshot the charge was priced on; the commit's conditions guard the same facts. */
  account: Account;
  idempotency?: { keyHash: string; record: IdempotencyRecord; expiresAt: Date };
  postWindowStart: number;
  limits: Limits;
  now: Date;
}

export type CommitOutcome =
  | { kind: 'created' }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'rate_limited' }
  /** The account no longer fits the snapshot (a concurrent order took the trial, the balance or a slot). */
  | { kind: 'account_changed'; account: Account | undefined }
  /** Another transaction held one of the items; try again. */
  | { kind: 'conflict' };

export interface OrderStore {
  /** The one transaction of DESIGN.md section 2: order, debit, active slot, idempotency record, ledger, POST count. */
  create(commit: OrderCommit): Promise<CommitOutcome>;
  get(orderId: string): Promise<Order | undefined>;
}

export interface PostCounter {
  /** Counts one POST in the window; false when the window already had `limit`. */
  count(userId: string, windowStart: number, limit: number): Promise<boolean>;
}

export interface Workflow {
  /** Starts the order's workflow; starting it again for the same order is a no-op. */
  start(order: Order): Promise<void>;
}
