/**
 * The committed configuration of each stage, reviewed like code: `cdk synth -c stage=<name>` builds the stack from one
 * entry. A command-line `-c key=value` may still override a single setting for one synth (lib/settings.ts checks it),
 * but what a stage is lives here. A new stage is a new entry.
 */
import { DEFAULT_LIMITS, DEFAULT_PRICES, type Prices } from '../functions/core/pricing.ts';
import { DEFAULT_RESENDS_PER_HOUR } from '../functions/core/deliveries.ts';
import { type Demand, slotsFor } from './sizing.ts';

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

/**
 * CloudFront with AWS WAF in front of the API: rate-based rules per source address, one for every request and a
 * tighter one for the creation routes, each answering 429 in the contract's envelope; the API refuses what did not come
 * through CloudFront. Limits are per address per minute; each at least what one key may do by its own limits.
 */
export interface EdgeConfig {
  enabled: boolean;
  /** Requests of any route from one address in a minute. */
  requestsPerMinute: number;
  /** POST /videos and POST /videos:quick from one address in a minute. */
  creationsPerMinute: number;
}

/** A custom domain: its name and the ARN of its ACM certificate (a name it covers). */
export interface DomainConfig {
  name: string;
  certificateArn: string;
}

export interface StageConfig {
  /** The AWS account the stage deploys to; unset: the account of the credentials `cdk deploy` runs with. */
  account?: string;
  region: string;
  /** dev: table, bucket, secret and logs are deleted with the stack; prod: retained, the table deletion-protected. */
  removal: 'destroy' | 'retain';
  /** Days CloudWatch keeps the functions', workflows' and API's logs. */
  logRetentionDays: 7 | 30 | 90 | 365;
  /** Where alarms are mailed (SNS e-mail subscriptions, confirmed by each recipient); prod needs one (PAGED_STAGES). */
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
  /** The demand the render slots are sized for (lib/sizing.ts; docs/deploy.md, Sizing). */
  demand: Demand;
  /**
   * Orders generated at once: the render queue's slots and the render function's reserved concurrency. Derived from
   * `demand` (slotsFor); context `renderSlots` overrides it for one synth.
   */
  renderSlots: number;
  /**
   * The test lane's slots: test-mode orders render there, never in the slots above (docs/decisions.md "Test mode").
   * The render function reserves them beside renderSlots.
   */
  testRenderSlots: number;
  /**
   * The webhook delivery function's reserved concurrency: deliveries at once, so that slow receivers cannot take the
   * account's concurrency from the API. Past it Lambda throttles, and the delivery workflow retries (docs/webhooks.md).
   */
  deliveryConcurrency: number;
  reviewDeadlineSeconds: number;
  webhookRetryBaseMs: number;
  queueWaitAlarmSeconds: number;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * API Gateway's throttling: `default` for every route, then the routes (route table keys, "POST /videos") that need
   * their own. It is a ceiling for all callers together, in front of each key's own limits (LIMIT_*), so that a flood
   * cannot run up the bill; an HTTP API has no per-key throttling of its own. A key applies to the route it is deployed
   * as: "POST /videos:quick" to POST /v1/{customMethod}, which the quotes share (functions/http/routes.ts). With the
   * edge on, the edge's per-address limits keep one caller from taking another's share, and these are only the bill's
   * ceiling.
   */
  throttle: { default: Throttle; routes: Record<string, Throttle> };
  /** Per-caller fairness at the edge (lib/edge.ts, docs/decisions.md). */
  edge: EdgeConfig;
  /**
   * The API's custom domain (https://<name>/v1): on CloudFront with the edge on (the certificate in us-east-1), on API
   * Gateway without it (the certificate in the stage's region). Unset: the distribution's or the API's own address.
   */
  domain?: DomainConfig;
  /** The chat bot's IAM role, allowed to invoke the bot's order function. */
  botPrincipalArn?: string;
  /** Optional AI providers; none: the embedded generator, and `ai_visual` and `voice: clone` refused (422). */
  providers?: ProvidersConfig;
}

