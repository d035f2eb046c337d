/**
 * Request and response schemas of the order routes. They validate requests and (later) generate the OpenAPI
 * document, so a field is described exactly once.
 */
import { z } from 'zod';

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** Body of POST /videos. Every field but topic is optional with the documented default. */
export const createVideoBody = z.strictObject({
  topic: text(300),
  director_mode: z.boolean().default(false),
  duration_seconds: z.int().min(10).max(60).default(30),
  language: z.enum(['auto', 'ru', 'en']).default('auto'),
  tone: z.enum(['neutral', 'energetic', 'calm', 'funny', 'serious']).default('neutral'),
  /** Product placement (+50): the product shown and named in the video. */
  placement: z.strictObject({ product: text(80), description: text(300).optional() }).optional(),
  /** Call to action shown on the last scene; included in the base price. */
  cta: text(80).optional(),
  captions: z.boolean().default(true),
  /** stock: included; song: an original song (+70, heavy); none: voice only. */
  music: z.enum(['stock', 'song', 'none']).default('stock'),
  /** standard: included; clone: the client's cloned voice (+100, heavy); none: no voiceover. */
  voice: z.enum(['standard', 'clone', 'none']).default('standard'),
  /** AI-generated visuals (+100, heavy) instead of the included stock backgrounds. */
  ai_visual: z.boolean().default(false),
  /** doubloons: pay the full price instead of the plan's heavy allowance (avoids 409 fair_use_exceeded). */
  billing: z.enum(['auto', 'doubloons']).default('auto'),
});
export type OrderParams = z.output<typeof createVideoBody>;

/** Body of POST /videos:quick. */
export const quickVideoBody = z.strictObject({ prompt: text(1000) });

export const orderStatus = z.enum(['queued', 'running', 'awaiting_review', 'done', 'error']);
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
  /** The parameters the order runs with (for quick orders: what the planner chose). */
  params: createVideoBody.omit({ billing: true }),
  eta_seconds: z.int().optional(),
  script: z.string().optional(),
  result_url: z.url().optional(),
  /** The cover image, signed like result_url. */
  cover_url: z.url().optional(),
  metadata: z.object({ title: z.string(), description: z.string(), hashtags: z.array(z.string()) }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type OrderRecord = z.infer<typeof orderRecord>;
