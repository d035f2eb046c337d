/**
 * Configuration from the environment, read once at cold start. A missing required setting fails the cold start
 * with its name rather than failing a request later. On AWS each function gets only the settings its work needs (the
 * state machines' ARNs, the public address): those are read when first used, and fail then, with their name.
 */
import { DEFAULT_LIMITS, DEFAULT_PRICES, pricesFrom, type Limits, type Prices } from '../core/pricing.ts';
import type { Throughput } from '../core/limits.ts';
import { DEFAULT_BOT_RUN, shardCount } from '../core/capacity.ts';
import { FILE_RETENTION_DAYS } from '../core/orders.ts';
import { ASSETS_PER_DAY } from '../core/assets.ts';
import { DEFAULT_RESENDS_PER_HOUR } from '../core/deliveries.ts';
import { SWEEP_BUDGET } from '../core/sweep.ts';

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name];
  if (!v) throw new Error(`Missing required setting ${name}`);
  return v;
}
function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Setting ${name} must be a non-negative integer, got "${v}"`);
  return n;
}

/** PRICES: a JSON object of doubloon prices (base, placement, ai_visual, song, voice_clone); missing items keep the default. */
function prices(v: string | undefined): Prices {
  if (!v) return { ...DEFAULT_PRICES };
  let given: unknown;
  try {
    given = JSON.parse(v);
  } catch {
    throw new Error(`Setting PRICES must be a JSON object, got "${v}"`);
  }
  return pricesFrom(given as object, 'PRICES');
}

/**
 * GENERATOR_FAIL: a stage that fails for every order, or a share of orders (each fails at script or render); `crash`:
 * every render crashes instead of failing (an unexpected error, as a render process that dies would be on AWS);
 * `crash-once`: each order's first render crashes (killed mid-way, out of memory), its next ones do not.
 */
export type GeneratorFault = 'plan' | 'script' | 'render' | 'crash' | 'crash-once' | { rate: number };

/** GENERATOR_FAIL's value; an unknown one is an error naming the setting. */
export function generatorFault(v: string | undefined): GeneratorFault | undefined {
  if (!v || v === 'off') return undefined;
  if (v === 'plan' || v === 'script' || v === 'render' || v === 'crash' || v === 'crash-once') return v;
  const rate = /^random:(0(\.\d+)?|1(\.0+)?)$/.exec(v)?.[1];
  if (rate !== undefined) return { rate: Number(rate) };
  throw new Error(`Setting GENERATOR_FAIL must be plan, script, render, crash, crash-once, random:<0..1> or off, got "${v}"`);
}

/** RENDER_SLOTS: orders generated at once (the render queue's slots); at least one. */
const renderSlots = (env: NodeJS.ProcessEnv) => Math.max(1, int(env, 'RENDER_SLOTS', 2));

export interface Config {
  region: string;
  tableName: string;
  bucketName: string;
  orderStateMachineArn: string;
  deliveryStateMachineArn: string;
  /** The first gap between webhook delivery attempts; it doubles per attempt. */
  webhookRetryBaseMs: number;
  /** Set only on one machine: where the local stand-ins of DynamoDB, S3, Step Functions and Lambda listen. */
  endpoints: { dynamodb?: string; s3?: string; sfn?: string; lambda?: string };
  /** The asset check function's name (functions/jobs/check-asset.ts): the functions that take orders invoke it. */
  checkAssetFunction: string;
  limits: Limits;
  /** Webhook events a key may have sent again per hour (POST /webhooks/{id}/resend); 0 turns resends off. */
  resendsPerHour: number;
  /** New assets a key may create per UTC day (POST /assets). */
  assetsPerDay: number;
  prices: Prices;
  throughput: Throughput;
  maintenance: boolean;
  /** One machine only, for development: webhooks may target http and private addresses. */
  webhookAllowPrivate: boolean;
  /** The API's public base address, /v1 included: download links start with it. */
  publicBaseUrl: string;
  /** The address in the trial watermark. */
  serviceAddress: string;
  /** The HMAC key of download links, given directly (one machine) ... */
  linkSigningKey?: string;
  /** ... with the key before its last rotation, which still verifies the links it signed (one machine) ... */
  linkSigningKeyPrevious?: string;
  /** ... or the Secrets Manager secret that holds it (AWS); only functions that sign or check links get either. */
  linkSigningKeySecretArn?: string;
  /** How long a director-mode script waits for its review. */
  reviewDeadlineSeconds: number;
  /**
   * The render queue: slots, how long a slot's lease lasts, bot admissions in a row before a waiting API order; and the
   * test lane's slots (test-mode orders render there, one shard: core/capacity.ts Lane).
   */
  capacity: { slots: number; shards: number; leaseSeconds: number; botRun: number; testSlots: number };
  /** How long a process keeps its snapshot of the queue for eta_seconds. */
  queueSnapshotMs: number;
  /** The sweep leaves an order or event this young alone: its workflow's start is normally on its way. */
  sweepGraceSeconds: number;
  /**
   * What one audit sweep run may spend (docs/decisions.md "Recovery driven by events"): DescribeExecution and
   * StartExecution calls, a stated share of the account's Step Functions quotas, and markers read.
   */
  sweepBudget: { describes: number; starts: number; items: number };
  /** Order files are deleted this many days after they were written, and not served once the order is this old. */
  retentionDays: number;
}

function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Read by the generator's wrapper at each call (functions/app/faults.ts); a wrong value fails the cold start here.
  generatorFault(env.GENERATOR_FAIL);
  return {
    region: env.AWS_REGION ?? 'us-east-1',
    tableName: required(env, 'TABLE_NAME'),
    bucketName: required(env, 'BUCKET_NAME'),
    get orderStateMachineArn() {
      return required(env, 'ORDER_STATE_MACHINE_ARN');
    },
    get deliveryStateMachineArn() {
      return required(env, 'DELIVERY_STATE_MACHINE_ARN');
    },
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 30_000),
    endpoints: {
      ...(env.DYNAMODB_ENDPOINT ? { dynamodb: env.DYNAMODB_ENDPOINT } : {}),
      ...(env.S3_ENDPOINT ? { s3: env.S3_ENDPOINT } : {}),
      ...(env.SFN_ENDPOINT ? { sfn: env.SFN_ENDPOINT } : {}),
      ...(env.LAMBDA_ENDPOINT ? { lambda: env.LAMBDA_ENDPOINT } : {}),
    },
    get checkAssetFunction() {
      return required(env, 'CHECK_ASSET_FUNCTION');
    },
    limits: {
      activeTasks: int(env, 'LIMIT_ACTIVE_TASKS', DEFAULT_LIMITS.activeTasks),
      postsPerMinute: int(env, 'LIMIT_POSTS_PER_MINUTE', DEFAULT_LIMITS.postsPerMinute),
      reviewsPending: int(env, 'LIMIT_REVIEWS_PENDING', DEFAULT_LIMITS.reviewsPending),
      getsPerMinute: int(env, 'LIMIT_GETS_PER_MINUTE', DEFAULT_LIMITS.getsPerMinute),
    },
    resendsPerHour: int(env, 'LIMIT_RESENDS_PER_HOUR', DEFAULT_RESENDS_PER_HOUR),
    assetsPerDay: int(env, 'LIMIT_ASSETS_PER_DAY', ASSETS_PER_DAY),
    prices: prices(env.PRICES),
    throughput: {
      orderSeconds: int(env, 'ORDER_SECONDS_ESTIMATE', 120),
    },
    maintenance: env.MAINTENANCE_MODE === 'on',
    webhookAllowPrivate: ['on', 'true', '1'].includes(env.WEBHOOK_ALLOW_PRIVATE_URLS ?? ''),
    get publicBaseUrl() {
      return required(env, 'PUBLIC_BASE_URL').replace(/\/$/, '');
    },
    get serviceAddress() {
      return env.SERVICE_ADDRESS || new URL(required(env, 'PUBLIC_BASE_URL')).host;
    },
    ...(env.LINK_SIGNING_KEY ? { linkSigningKey: env.LINK_SIGNING_KEY } : {}),
    ...(env.LINK_SIGNING_KEY_PREVIOUS ? { linkSigningKeyPrevious: env.LINK_SIGNING_KEY_PREVIOUS } : {}),
    ...(env.LINK_SIGNING_KEY_SECRET_ARN ? { linkSigningKeySecretArn: env.LINK_SIGNING_KEY_SECRET_ARN } : {}),
    reviewDeadlineSeconds: Math.max(1, int(env, 'REVIEW_DEADLINE_SECONDS', 7 * 24 * 3600)),
    retentionDays: int(env, 'RETENTION_DAYS', FILE_RETENTION_DAYS),
    sweepGraceSeconds: int(env, 'SWEEP_GRACE_SECONDS', 60),
    sweepBudget: {
      describes: int(env, 'SWEEP_DESCRIBES_PER_RUN', SWEEP_BUDGET.describes),
      starts: int(env, 'SWEEP_STARTS_PER_RUN', SWEEP_BUDGET.starts),
      items: int(env, 'SWEEP_ITEMS_PER_RUN', SWEEP_BUDGET.items),
    },
    queueSnapshotMs: int(env, 'QUEUE_SNAPSHOT_MS', 2000),
    capacity: {
      slots: renderSlots(env),
      // RENDER_QUEUE_SHARDS overrides the shard count of the slots (one per 8 by default; at most one per slot).
      shards: shardCount(renderSlots(env), env.RENDER_QUEUE_SHARDS ? Math.max(1, int(env, 'RENDER_QUEUE_SHARDS', 1)) : undefined),
      // Longer than a slot is held by right: plan, script, the 15-minute render and publishing.
      leaseSeconds: Math.max(60, int(env, 'SLOT_LEASE_SECONDS', 1800)),
      botRun: Math.max(1, int(env, 'BOT_RUN_BEFORE_API', DEFAULT_BOT_RUN)),
      testSlots: Math.max(1, int(env, 'TEST_RENDER_SLOTS', 1)),
    },
  };
}

let loaded: Config | undefined;
/** The process's configuration, loaded on first use. */
export const config = (): Config => (loaded ??= loadConfig());

/**
 * The edge's origin check (functions/edge/origin-verify.ts), apart from the service's configuration: the authorizer
 * gets no table or bucket. The value itself (ORIGIN_VERIFY, one machine) or the secret that holds it (AWS).
 */
export const originVerifySettings = (env: NodeJS.ProcessEnv = process.env) => ({
  current: env.ORIGIN_VERIFY || undefined,
  secretArn: env.ORIGIN_VERIFY_SECRET_ARN || undefined,
});