/**
 * Per address: two keys at their full GET and POST limits (600 and 30 a minute each) and their downloads; creations
 * two keys' worth of POSTs. One address past them is refused at the edge, before anything of the API runs.
 */
const EDGE_LIMITS = { requestsPerMinute: 1500, creationsPerMinute: 60 };

/** A developer's bursts: a few orders a minute, slots half busy. */
const DEV_DEMAND: Demand = { peakOrdersPerHour: 240, slotSecondsPerOrder: 15, targetUtilisation: 0.5 };
/**
 * Today's peak (issue 27's baseline): 1,000 orders an hour at about 15 s of slot time each, the slots 70% busy so that
 * a burst of 50 orders in a minute waits about a minute (docs/deploy.md, Sizing). Re-derive with the measured figures.
 */
const PROD_DEMAND: Demand = { peakOrdersPerHour: 1000, slotSecondsPerOrder: 15, targetUtilisation: 0.7 };

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
    demand: DEV_DEMAND,
    renderSlots: slotsFor(DEV_DEMAND),
    testRenderSlots: 1,
    deliveryConcurrency: 2,
    // A day: a developer's review test does not wait a week for its deadline.
    reviewDeadlineSeconds: 24 * 3600,
    webhookRetryBaseMs: 30_000,
    queueWaitAlarmSeconds: 900,
    logLevel: 'DEBUG',
    throttle: { default: { rate: 50, burst: 100 }, routes: { 'POST /videos': { rate: 5, burst: 10 }, 'POST /videos:quick': { rate: 5, burst: 10 } } },
    // Off: dev has no customers to keep apart, its low throttles are its ceiling, and the edge would add a stack in
    // us-east-1 and a distribution to every developer's deploys. `-c edge=true` tries it (the first deploy's walkthrough does).
    edge: { enabled: false, ...EDGE_LIMITS },
  },
  prod: {
    region: 'eu-central-1',
    removal: 'retain',
    logRetentionDays: 90,
    // The on-call address goes here before the first deployment (docs/deploy.md, the walkthrough of a first deploy):
    // until then `cdk synth -c stage=prod` refuses to build prod (lib/settings.ts requireAlarmAddress) unless
    // `-c alarmEmail=<address>` gives one.
    alarmEmails: [],
    prices: { ...DEFAULT_PRICES },
    limitActiveTasks: DEFAULT_LIMITS.activeTasks,
    limitPostsPerMinute: DEFAULT_LIMITS.postsPerMinute,
    limitResendsPerHour: DEFAULT_RESENDS_PER_HOUR,
    limitGetsPerMinute: DEFAULT_LIMITS.getsPerMinute,
    limitReviewsPending: DEFAULT_LIMITS.reviewsPending,
    demand: PROD_DEMAND,
    renderSlots: slotsFor(PROD_DEMAND),
    // A test-mode order holds its slot a few seconds (a 3 s clip): two keep a few integrations' tests moving.
    testRenderSlots: 2,
    // About 10 deliveries a second at a receiver's usual 1 s, 2 a second if every receiver hangs for its 5 s.
    deliveryConcurrency: 10,
    reviewDeadlineSeconds: 7 * 24 * 3600,
    webhookRetryBaseMs: 30_000,
    // Ten times what the last order of a 50-order burst waits at the sized slots (about a minute), and within the
    // spec's typical 2 to 15 minutes from queued to done with the render still to come.
    queueWaitAlarmSeconds: 600,
    logLevel: 'INFO',
    // The edge keeps callers apart (per address), so these are the bill's ceiling for a flood from many addresses:
    // each is many addresses' worth of the edge's limits (docs/decisions.md has what a route costs at its ceiling).
    throttle: {
      default: { rate: 1000, burst: 2000 },
      routes: {
        'POST /videos': { rate: 100, burst: 200 },
        'POST /videos:quick': { rate: 100, burst: 200 },
        // Downloads need no key: the signed link is the only check, so they get their own ceiling.
        'GET /files/{id}/{file}': { rate: 500, burst: 1000 },
      },
    },
    edge: { enabled: true, ...EDGE_LIMITS },
  },
} satisfies Record<string, StageConfig>;

export type StageName = keyof typeof STAGES;
