/** The order: its internal shape, and the public record (GET /videos/{id} and every webhook body). */
import { createVideoBody, type OrderParams, type OrderStatus } from '../contract/orders.ts';
import type { OrderRecord } from '../contract/order-record.ts';
import { formatScript } from './script-text.ts';
import type { Script } from './generator.ts';
import type { OrderAsset } from './assets.ts';
import { type Charge, movesMoney } from './pricing.ts';
import type { QueuePlace } from './capacity.ts';
import type { RetryPolicy } from './retry.ts';

export type { OrderStatus };
/** The documented order of the parameters (stored maps come back in any order); billing is not shown. */
const PARAM_KEYS = Object.keys(createVideoBody.shape).filter((k) => k !== 'billing') as (keyof OrderParams)[];
/** Where an order came from: the public API (a key) or the operators' chat bot (no key). */
export type Channel = 'api' | 'bot';

/**
 * The per-key limits (active tasks, POSTs a minute) apply to API orders only: the bot's orders are the operators', made
 * for the same accounts without a key, and count against neither. Orders from before channels existed are API orders.
 */
export const countsAgainstKey = (order: Pick<Order, 'channel'>) => order.channel !== 'bot';

const ACTIVE_STATUSES: readonly OrderStatus[] = ['queued', 'running'];
/** queued and running are active tasks, counted against the key's limit (and hold a place in the global queue); the others are not. */
export const isActiveTask = (status: OrderStatus) => ACTIVE_STATUSES.includes(status);

/**
 * A director-mode order of a key not yet approved (nor closed): on its way to review, awaiting it, or rewritten after
 * a regen. The key holds at most `Limits.reviewsPending` of these; the user item counts them (`reviewsPending`).
 */
export const awaitsApproval = (order: Pick<Order, 'channel' | 'params' | 'reviewed' | 'status'>) =>
  countsAgainstKey(order) && order.params.director_mode && !order.reviewed && order.status !== 'done' && order.status !== 'error';

/**
 * What a status change does to the key's counters: its active tasks (queued and running hold one) and its orders
 * awaiting approval. The bot's orders count in neither.
 */
export function counterDeltas(
  order: Order,
  change: { to: OrderStatus; set?: Partial<Order>; remove?: readonly (keyof Order)[] },
): { activeTasks: number; reviewsPending: number } {
  const after: Order = { ...order, ...change.set, status: change.to };
  for (const k of change.remove ?? []) delete after[k];
  const keyed = countsAgainstKey(order);
  return {
    activeTasks: keyed ? (isActiveTask(change.to) ? 1 : 0) - (isActiveTask(order.status) ? 1 : 0) : 0,
    reviewsPending: (awaitsApproval(after) ? 1 : 0) - (awaitsApproval(order) ? 1 : 0),
  };
}

/** The account whose counters (active tasks, reviews pending) the order counts in: its own, or a test-mode order's live one. */
export const countedIn = (order: Pick<Order, 'userId' | 'limitsOf'>) => order.limitsOf ?? order.userId;

/** How many times a client may have an order's script rewritten (regen) before approving, editing or canceling it. */
export const MAX_REGENS = 3;

/**
 * A write that found the order moved since it was read (a conditional transition or patch refused) reads it again
 * and decides anew; each loss means another writer changed the order, so a few tries settle it. Past them: Contended.
 */
export const ORDER_MOVED: RetryPolicy = { attempts: 8, baseMs: 10, capMs: 200 };

export interface Order {
  id: string;
  userId: string;
  status: OrderStatus;
  /** quick: made from a master prompt by the planner; explicit: POST /videos (or the bot's topic). */
  kind: 'quick' | 'explicit';
  /** Absent on orders made before channels existed: those came from the API. */
  channel?: Channel;
  prompt?: string;
  params: OrderParams;
  charge: Charge;
  createdAt: string;
  updatedAt: string;
  etaSeconds: number;
  /** Which partition its open-order marker went to (spreads the creations' writes). */
  queueShard: number;
  /** A test-mode order's live account, whose active tasks and reviews pending it counts in (core/limits.ts limitsOwner). */
  limitsOf?: string;
  /** The name of its current workflow execution, when not the order id (a restart or a review's new execution). */
  execution?: string;
  /** A quick order's parameters were refined by the workflow's planning step. */
  planned?: boolean;
  script?: Script;
  /** The task token of the review wait, while the order is awaiting_review. */
  reviewToken?: string;
  /** How many times the order has gone to awaiting_review. */
  reviewRound?: number;
  /** Director mode: the script was approved or edited; rendering may go on. */
  reviewed?: boolean;
  /** Director mode: a regen decision waiting for the rewrite. */
  regenNote?: string;
  /** How many regens the client asked for (at most MAX_REGENS). */
  regens?: number;
  /**
   * When its latest render began: from the first one on its deadline no longer applies (the render is finished and
   * charged).
   */
  renderStartedAt?: string;
  /** The execution whose render began at `renderStartedAt`: another execution waits that render out (OrderSteps.render). */
  renderExecution?: string;
  /** The mp4 and the cover are stored (set only after both uploads finished). */
  rendered?: boolean;
  metadata?: { title: string; description: string; hashtags: string[] };
  /** The client's own pairs from the creation's `metadata`, as sent (answered as `client_metadata`). */
  clientMetadata?: Record<string, string>;
  /** The assets the order names, checked and copied into its files (core/assets.ts), by asset id: all the render reads of them. */
  assets?: Record<string, OrderAsset>;
  error?: OrderFailure;
  finishedAt?: string;
  /** Where it waits for a render slot (its last wait): eta_seconds reads its place from it. */
  queuePlace?: QueuePlace;
  /** When the order went from queued to running. */
  startedAt?: string;
  /** When the order is canceled and refunded unless done (creation's `deadline_seconds`). */
  deadlineAt?: string;
  /** What a failed order gave back; set once, by the transition to error. */
  refunded?: boolean;
}

