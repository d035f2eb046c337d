/**
 * What each function may do, and nothing more: the one table of least privileges. CDK turns each entry into the
 * function's IAM policy; the infrastructure tests run every route and step on the local stack, record the AWS actions
 * each function really performs, and check that every one is granted here.
 */
import { ORDER_FILES_PREFIX } from '../functions/adapters/files.ts';
import type { ProviderName } from '../functions/generator/openai-http.ts';
import { DEFAULT_ROUTE, DEPLOYED_ROUTES } from '../functions/http/routes.ts';

export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem';
export type BucketAction = 'GetObject' | 'PutObject';
export type OrderMachineAction = 'StartExecution' | 'SendTaskSuccess';

export interface Access {
  /** Actions on the single table. */
  table?: TableAction[];
  /** Actions on the order files (orders/*) of the bucket. */
  bucket?: BucketAction[];
  /**
   * s3:ListBucket on the bucket, with no condition: S3 answers a read of a missing key 404 only to a caller allowed to
   * list the bucket, 403 to others (a 500 of the download route), and a condition on s3:prefix is never met by a read,
   * which carries no prefix (docs/decisions.md).
   */
  listBucket?: boolean;
  /** Actions on the order state machine. */
  orderMachine?: OrderMachineAction[];
  /** Starts executions of the webhook delivery state machine (the steps that record an event). */
  startDelivery?: boolean;
  /** Reads where executions of these state machines stand (DescribeExecution). */
  describeExecutions?: ('order' | 'delivery')[];
  /** Stops executions of the order state machine (a canceled order's). */
  stopOrders?: boolean;
  /** Reads the link-signing secret (the functions that sign or check download links). */
  linkKey?: boolean;
  /**
   * Calls these AI providers, where the stage configures them: their settings, and the read of each one's API key
   * secret (lib/providers.ts).
   */
  providers?: ProviderName[];
  /** Takes orders, so refuses a paid extra no provider delivers: the providers' addresses, never a key. */
  takesOrders?: boolean;
}

/**
 * Every authenticated route: the key lookup. Every authenticated POST and GET: its count in the minute's window (POSTs
 * and GETs apart).
 */
const AUTH: TableAction[] = ['GetItem'];
/** eta_seconds: the queue's snapshot, the state items of its shards (read in batches; never its waits). */
const ETA: TableAction[] = ['BatchGetItem'];
const POST: TableAction[] = [...AUTH, 'UpdateItem'];
const GET: TableAction[] = [...AUTH, 'UpdateItem'];
/**
 * A status change: the order and the user's slot; with an event, puts (the event, its pending marker, a refund's
 * ledger entry), and for a key without a webhook the event settled at once (the webhook read, its pending marker
 * deleted). The change to done or error also deletes the open-order marker.
 */
const CHANGE: TableAction[] = ['GetItem', 'UpdateItem'];
const CHANGE_WITH_EVENT: TableAction[] = [...CHANGE, 'PutItem', 'DeleteItem'];
/**
 * The render queue's admission: read a shard's slots and state (batches), the heads of its waits (queries) and the
 * order's hold, record a wait with its ticket, claim a slot (a transaction that puts the slot and the hold, deletes
 * the wait and updates the shard states), release one; note the order's place; and complete the admitted order's wait,
 * or start the execution of an order queued by its creation.
 */
const ADMIT: TableAction[] = ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];

