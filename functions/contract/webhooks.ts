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

/** Body of POST /webhooks/{id}/rotate (additive): how long the old secret keeps signing beside the new one. */
export const rotateWebhookBody = z.strictObject({
  overlap_seconds: z._default(z.int().check(z.gte(0), z.lte(7 * 24 * 3600)), 24 * 3600),
});
/** 200 of the rotation: the new secret (shown only here), and until when the previous one still signs. */
export const webhookRotated = z.extend(webhookView, { secret: z.string(), previous_secret_expires_at: z.optional(timestamp) });

/** 200 of POST /webhooks/{id}/test (additive): the one attempt made now. */
export const webhookTestResult = z.object({
  delivered: z.boolean(),
  http_status: z.optional(z.int()),
  error: z.optional(z.string()),
  latency_ms: z.number(),
});

/** The body of the webhook.test event. */
export const webhookTestEvent = z.object({ type: z.literal('webhook.test'), webhook_id: z.string(), created_at: timestamp });

/** An event id, as X-Service-Event-Id and webhook-id carry it: the order id, the status and the review round. */
export const EVENT_ID_RE = /^vid_[0-7][0-9a-hjkmnp-tv-z]{25}:(done|error|awaiting_review:\d{1,4})$/;
/** Body of POST /webhooks/{id}/resend (additive): one event, or every event dropped since a time. */
export const resendBody = z.union([
  z.strictObject({ event_id: z.string().check(z.regex(EVENT_ID_RE, 'must be an event id (vid_...:done)')) }),
  z.strictObject({ since: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time, such as 2026-11-25T00:00:00Z' }) }),
]);
/** 202 of a resend: the events sent again (one attempt each). */
export const resendResult = z.object({ resent: z.array(z.string()), has_more: z.boolean() });
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