/** An order's files, stored under the order (the mp4, its cover and the posting pack). */
export const ORDER_FILES = {
  video: { name: 'video.mp4', type: 'video/mp4' },
  cover: { name: 'cover.jpg', type: 'image/jpeg' },
  pack: { name: 'pack.json', type: 'application/json' },
} as const;
export type OrderFile = keyof typeof ORDER_FILES;
/** How many days an order's files are kept (spec: Limits); the S3 lifecycle rule and the download route both count with it. */
export const FILE_RETENTION_DAYS = 30;

/** Signed links of a done order's files, issued fresh on every read. */
export interface OrderLinks {
  resultUrl: string;
  coverUrl: string;
  /** When both links stop working (a GET signs fresh ones). */
  expiresAt: string;
}

/** Where an active order stands, as the queue sees it now (eta.ts `standing`). */
export interface Standing {
  eta: number;
  /** Running: 0 to 99. */
  progress?: number;
  /** Queued: 1 for the next order to be admitted. */
  queuePosition?: number;
}

/**
 * Whether the record shows a `refund`: a failed order's that gave its charge back, and a test-mode order's in error,
 * whose refund is its charge too (0: it took nothing, so no ledger entry), so that a client's refund handling can be
 * exercised in test mode.
 */
const hasRefund = (order: Order) => order.refunded === true || (order.status === 'error' && !movesMoney(order.charge));

/**
 * The public record; `standing` is the queue's view now of an active order (the creation's estimate when not given).
 */
export function toRecord(order: Order, links?: OrderLinks, standing?: Standing): OrderRecord {
  const params = Object.fromEntries(PARAM_KEYS.filter((k) => order.params[k] !== undefined).map((k) => [k, order.params[k]])) as OrderRecord['params'];
  return {
    id: order.id,
    status: order.status,
    cost: order.charge.cost,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    director_mode: order.params.director_mode,
    trial: order.charge.trial,
    channel: order.channel ?? 'api',
    livemode: movesMoney(order.charge),
    params,
    ...(order.status === 'queued' || order.status === 'running' ? { eta_seconds: standing?.eta ?? order.etaSeconds } : {}),
    ...(order.status === 'running' && standing?.progress !== undefined ? { progress: standing.progress } : {}),
    ...(order.status === 'queued' && standing?.queuePosition !== undefined ? { queue_position: standing.queuePosition } : {}),
    ...(order.startedAt ? { started_at: order.startedAt } : {}),
    ...(order.finishedAt ? { finished_at: order.finishedAt } : {}),
    ...(order.script ? { script: formatScript(order.script) } : {}),
    ...(order.status === 'done' && links ? { result_url: links.resultUrl, cover_url: links.coverUrl, expires_at: links.expiresAt } : {}),
    ...(order.status === 'done' && order.metadata ? { metadata: order.metadata } : {}),
    ...(order.status === 'error' && order.error ? { error: order.error } : {}),
    ...(order.deadlineAt ? { deadline_at: order.deadlineAt } : {}),
    ...(order.clientMetadata ? { client_metadata: order.clientMetadata } : {}),
    charge: { amount: order.charge.cost, trial: order.charge.trial, plan_allowance: order.charge.heavyAllowanceMonth !== undefined },
    ...(hasRefund(order) ? { refund: { amount: order.charge.cost, reason: order.error?.code ?? 'error', at: order.finishedAt ?? order.updatedAt } } : {}),
  };
}

/** Why an order ended in error (or was canceled): a machine-readable code and a message for people. */
export type OrderFailure = { code: string; message: string };