/** By function: a route's handler (functions/http) or a step's module (functions/steps). */
export const ACCESS: Record<string, Access> = {
  // The creation transaction: order, debit, slot, count, ledger, queue shard, idempotency record; a replay reads.
  // The creation: the transaction, the queue's snapshot; the start of a director-mode order, or any other queued and
  // admitted (its execution started with its slot, or a running wait completed); the order's unstarted marker deleted.
  'create-quick': { table: [...POST, ...ADMIT, ...ETA], orderMachine: ['StartExecution', 'SendTaskSuccess'], takesOrders: true },
  'create-video': { table: [...POST, ...ADMIT, ...ETA], orderMachine: ['StartExecution', 'SendTaskSuccess'], takesOrders: true },
  // A quote: the account read, the queue's snapshot for eta_seconds, the quote put. It offers what orders would.
  'quote-video': { table: [...POST, 'PutItem', ...ETA], takesOrders: true },
  'get-video': { table: [...GET, ...ETA], linkKey: true },
  // The user's order references (a query), the orders (a batch read), the queue for the active ones' estimates.
  'list-videos': { table: [...GET, ...ETA, 'Query'], linkKey: true },
  // A lost review wait is answered with a new execution (where the order's execution stands decides its name).
  'review-video': { table: [...POST, 'GetItem'], orderMachine: ['SendTaskSuccess', 'StartExecution'], describeExecutions: ['order'] },
  'create-webhook': { table: [...POST, 'GetItem', 'PutItem'] },
  'list-webhooks': { table: [...GET, 'GetItem'] },
  'delete-webhook': { table: [...AUTH, 'GetItem', 'DeleteItem'] },
  'list-deliveries': { table: [...GET, 'GetItem', 'Query'] },
  // The webhook (owner item, then the user's), saved with its new secret and the previous one's overlap.
  'rotate-webhook': { table: [...POST, 'GetItem', 'PutItem'] },
  // The webhook read; the test delivery goes out over the network, nothing is stored.
  'test-webhook': { table: [...POST, 'GetItem'] },
  // The dropped attempts since a time (a query), each event read and reopened with its pending marker; a new delivery.
  'resend-events': { table: [...POST, 'GetItem', 'Query', 'PutItem'], startDelivery: true },
  'get-balance': { table: GET },
  // The user's ledger entries: one query of its partition.
  'list-transactions': { table: [...GET, 'Query'] },
  // A file past retention is refused before S3 is asked (functions/core/downloads.ts); the listing answers the rest.
  'download-file': { bucket: ['GetObject'], listBucket: true, linkKey: true },
  'not-found': {},
  'get-openapi': {},
  'get-docs': {},
  'await-slot': { table: [...ADMIT], orderMachine: ['SendTaskSuccess', 'StartExecution'] },
  'start-order': { table: CHANGE },
  'plan-order': { table: CHANGE, providers: ['llm'] },
  'write-script': { table: CHANGE, providers: ['llm'] },
  // Start, plan and script of an order its admission started, in one step.
  'prepare-order': { table: CHANGE, providers: ['llm'] },
  'await-review': { table: CHANGE_WITH_EVENT, startDelivery: true },
  'regen-script': { table: CHANGE, providers: ['llm'] },
  'render-video': { table: CHANGE, bucket: ['PutObject'], providers: ['images', 'speech'] },
  'publish-order': {
    table: [...CHANGE_WITH_EVENT, ...ADMIT],
    bucket: ['PutObject'],
    startDelivery: true,
    linkKey: true,
    orderMachine: ['SendTaskSuccess', 'StartExecution'],
  },
  'mark-failed': { table: [...CHANGE_WITH_EVENT, ...ADMIT], startDelivery: true, orderMachine: ['SendTaskSuccess', 'StartExecution'] },
  // An unreviewed order's transition to error (order, user, ledger, event, pending marker; the open marker deleted),
  // its event's delivery started; as every close, it gives the queue a chance to admit the next order.
  'review-lapsed': { table: [...CHANGE_WITH_EVENT, ...ADMIT], startDelivery: true, orderMachine: ['SendTaskSuccess', 'StartExecution'] },
  // An attempt's record; a settled event's marker is deleted.
  'deliver-event': { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  // A cancel: the transition to error (order, user, ledger, event, pending marker; the open marker deleted), the order's
  // wait or slot given back and the next order admitted and woken, the event's delivery started, the execution stopped.
  'cancel-video': {
    table: [...POST, ...CHANGE_WITH_EVENT, ...ADMIT],
    orderMachine: ['SendTaskSuccess', 'StartExecution'],
    startDelivery: true,
    stopOrders: true,
  },
  // The sweep: open orders and unsettled events (a query per shard, the item, where its execution stands, a start, a
  // new execution's name recorded, a stray marker's delete); the slots (reclaim and admission: batch reads of the slots
  // and the queue's shard states) and the wake-up of an admitted order; an order past its deadline canceled.
  sweep: {
    table: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    orderMachine: ['StartExecution', 'SendTaskSuccess'],
    startDelivery: true,
    describeExecutions: ['order', 'delivery'],
    // An order past its deadline is canceled (as by cancel-video).
    stopOrders: true,
  },
  // The recovery of one ended execution: the order or event read, a new execution's name recorded and started, a stray
  // marker's delete; an order past its deadline canceled (as by cancel-video: its slot given back, the next admitted).
  recover: {
    table: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    orderMachine: ['StartExecution', 'SendTaskSuccess'],
    startDelivery: true,
    stopOrders: true,
  },
  // The bot's order: the account read, the queue's snapshot, the creation transaction, a replay's read; the start, and
  // the order's unstarted marker deleted.
  'place-order': { table: [...ADMIT, ...ETA], orderMachine: ['StartExecution', 'SendTaskSuccess'], takesOrders: true },
};

/** A function's grants as the union of several handlers' (the custom methods' function runs theirs). */
function unionOf(accesses: Access[]): Access {
  const union: Record<string, unknown> = {};
  for (const a of accesses) {
    for (const [k, v] of Object.entries(a)) union[k] = Array.isArray(v) ? [...new Set([...((union[k] as unknown[]) ?? []), ...v])] : union[k] || v;
  }
  return union as Access;
}

const shared = DEPLOYED_ROUTES.filter((d) => d.runs.length > 1);
const ownFunction = new Set([...DEPLOYED_ROUTES.map((d) => d.handler), DEFAULT_ROUTE.handler]);

/**
 * By deployed function: each handler's or step's own entry above, except that the handlers a shared function runs
 * (POST /v1/{customMethod}: functions/http/routes.ts) have no function of their own, and that function gets the
 * union of theirs.
 */
export const FUNCTION_ACCESS: Record<string, Access> = {
  ...Object.fromEntries(Object.entries(ACCESS).filter(([name]) => ownFunction.has(name) || !shared.some((d) => d.runs.includes(name)))),
  ...Object.fromEntries(shared.map((d) => [d.handler, unionOf(d.runs.map((h) => ACCESS[h]!))])),
};

/**
 * A function's statements on the files bucket, in IAM's terms: `Resource` is '' for the bucket itself, or a key
 * pattern of its objects. CDK deploys exactly these (lib/video-service-stack.ts), and the local S3 store evaluates
 * exactly these (local/s3.ts), conditions included, so the two cannot drift.
 */
export function bucketStatements(a: Access): { Action: string[]; Resource: string; Condition?: Record<string, Record<string, string>> }[] {
  return [
    ...(a.bucket?.length ? [{ Action: a.bucket.map((x) => `s3:${x}`), Resource: `${ORDER_FILES_PREFIX}*` }] : []),
    ...(a.listBucket ? [{ Action: ['s3:ListBucket'], Resource: '' }] : []),
  ];
}

/** Each deployed function's statements on the files bucket: what the local stack is given (local/ may not import lib/). */
export const BUCKET_GRANTS = Object.fromEntries(Object.entries(FUNCTION_ACCESS).map(([name, a]) => [name, bucketStatements(a)]));
