/** What the domain needs from the outside world. Adapters implement these; the domain never imports AWS. */
import type { BalanceLowEvent } from '../contract/balance.ts';
import type { CreationResponse, OrderStatus } from '../contract/orders.ts';
import type { OrderRecord } from '../contract/order-record.ts';
import type { Order, OrderFile } from './orders.ts';
import type { Account, Limits } from './pricing.ts';
import type { LedgerHead, LedgerLine } from './transactions.ts';

export interface IdempotencyRecord {
  /** The stored tag of the request's kind the key was first used with (STORED_TAG). */
  route: string;
  /** SHA-256 of the kind and the normalized request, to tell a repeat from a reuse of the key. */
  requestHash: string;
  orderId: string;
  response: CreationResponse;
}

export interface OrderCommit {
  order: Order;
  /** The quote the order is charged by: used up by this commit, unless another order used it first. */
  quoteId?: string;
  /** The account snapshot the charge was priced on; the commit's conditions guard the same facts. */
  account: Account;
  idempotency?: { keyHash: string; record: IdempotencyRecord; expiresAt: Date };
  /** The minute window this POST is counted in; absent for the bot's orders, which no key's POST limit counts. */
  postWindowStart?: number;
  limits: Limits;
  now: Date;
  /** The balance.low event of a charge that crosses the key's threshold (core/balance.ts), recorded with the charge. */
  event?: OrderEvent;
}

export type CommitOutcome =
  | { kind: 'created' }
  | { kind: 'replay'; record: IdempotencyRecord }
  | { kind: 'rate_limited' }
  /** The account no longer fits the snapshot (a concurrent order took the trial, the balance or an active task). */
  | { kind: 'account_changed'; account: Account | undefined }
  /** Another transaction held one of the items; try again. */
  | { kind: 'conflict' }
  /** The quote was used by another order meanwhile (or expired and went). */
  | { kind: 'quote_used' };

export type EventType = 'video.awaiting_review' | 'video.done' | 'video.error' | 'balance.low';

/**
 * An event recorded for delivery: an order's status change (video.*, its body the order record at that moment), or an
 * account's (balance.low, its own body: contract/balance.ts).
 */
export interface OrderEvent {
  /**
   * Stable across retries, and begins with `orderId` and a colon: the order id, the status and, for reviews, the round;
   * for balance.low the user id and the crossing's number.
   */
  id: string;
  type: EventType;
  /**
   * The event's subject: the order it is about, or the user for an account event. It places the event (its partition:
   * keys.ts `event`, its marker's shard) and names it to the delivery workflow.
   */
  orderId: string;
  userId: string;
  record: OrderRecord | BalanceLowEvent;
  createdAt: string;
}

/** An order's event (video.*): its body is the order record. */
export type VideoEvent = OrderEvent & { type: Exclude<EventType, 'balance.low'>; record: OrderRecord };

/**
 * Hands a recorded event to webhook delivery, right after its status change (built once, in the composition root: a
 * failure leaves the event's pending marker, and the sweep starts its delivery).
 */
export type Announce = (event: OrderEvent) => Promise<void>;

/**
 * A status change, written only if the order is still in the status it was read in (`order.status`), together with
 * what goes with it: the active-task count and queue place, the key's count of orders awaiting approval
 * (orders.ts `awaitsApproval`), the refund of a failed order, and the event; to done or error, the order's open and
 * deadline markers are deleted with it.
 */
export interface Transition {
  order: Order;
  to: OrderStatus;
  set?: Partial<Order>;
  remove?: (keyof Order)[];
  /**
   * Give back exactly what the order took (its key spend only within its month: pricing.ts refundsSpend, `spendMonth`
   * the month of the user's spend counter); `heavyMonth` is the user's current allowance month, `ledger` the head of
   * the user's ledger as read (the refund's entry follows it; the store reads it again when it moved meanwhile).
   */
  refund?: { heavyMonth: string | undefined; ledger: LedgerHead; spendMonth?: string | undefined } | undefined;
  event?: OrderEvent;
  now: Date;
  /** Also require that the order still holds this review token (a review's hand-off not yet done). */
  reviewToken?: string;
  /**
   * Also require that the key holds fewer active tasks than this, when the change takes one (a review sending the
   * order back to running): false when it holds as many, like a moved order; the caller reads the order again to tell.
   */
  activeLimit?: number;
  /** Also require that the order's render has not started (`renderStartedAt`): a deadline applies only until then. */
  beforeRender?: boolean;
}

