/**
 * What each function may do, and nothing more: the one table of least privileges. A route's function has the grants
 * its operation states (functions/http/operations.ts); the steps', jobs' and the bot's are below. CDK turns each entry
 * into the function's IAM policy; the infrastructure tests run every route and step on the local stack, record the AWS
 * actions each function really performs, and check that every one is granted here, and nothing more.
 */
import { ASSET_FILES_PREFIX, ORDER_FILES_PREFIX } from '../functions/adapters/files.ts';
import { type Access, ADMIT, CHANGE, CHANGE_WITH_EVENT, COPY_ASSETS, ETA, USE_ASSETS } from '../functions/app/grants.ts';
import { OPERATIONS } from '../functions/http/operations.ts';
import { DEFAULT_ROUTE, DEPLOYED_ROUTES } from '../functions/http/routes.ts';

export type { Access };

/** A route's handler's grants, as its operation states them; two operations of one handler must agree. */
function routeAccess(): Record<string, Access> {
  const byHandler: Record<string, Access> = { [DEFAULT_ROUTE.handler]: {} };
  for (const { route, access } of OPERATIONS) {
    const other = byHandler[route.handler];
    if (other && JSON.stringify(other) !== JSON.stringify(access)) throw new Error(`${route.handler}: its operations grant it differently`);
    byHandler[route.handler] = access;
  }
  return byHandler;
}

/** By function: a route's handler (functions/http, from its operation) or a step's, job's or the bot's module. */
export const ACCESS: Record<string, Access> = {
  ...routeAccess(),
  'await-slot': { table: [...ADMIT], orderMachine: ['SendTaskSuccess', 'StartExecution'] },
  'start-order': { table: CHANGE },
  'plan-order': { table: CHANGE, providers: ['llm'] },
  'write-script': { table: CHANGE, providers: ['llm'] },
  // Start, plan and script of an order its admission started, in one step.
  'prepare-order': { table: CHANGE, providers: ['llm'] },
  'await-review': { table: CHANGE_WITH_EVENT, startDelivery: true },
  'regen-script': { table: CHANGE, providers: ['llm'] },
  // Renders; an order past its deadline before its render is closed here instead, as every close (core/close-order.ts):
  // its transition to error (order, user, ledger, event, pending marker; the open and deadline markers deleted), its
  // place given back and the next order admitted, its event's delivery started.
  'render-video': {
    table: [...CHANGE_WITH_EVENT, ...ADMIT],
    // The order's copies of its assets read (GetObject), the video and cover written.
    bucket: ['PutObject', 'GetObject'],
    providers: ['images', 'speech'],
    startDelivery: true,
    orderMachine: ['SendTaskSuccess', 'StartExecution'],
  },
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
    // An unstarted order's copies of its assets made before its start (its creation may have died before them).
    ...COPY_ASSETS,
  },
  // The recovery of one ended execution: the order or event read, a new execution's name recorded and started, a stray
  // marker's delete; an order past its deadline canceled (as by cancel-video: its slot given back, the next admitted).
  recover: {
    table: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    orderMachine: ['StartExecution', 'SendTaskSuccess'],
    startDelivery: true,
    stopOrders: true,
  },
  // The asset check: the version listed read whole, on its ETag (one deleted since has its empty marker there: 412,
  // answered as gone).
  'check-asset': { assets: ['GetObject'] },
  // The bot's order: the account read, the queue's snapshot, the creation transaction, a replay's read; the start, and
  // the order's unstarted marker deleted; as an API creation, the key's assets it names checked, then copied, and a
  // charge crossing the low-balance threshold starts the balance.low delivery.
  'place-order': {
    table: [...ADMIT, ...ETA],
    orderMachine: ['StartExecution', 'SendTaskSuccess'],
    takesOrders: true,
    startDelivery: true,
    ...USE_ASSETS,
  },
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
    ...(a.assets?.length ? [{ Action: a.assets.map((x) => `s3:${x}`), Resource: `${ASSET_FILES_PREFIX}*` }] : []),
    // A listing's context carries s3:prefix (a read's does not): this one allows listings within assets/ only.
    ...(a.listAssets ? [{ Action: ['s3:ListBucket'], Resource: '', Condition: { StringLike: { 's3:prefix': `${ASSET_FILES_PREFIX}*` } } }] : []),
    ...(a.listBucket ? [{ Action: ['s3:ListBucket'], Resource: '' }] : []),
  ];
}

/**
 * A function's statements on the order state machine, in IAM's terms. StartExecution takes the state machine
 * (resource type stateMachine); the task-token actions (SendTaskSuccess, and SendTaskFailure and SendTaskHeartbeat,
 * which no code calls) take no resource type, so AWS documents `Resource: "*"` for them: the token names the task
 * (Service Authorization Reference, "Actions, resources, and condition keys for AWS Step Functions";
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html).
 */
export function orderMachineStatements(a: Access, machineArn: string): { actions: string[]; resources: string[] }[] {
  const start = (a.orderMachine ?? []).filter((x) => x === 'StartExecution');
  const tokens = (a.orderMachine ?? []).filter((x) => x !== 'StartExecution');
  return [
    ...(start.length ? [{ actions: start.map((x) => `states:${x}`), resources: [machineArn] }] : []),
    ...(tokens.length ? [{ actions: tokens.map((x) => `states:${x}`), resources: ['*'] }] : []),
  ];
}

/** Each deployed function's statements on the files bucket: what the local stack is given (local/ may not import lib/). */
export const BUCKET_GRANTS = Object.fromEntries(Object.entries(FUNCTION_ACCESS).map(([name, a]) => [name, bucketStatements(a)]));
