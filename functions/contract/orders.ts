/**
 * Request and response schemas of the order routes. They validate requests and (later) generate the OpenAPI
 * document, so a field is described exactly once.
 */
import * as z from 'zod/mini';
import { text, timestamp } from './zod.ts';

/** An order id: `vid_` and a lower-case ULID, whose first character is at most 7 (its time has 48 bits). */
export const ORDER_ID_RE = /^vid_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

/** The enums of the contract, each one named in the OpenAPI document (functions/http/openapi.ts). */
export const language = z.enum(['auto', 'ru', 'en']);
export const tone = z.enum(['neutral', 'energetic', 'calm', 'funny', 'serious']);
export const music = z.enum(['stock', 'song', 'none']);
export const voice = z.enum(['standard', 'clone', 'none']);
export const billing = z.enum(['auto', 'doubloons']);
export const orderStatus = z.enum(['queued', 'running', 'awaiting_review', 'done', 'error']);
export type OrderStatus = z.infer<typeof orderStatus>;
export const channel = z.enum(['api', 'bot']);
/** Doubloons charged: never negative. */
const cost = z.int().check(z.gte(0));

/** Body of POST /videos. Every field but topic is optional with the documented default. */
export const createVideoBody = z.strictObject({
  topic: text(300),
  director_mode: z._default(z.boolean(), false),
  duration_seconds: z._default(z.int().check(z.gte(10), z.lte(60)), 30),
  language: z._default(language, 'auto'),
  tone: z._default(tone, 'neutral'),
  /** Product placement (+50): the product shown and named in the video. */
  placement: z.optional(z.strictObject({ product: text(80), description: z.optional(text(300)) })),
  /** Call to action shown on the last scene; included in the base price. */
  cta: z.optional(text(80)),
  captions: z._default(z.boolean(), true),
  /** stock: included; song: an original song (+70, heavy); none: voice only. */
  music: z._default(music, 'stock'),
  /** standard: included; clone: the client's cloned voice (+100, heavy; refused with 422 while no provider makes it); none: no voiceover. */
  voice: z._default(voice, 'standard'),
  /** AI-generated visuals (+100, heavy; refused with 422 while no image generator is configured) instead of the included pictures. */
  ai_visual: z._default(z.boolean(), false),
  /** doubloons: pay the full price instead of the plan's heavy allowance (avoids 409 fair_use_exceeded). */
  billing: z._default(billing, 'auto'),
});
export type OrderParams = z.output<typeof createVideoBody>;

/** The parameters an order runs with, as answers show them (billing is how it was paid, not a parameter). */
const orderParams = z.omit(createVideoBody, { billing: true });

/** Seconds from creation after which an order whose render has not started is canceled and refunded: a minute to a week. */
const deadlineSeconds = z.optional(z.int().check(z.gte(60), z.lte(7 * 24 * 3600)));

/** What an order may add to its parameters: none is a parameter of the video, none changes its price. */
const orderOptions = {
  deadline_seconds: deadlineSeconds,
  /** A quote of POST /videos:quote for this same request: the order is charged exactly what it said. */
  quote_id: z.optional(z.string().check(z.regex(/^quo_[0-9a-hjkmnp-tv-z]{26}$/, 'must be a quote id (quo_...)'))),
  /** The most the order may cost: one that would cost more is refused (409 max_cost_exceeded) before any charge. */
  max_cost: z.optional(z.int().check(z.gte(0))),
};

/** Body of POST /videos: the parameters, and the order's options. */
export const createVideoRequest = z.extend(createVideoBody, orderOptions);

/** Body of POST /videos:quick. */
export const quickVideoBody = z.strictObject({ prompt: text(1000), ...orderOptions });

/** Body of POST /videos:quote (additive): the body of POST /videos or of POST /videos:quick. */
export const quoteRequest = z.union([quickVideoBody, createVideoRequest]);

/** 200 of POST /videos:quote: what the order would cost, item by item, and the quote that holds that price. */
export const quoteResponse = z.object({
  /** Pass it as `quote_id` with the same request to be charged exactly `cost`; it is valid until `expires_at`, once. */
  quote_id: z.string(),
  cost,
  breakdown: z.object({
    /** The base price; 0 when a trial video pays for the order. */
    base: z.int().check(z.gte(0)),
    /** Each paid extra's price; 0 when the plan's allowance covers it. */
    extras: z.record(z.string(), z.int().check(z.gte(0))),
    /** A trial video pays the base (the video carries the trial watermark). */
    trial: z.boolean(),
    /** The plan's monthly allowance of heavy videos covers the heavy extras. */
    plan_allowance: z.boolean(),
  }),
  /** The parameters priced (for a prompt: what the planner chose, as the order would run). */
  params: orderParams,
  eta_seconds: z.int().check(z.gte(0)),
  expires_at: timestamp,
});
export type QuoteResponse = z.infer<typeof quoteResponse>;

