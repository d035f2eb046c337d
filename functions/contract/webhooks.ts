import * as z from 'zod/mini';
import { timestamp } from './zod.ts';

/** Body of POST /webhooks. The address policy (public HTTPS) is checked after the shape. */
export const createWebhookBody = z.strictObject({
  url: z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(2048, 'must be at most 2048 characters')),
});

const webhookView = z.object({
  id: z.string(),
  url: z.url(),
  active: z.boolean(),
  created_at: timestamp,
});
/** 201 of POST /webhooks: the only answer that carries the secret. */
export const webhookCreated = z.extend(webhookView, { secret: z.string() });
/** GET /webhooks. */
export const webhookList = z.object({ data: z.array(webhookView) });
export type WebhookView = z.infer<typeof webhookView>;

/** The events delivered to webhooks. */
export const webhookEvent = z.enum(['video.awaiting_review', 'video.done', 'video.error']);

/** GET /webhooks/{id}/deliveries (additive): the latest delivery attempts of the key's webhook, newest first. */
export const deliveryList = z.object({
  data: z.array(
    z.object({
      event_id: z.string(),
      event: webhookEvent,
      order_id: z.string(),
      attempt: z.int(),
      at: timestamp,
      url: z.string(),
      http_status: z.optional(z.int()),
      error: z.optional(z.string()),
      latency_ms: z.number(),
      outcome: z.enum(['delivered', 'pending', 'dropped', 'no_webhook']),
    }),
  ),
});
