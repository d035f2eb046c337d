/**
 * The chat bot's order: its entry is not the public API (the operator CLI locally, an IAM-invoked function on AWS),
 * and it names the account itself, since the bot holds no API key.
 */
import * as z from 'zod/mini';
import { createVideoBody } from './orders.ts';
import { text } from './zod.ts';

export const botOrderRequest = z.strictObject({
  user_id: z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a user id')),
  /** A one-line master prompt, as POST /videos:quick takes it ... */
  prompt: z.optional(text(1000)),
  /** ... or a topic with parameters, as POST /videos takes them. */
  topic: z.optional(text(300)),
  params: z.optional(z.omit(z.partial(createVideoBody), { topic: true })),
  /** Director mode: the order stops at awaiting_review. */
  director: z.optional(z.boolean()),
  /** The bot's own retry key, remembered 24 hours like an Idempotency-Key. */
  idempotency_key: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
});
export type BotOrderRequest = z.output<typeof botOrderRequest>;
