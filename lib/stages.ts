/**
 * The committed configuration of each stage, reviewed like code: `cdk synth -c stage=<name>` builds the stack from one
 * entry. A command-line `-c key=value` may still override a single setting for one synth (lib/settings.ts checks it),
 * but what a stage is lives here. A new stage is a new entry.
 */
import { DEFAULT_LIMITS, DEFAULT_PRICES, type Prices } from '../functions/core/pricing.ts';
import { DEFAULT_RESENDS_PER_HOUR } from '../functions/core/deliveries.ts';

/** API Gateway's token bucket for one route: requests per second, and the burst above it. */
export interface Throttle {
  rate: number;
  burst: number;
}

/** An AI provider behind an OpenAI-compatible API (docs/deploy.md, AI providers). */
export interface ProviderConfig {
  /** The API's base address with its version path, https only: https://host/v1. */
  url: string;
  /** The model; unset: the adapter's default (functions/generator/openai-http.ts, PROVIDERS). */
  model?: string;
  /** How long one call may take; unset: the adapter's default. Below the timeout of the function that calls it. */
  timeoutMs?: number;
  /**
   * The name or ARN of the Secrets Manager secret, in the stage's account and region, whose string is the API key
   * (made and rotated by the operator; the stack only grants its callers the read). Unset: calls carry no key.
   */
  apiKeySecret?: string;
}

/** The AI providers of a stage; each one absent leaves its part to the embedded generator. */
export interface ProvidersConfig {
  /** Chat completions: the planner and the writer. */
  llm?: ProviderConfig;
  /** Images generations: `ai_visual` orders (refused at creation without it). */
  images?: ProviderConfig;
  /** Audio speech with `cloneVoice`, the id of a voice cloned there: `voice: clone` orders (refused without both). */
  speech?: ProviderConfig & { cloneVoice?: string };
}

export interface StageConfig {
  /** The AWS account the stage deploys to; unset: the account of the credentials `cdk deploy` runs with. */
  account?: string;
  region: string;
  /** dev: table, bucket, secret and logs are deleted with the stack; prod: retained, the table deletion-protected. */
  removal: 'destroy' | 'retain';
  /** Days CloudWatch keeps the functions', workflows' and API's logs. */
  logRetentionDays: 7 | 30 | 90 | 365;
  /** Where alarms are mailed (SNS e-mail subscriptions, confirmed by each recipient). */
  alarmEmails: readonly string[];
  prices: Prices;
  limitActiveTasks: number;
  limitPostsPerMinute: number;
  /** Webhook events a key may have sent again per hour (POST /webhooks/{id}/resend). */
  limitResendsPerHour: number;
  /** Keyed GET requests a key may make per minute. */
  limitGetsPerMinute: number;
  /** Director-mode orders a key may hold before their approval. */
  limitReviewsPending: number;
  /** Orders generated at once: the render queue's slots and the render function's reserved concurrency. */
  renderSlots: number;
  reviewDeadlineSeconds: number;
  webhookRetryBaseMs: number;
  queueWaitAlarmSeconds: number;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * API Gateway's throttling: `default` for every route, then the routes (route table keys, "POST /videos") that need
   * their own. It is a ceiling for all callers together, in front of each key's own limits (LIMIT_*), so that a flood
   * cannot run up the bill; an HTTP API has no per-key throttling of its own. A key applies to the route it is deployed
   * as: "POST /videos:quick" to POST /v1/{customMethod}, which the quotes share (functions/http/routes.ts).
   */
  throttle: { default: Throttle; routes: Record<string, Throttle> };
  /** The API's public base address with /v1 (a custom domain); unset: the API's own URL. */
  publicBaseUrl?: string;
  /** The chat bot's IAM role, allowed to invoke the bot's order function. */
  botPrincipalArn?: string;
  /** Optional AI providers; none: the embedded generator, and `ai_visual` and `voice: clone` refused (422). */
  providers?: ProvidersConfig;
}

/** Creation starts a render (minutes of a 3 GB function); the per-key limit is 30 POSTs a minute. */
const CREATION: Throttle = { rate: 20, burst: 40 };

export const STAGES = {
  dev: {
    region: 'eu-central-1',
    removal: 'destroy',
    logRetentionDays: 7,
    alarmEmails: [],
    prices: { ...DEFAULT_PRICES },
    limitActiveTasks: DEFAULT_LIMITS.activeTasks,
    limitPostsPerMinute: DEFAULT_LIMITS.postsPerMinute,
    limitResendsPerHour: DEFAULT_RESENDS_PER_HOUR,
    limitGetsPerMinute: DEFAULT_LIMITS.getsPerMinute,
    limitReviewsPending: DEFAULT_LIMITS.reviewsPending,
    renderSlots: 2,
    // A day: a developer's review test does not wait a week for its deadline.
    reviewDeadlineSeconds: 24 * 3600,
    webhookRetryBaseMs: 30_000,
    queueWaitAlarmSeconds: 900,
    logLevel: 'DEBUG',
    throttle: { default: { rate: 50, burst: 100 }, routes: { 'POST /videos': { rate: 5, burst: 10 }, 'POST /videos:quick': { rate: 5, burst: 10 } } },
  },
  prod: {
    region: 'eu-central-1',
    removal: 'retain',
    logRetentionDays: 90,
    // The on-call address goes here before the first deployment (docs/deploy.md, the checklist).
    alarmEmails: [],
    prices: { ...DEFAULT_PRICES },
    limitActiveTasks: DEFAULT_LIMITS.activeTasks,
    limitPostsPerMinute: DEFAULT_LIMITS.postsPerMinute,
    limitResendsPerHour: DEFAULT_RESENDS_PER_HOUR,
    limitGetsPerMinute: DEFAULT_LIMITS.getsPerMinute,
    limitReviewsPending: DEFAULT_LIMITS.reviewsPending,
    renderSlots: 4,
    reviewDeadlineSeconds: 7 * 24 * 3600,
    webhookRetryBaseMs: 30_000,
    queueWaitAlarmSeconds: 900,
    logLevel: 'INFO',
    throttle: {
      default: { rate: 200, burst: 500 },
      routes: {
        'POST /videos': CREATION,
        'POST /videos:quick': CREATION,
        // Downloads need no key: the signed link is the only check, so they get their own ceiling.
        'GET /files/{id}/{file}': { rate: 100, burst: 200 },
      },
    },
  },
} satisfies Record<string, StageConfig>;

export type StageName = keyof typeof STAGES;
