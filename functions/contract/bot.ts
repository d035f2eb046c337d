/**
 * The chat bot's order: its entry is not the public API (the operator CLI locally, an IAM-invoked function on AWS),
 * and it names the account itself, since the bot holds no API key.
 */
import * as z from 'zod/mini';
import { createVideoBody } from './orders.ts';
import { text } from './zod.ts';

export const botOrderRequest = z
  .strictObject({
    user_id: z.string().check(z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a user id'), z.describe('The account the order is for and charged to.')),
    prompt: z.optional(text(1000).check(z.describe('A one-line master prompt, as POST /videos:quick takes it (or `topic`).'))),
    topic: z.optional(text(300).check(z.describe('A topic, with `params`, as POST /videos takes them (or `prompt`).'))),
    params: z.optional(z.omit(z.partial(createVideoBody), { topic: true }).check(z.describe("The topic's parameters, as in POST /videos."))),
    director: z.optional(z.boolean().check(z.describe('Director mode: the order stops at awaiting_review.'))),
    idempotency_key: z.optional(
      z.string().check(z.minLength(1), z.maxLength(255), z.describe("The bot's own retry key, remembered 24 hours like an Idempotency-Key.")),
    ),
  })
  .check(z.describe("An order of the operators' chat bot, on the `bot` channel."));
export type BotOrderRequest = z.output<typeof botOrderRequest>;
