/**
 * Request and response schemas of the order routes. They validate requests and (later) generate the OpenAPI
 * document, so a field is described exactly once.
 */
import * as z from 'zod/mini';
import { text } from './zod.ts';

/** Body of POST /videos. Every field but topic is optional with the documented default. */
export const createVideoBody = z.strictObject({
  topic: text(300),
  director_mode: z._default(z.boolean(), false),
  duration_seconds: z._default(z.int().check(z.gte(10), z.lte(60)), 30),
  language: z._default(z.enum(['auto', 'ru', 'en']), 'auto'),
  tone: z._default(z.enum(['neutral', 'energetic', 'calm', 'funny', 'serious']), 'neutral'),
  /** Product placement (+50): the product shown and named in the video. */
  placement: z.optional(z.strictObject({ product: text(80), description: z.optional(text(300)) })),
  /** Call to action shown on the last scene; included in the base price. */
  cta: z.optional(text(80)),
  captions: z._default(z.boolean(), true),
  /** stock: included; song: an original song (+70, heavy); none: voice only. */
  music: z._default(z.enum(['stock', 'song', 'none']), 'stock'),
  /** standard: included; clone: the client's cloned voice (+100, heavy; refused with 422 while no provider makes it); none: no voiceover. */
  voice: z._default(z.enum(['standard', 'clone', 'none']), 'standard'),
  /** AI-generated visuals (+100, heavy; refused with 422 while no image generator is configured) instead of the included pictures. */
  ai_visual: z._default(z.boolean(), false),
  /** doubloons: pay the full price instead of the plan's heavy allowance (avoids 409 fair_use_exceeded). */
  billing: z._default(z.enum(['auto', 'doubloons']), 'auto'),
});
export type OrderParams = z.output<typeof createVideoBody>;

/** Body of POST /videos:quick. */
export const quickVideoBody = z.strictObject({ prompt: text(1000) });

const orderStatus = z.enum(['queued', 'running', 'awaiting_review', 'done', 'error']);
export type OrderStatus = z.infer<typeof orderStatus>;

/** 201/200 answer of both creation routes. */
export const creationResponse = z.object({
  id: z.string(),
  status: orderStatus,
  cost: z.int(),
  eta_seconds: z.int(),
});
export type CreationResponse = z.infer<typeof creationResponse>;

/** GET /videos/{id}; the same JSON is every webhook body. */
export const orderRecord = z.object({
  id: z.string(),
  status: orderStatus,
  cost: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
  director_mode: z.boolean(),
  /** True when the order used a trial video: the video carries the forced watermark. */
  trial: z.boolean(),
  /** Where the order came from: `api` (an API key) or `bot` (the chat bot); bot orders are rendered first. */
  channel: z.enum(['api', 'bot']),
  /** The parameters the order runs with (for quick orders: what the planner chose). */
  params: z.omit(createVideoBody, { billing: true }),
  eta_seconds: z.optional(z.int()),
  script: z.optional(z.string()),
  result_url: z.optional(z.url()),
  /** The cover image, signed like result_url. */
  cover_url: z.optional(z.url()),
  metadata: z.optional(z.object({ title: z.string(), description: z.string(), hashtags: z.array(z.string()) })),
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
});
export type OrderRecord = z.infer<typeof orderRecord>;