/** 201/200 answer of both creation routes. */
export const creationResponse = z.object({
  id: z.string(),
  status: orderStatus,
  cost,
  eta_seconds: z.int().check(z.gte(0)),
});
export type CreationResponse = z.infer<typeof creationResponse>;

/** GET /videos/{id}; the same JSON is every webhook body. */
export const orderRecord = z.object({
  id: z.string(),
  status: orderStatus,
  cost,
  created_at: timestamp,
  updated_at: timestamp,
  director_mode: z.boolean(),
  /** True when the order used a trial video: the video carries the forced watermark. */
  trial: z.boolean(),
  /** Where the order came from: `api` (an API key) or `bot` (the chat bot); bot orders are rendered first. */
  channel,
  /** The parameters the order runs with (for quick orders: what the planner chose). */
  params: orderParams,
  eta_seconds: z.optional(z.int().check(z.gte(0))),
  /** Running: how far the generation is, 0 to 100 (an estimate from its stage and the measured render speed). */
  progress: z.optional(z.int().check(z.gte(0), z.lte(100))),
  /** Queued: the order's place in the render queue, 1 for the next to start. */
  queue_position: z.optional(z.int().check(z.gte(1))),
  /** When the order started running. */
  started_at: z.optional(timestamp),
  /** When the order ended, done or in error. */
  finished_at: z.optional(timestamp),
  script: z.optional(z.string()),
  result_url: z.optional(z.url()),
  /** The cover image, signed like result_url. */
  cover_url: z.optional(z.url()),
  /** When result_url and cover_url stop working (7 days; every GET signs fresh ones). */
  expires_at: z.optional(timestamp),
  metadata: z.optional(z.object({ title: z.string(), description: z.string(), hashtags: z.array(z.string()) })),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
  /** When the order is canceled and refunded unless its render has started (its creation's `deadline_seconds`). */
  deadline_at: z.optional(timestamp),
  /** What the order took: doubloons (`amount`), a trial video, the plan's allowance of heavy videos. */
  charge: z.object({ amount: cost, trial: z.boolean(), plan_allowance: z.boolean() }),
  /** What was given back when the order ended in error, and why (its error code). */
  refund: z.optional(z.object({ amount: cost, reason: z.string(), at: timestamp })),
});
export type OrderRecord = z.infer<typeof orderRecord>;

const INTEGER_1_100 = 'must be an integer from 1 to 100';
const TIME = 'must be an ISO 8601 time, such as 2026-11-25T00:00:00Z';
/**
 * How many entries a page holds. Query values are strings: decimal digits only (Number() would also take `0x10`,
 * `1e1` or ` 5`), then the number is checked.
 */
export const pageLimit = z._default(
  z.pipe(
    z.string({ error: INTEGER_1_100 }).check(z.regex(/^[0-9]{1,3}$/, INTEGER_1_100)),
    z.coerce.number<string>().check(z.gte(1, INTEGER_1_100), z.lte(100, INTEGER_1_100)),
  ),
  20,
);
// Described as the integer it stands for (its digits-only pattern is how a query string spells one).
z.globalRegistry.add(pageLimit, {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  pattern: undefined,
  description: 'Entries on a page, 1 to 100 (20 by default)',
} as never);

/** The query of GET /videos (additive): the key's orders, newest first. */
export const listOrdersQuery = z.strictObject({
  limit: pageLimit,
  /** The cursor: the orders created before this one (its `next_starting_after`, or the last id of a page). */
  starting_after: z.optional(z.string().check(z.regex(ORDER_ID_RE, 'must be an order id (vid_...)'))),
  status: z.optional(orderStatus),
  /** Created at or after this time. */
  created_gte: z.optional(z.iso.datetime({ offset: true, error: TIME })),
  /** Created before this time. */
  created_lt: z.optional(z.iso.datetime({ offset: true, error: TIME })),
});
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

/** GET /videos: a page of orders, newest first. */
export const orderList = z.object({
  data: z.array(orderRecord),
  /** More orders may match: ask again with `starting_after` set to `next_starting_after`. */
  has_more: z.boolean(),
  /** The cursor of the next page, present when has_more is true. */
  next_starting_after: z.optional(z.string()),
});