/** A change of an order's fields that keeps its status; written only while the order has `status`. */
export interface Patch {
  status: OrderStatus;
  set?: Partial<Order>;
  remove?: (keyof Order)[];
  /** Also require that the order has no script yet (the writer's first script is the only one). */
  withoutScript?: boolean;
  /** Also require that this regen note is still pending. */
  regenNote?: string;
  /** Also require that the order still holds this review token. */
  reviewToken?: string;
}

/** A page of a marker index walked in a fixed order; `after` resumes just past an item, `next` past the page. */
export interface MarkerPage<T> {
  items: { ref: T; after: string }[];
  /** Undefined when the walk reached the end of the index. */
  next?: string;
}

export interface OrderStore {
  /**
   * The one creation transaction: the order and its reference in the user's partition, the debit (doubloons, trial,
   * allowance, active-task count), the ledger entry, the open and unstarted markers; and, as the request has them, the
   * deadline marker, the POST count, the idempotency record and the quote used up.
   */
  create(commit: OrderCommit): Promise<CommitOutcome>;
  get(orderId: string): Promise<Order | undefined>;
  /** The user's idempotency record of this key, unless it has expired. */
  idempotency(userId: string, keyHash: string, now: Date): Promise<IdempotencyRecord | undefined>;
  /** False when the order was no longer in the expected status: someone else moved it first. */
  transition(t: Transition): Promise<boolean>;
  patch(orderId: string, p: Patch, now: Date): Promise<boolean>;
  /**
   * A page of the orders committed before `before` and not closed, from `from` (a page's `after` or `next`; undefined:
   * the start): the creation writes a marker that the transition to done or error removes, so the audit sweep walks
   * every order a workflow must still carry without a scan.
   */
  openPage(before: Date, from: string | undefined, limit: number): Promise<MarkerPage<Pick<Order, 'id' | 'queueShard'>>>;
  /**
   * Orders committed before `before` whose workflow start the creation has not seen succeed (a marker the creation
   * writes and drops after its StartExecution), at most `limit`: a failed start costs the audit one read, no scan.
   */
  /**
   * Unstarted markers of orders created before `before`, at most `limit`: one from each shard in turn from `first`,
   * the oldest first in each, so that no shard holds the others back when more are marked than a run reads.
   */
  unstarted(before: Date, limit: number, first?: number): Promise<Pick<Order, 'id' | 'queueShard'>[]>;
  /** Drops the order's unstarted marker: its workflow started. */
  started(order: Pick<Order, 'id' | 'queueShard'>): Promise<void>;
  /**
   * Orders whose deadline is at or before `now`, at most `limit`: a marker the creation writes by the deadline's moment
   * and the order's transition to done or error deletes, so those due are the open orders' (and rare strays). Fair
   * across the marker shards: as if taken one at a time from each shard with one due in turn, from shard `first` on
   * (the audit moves it on each run), the earliest deadline first within a shard; a backlog in one shard never holds
   * the others' back.
   */
  deadlinesDue(now: Date, limit: number, first?: number): Promise<Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>[]>;
  dropDeadline(order: Pick<Order, 'id' | 'queueShard' | 'deadlineAt'>): Promise<void>;
  /** Removes the marker of an order found closed (or gone) by other means. */
  dropOpen(order: Pick<Order, 'id' | 'queueShard'>): Promise<void>;
  /**
   * The user's orders whose ids are at least `from` and below `below`, newest first, at most `limit`, read strongly
   * consistent (a created order is there at once); `more` when others remain in the range.
   */
  ofUser(userId: string, range: { from?: string | undefined; below?: string | undefined; limit: number }): Promise<{ orders: Order[]; more: boolean }>;
  /** Ids of every order of a user, newest first (the operator's account deletion). */
  idsOfUser(userId: string): Promise<string[]>;
  /** The order and what is stored with it (its recorded events): the operator's account deletion. */
  delete(orderId: string): Promise<void>;
}

