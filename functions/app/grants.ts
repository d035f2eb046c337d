/**
 * The words of the one table of least privileges (lib/access.ts): what a function may do, and the grants that several
 * functions share. Here, below lib, so that each API operation (functions/http/operations.ts) states its own function's
 * grants beside its route.
 */
import type { ProviderName } from '../generator/openai-http.ts';

export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem';
export type BucketAction = 'GetObject' | 'PutObject';
export type AssetAction = 'GetObject' | 'PutObject';
export type OrderMachineAction = 'StartExecution' | 'SendTaskSuccess';

export interface Access {
  /** Actions on the single table. */
  table?: readonly TableAction[];
  /** Actions on the order files (orders/*) of the bucket (an order's copies of its assets included). */
  bucket?: readonly BucketAction[];
  /**
   * Actions on the keys' uploaded assets (assets/*): PutObject to presign their upload (a presigned URL acts with its
   * signer's grants) and to leave a deleted one's empty marker, GetObject to check one and copy it into an order.
   */
  assets?: readonly AssetAction[];
  /** s3:ListBucket on the bucket where s3:prefix is under assets/: a listing of an asset's key tells "not uploaded yet". */
  listAssets?: boolean;
  /**
   * s3:ListBucket on the bucket, with no condition: S3 answers a read of a missing key 404 only to a caller allowed to
   * list the bucket, 403 to others (a 500 of the download route), and a condition on s3:prefix is never met by a read,
   * which carries no prefix (docs/decisions.md).
   */
  listBucket?: boolean;
  /** Actions on the order state machine. */
  orderMachine?: readonly OrderMachineAction[];
  /** Starts executions of the webhook delivery state machine (the steps that record an event). */
  startDelivery?: boolean;
  /** Reads where executions of these state machines stand (DescribeExecution). */
  describeExecutions?: readonly ('order' | 'delivery')[];
  /** Stops executions of the order state machine (a canceled order's). */
  stopOrders?: boolean;
  /** Reads the link-signing secret (the functions that sign or check download links). */
  linkKey?: boolean;
  /**
   * Calls these AI providers, where the stage configures them: their settings, and the read of each one's API key
   * secret (lib/providers.ts).
   */
  providers?: readonly ProviderName[];
  /** Takes orders, so refuses a paid extra no provider delivers: the providers' addresses, never a key. */
  takesOrders?: boolean;
  /** Invokes the asset check function (lambda:InvokeFunction on it), which decodes an upload at its first use. */
  checkAssets?: boolean;
}

/**
 * Every authenticated route: the key lookup. Every authenticated request: its count in the minute's window (POSTs and
 * DELETEs in one, GETs apart).
 */
export const AUTH: TableAction[] = ['GetItem'];
/** eta_seconds: the queue's snapshot, the state items of its shards (read in batches; never its waits). */
export const ETA: TableAction[] = ['BatchGetItem'];
export const POST: TableAction[] = [...AUTH, 'UpdateItem'];
export const GET: TableAction[] = [...AUTH, 'UpdateItem'];
/**
 * A status change: the order and the user's active-task count; with an event, puts (the event, its pending marker, a refund's
 * ledger entry), and for a key without a webhook the event settled at once (the webhook read, its pending marker
 * deleted). The change to done or error also deletes the open-order and deadline markers.
 */
export const CHANGE: TableAction[] = ['GetItem', 'UpdateItem'];
export const CHANGE_WITH_EVENT: TableAction[] = [...CHANGE, 'PutItem', 'DeleteItem'];
/** Copying the assets an order records into its files (a CopyObject: read the source, write the copy). */
export const COPY_ASSETS = { assets: ['GetObject'], bucket: ['PutObject'] } as const satisfies Access;
/**
 * Naming a key's assets in an order (creation, a review's edited script): each checked at its first use (a listing of
 * its key, the check function invoked, the verdict written on the asset), then copied into the order's files once the
 * order (or the decision) is written.
 */
export const USE_ASSETS = { ...COPY_ASSETS, listAssets: true, checkAssets: true } as const satisfies Access;
/**
 * The render queue's admission: read a shard's slots and state (batches), the heads of its waits (queries) and the
 * order's hold, record a wait with its ticket, claim a slot (a transaction that puts the slot and the hold, deletes
 * the wait and updates the shard states), release one; note the order's place; and complete the admitted order's wait,
 * or start the execution of an order queued by its creation.
 */
export const ADMIT: TableAction[] = ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];