/** The accounts as the use cases read and change them (the operator's CLI and the middleware use more of the adapter). */
export interface AccountStore {
  get(userId: string): Promise<Account | undefined>;
  /** A page of a user's ledger, newest first: at most `limit` entries below a cursor, and whether more remain. */
  ledgerPage(userId: string, q: { limit: number; below?: string }): Promise<{ lines: LedgerLine[]; more: boolean }>;
  /**
   * Sets the key's low-balance threshold and arms it (balance.low not sent), or removes it (undefined); the account
   * after, undefined when there is no such user.
   */
  setLowBalanceAlert(userId: string, below: number | undefined): Promise<Account | undefined>;
  /** The key stops working at its next use (the account's deletion starts here). */
  revokeKey(userId: string): Promise<void>;
  /** The user's partition: profile, ledger, idempotency records, counters. */
  deletePartition(userId: string): Promise<void>;
}

/** An order's files: written by the steps, served by the download route, removed with the account. */
export interface FileStore {
  /** `fromPath`: `body` is the path of a local file to upload. */
  put(orderId: string, file: OrderFile, body: Buffer | string, fromPath?: boolean): Promise<void>;
  exists(orderId: string, file: OrderFile): Promise<boolean>;
  /** A URL that serves the file for `seconds`. */
  presign(orderId: string, file: OrderFile, seconds: number): Promise<string>;
  /** Every file of the order; how many there were. */
  deleteAll(orderId: string): Promise<number>;
}

/** The business metrics operators watch (CloudWatch on AWS); counted where the fact happens. */
export type MetricName =
  | 'OrdersCreated'
  | 'OrdersDone'
  | 'OrdersFailed'
  | 'OrdersRefunded'
  /** A charged order whose StartExecution failed (the sweep starts it). */
  | 'WorkflowStartsFailed'
  | 'WebhookDeliveriesDropped'
  /** Orders and events the recovery or the audit really started again (lost or ended with the work open). */
  | 'OrdersRecovered'
  | 'DeliveriesRecovered'
  | 'SlotsReclaimed'
  /**
   * An execution stopped by someone other than the service: the order's (event's) current one, ended ABORTED while
   * its order is open (its event unsettled). The service's own stops (a cancel, a deadline) close the order first.
   */
  | 'ExecutionsAbortedUnexpectedly';
/**
 * Metrics of one function, with its name as a dimension beside the service's: a step's errors that are the workflow's
 * business outcomes (functions/steps/step.ts), which the function's error-rate alarm takes out of Lambda's Errors.
 */
export type FunctionMetricName =
  | 'StepOutcomeErrors'
  /** Of those, the generations that failed for good (GeneratorFailed: the order is refunded); RendersFailing reads it. */
  | 'GenerationsFailed';
/**
 * Measured values: what the queue looks like (by the sweep every minute), and each render's seconds per second of
 * video (the figure the render slots are sized with: docs/deploy.md, Sizing).
 */
export type GaugeName =
  | 'QueueDepthApi'
  | 'QueueDepthBot'
  | 'OldestWaitingApiSeconds'
  | 'OldestWaitingBotSeconds'
  | 'SlotsInUse'
  | 'RenderSecondsPerVideoSecond';
export interface Metrics {
  count(name: MetricName): void;
  gauge(name: GaugeName, value: number, unit: 'Count' | 'Seconds'): void;
}

/** Where an order's current execution stands: running, never started (or lost with a local stop), or ended. */
export type ExecutionState = 'running' | 'missing' | 'ended';

export interface Workflow {
  /**
   * Starts the order's current execution (`order.execution`, else the order id); a second start is a no-op. True when
   * this call started it, false when an execution of that name was there already.
   */
  start(order: Order): Promise<boolean>;
  state(order: Order): Promise<ExecutionState>;
  /** Stops the order's current execution (a canceled order's); one already ended or missing is left as it is. */
  stop(order: Order, cause: string): Promise<void>;
}
