import * as z from 'zod/mini';
import { explainedEnum, timestamp } from './zod.ts';

/** The address policy (public HTTPS) is checked after the shape. */
export const createWebhookBody = z
  .strictObject({
    url: z
      .string()
      .check(
        z.trim(),
        z.minLength(1, 'is required'),
        z.maxLength(2048, 'must be at most 2048 characters'),
        z.describe(
          'Where events are POSTed: a public HTTPS address, at most 2048 characters, without credentials or a fragment; every address its host resolves to must be public, and its certificate must verify.',
        ),
      ),
  })
  .check(
    z.meta({
      description: 'Body of POST /webhooks: the one webhook of the key, registered or replaced (a new secret either way).',
      examples: [{ url: 'https://example.com/hooks/video' }],
    }),
  );

const webhookId = z.string().check(z.describe("The webhook's id (`wh_...`)."));
const webhookView = z.object({
  id: webhookId,
  url: z.url().check(z.describe('Where events are delivered.')),
  active: z.boolean().check(z.describe('Always true in v1: a webhook receives events until it is deleted.')),
  created_at: timestamp.check(z.describe('When the webhook was first registered (a replacement keeps it).')),
});
/** The signing secret, in the two answers that show it. */
const secret = (description: string) =>
  z
    .string()
    .check(
      z.describe(
        `${description} It is \`whsec_\` and 24 random bytes in base64: X-Service-Signature is the hex HMAC-SHA256 of each raw body keyed by this whole string, and Standard Webhooks libraries take it as it is. Store it: no other answer shows it.`,
      ),
    );
export const webhookCreated = z
  .extend(webhookView, { secret: secret('The signing secret of every event from now on.') })
  .check(z.describe('The webhook as registered (201 of POST /webhooks), with its signing secret.'));

export const rotateWebhookBody = z
  .strictObject({
    overlap_seconds: z._default(
      z
        .int()
        .check(
          z.gte(0),
          z.lte(7 * 24 * 3600),
          z.describe('Seconds the previous secret keeps signing beside the new one, 0 to 604800 (7 days); 0 stops it at once.'),
        ),
      24 * 3600,
    ),
  })
  .check(
    z.meta({
      description: 'Body of POST /webhooks/{id}/rotate (additive; may be left out): how long the old secret keeps signing beside the new one.',
      examples: [{ overlap_seconds: 3600 }],
    }),
  );
export const webhookRotated = z
  .extend(webhookView, {
    secret: secret('The new signing secret.'),
    previous_secret_expires_at: z.optional(
      timestamp.check(
        z.describe(
          'Until when the previous secret still signs beside the new one (X-Service-Signature-Previous, a second `webhook-signature` entry); absent when `overlap_seconds` was 0.',
        ),
      ),
    ),
  })
  .check(z.describe('The webhook with its new secret (200 of the rotation), and until when the previous secret still signs.'));

/** What one delivery attempt came to, in a test ping's answer and in the deliveries list. */
const attempt = {
  http_status: z.optional(z.int().check(z.describe("The receiver's HTTP status, when it answered."))),
  error: z.optional(
    z
      .string()
      .check(
        z.describe('When no answer came: the kind of failure (`connection refused`, `timed out: no answer within 5 s`, a TLS error, ...), never an address.'),
      ),
  ),
  latency_ms: z.number().check(z.describe('Milliseconds from sending to the answer or the failure.')),
};

export const webhookTestResult = z
  .object({ delivered: z.boolean().check(z.describe('Whether the receiver answered 2xx within 5 seconds.')), ...attempt })
  .check(z.describe('The one attempt made now (200 of POST /webhooks/{id}/test, additive); it is not retried.'));

export const webhookTestEvent = z
  .object({
    type: z.literal('webhook.test').check(z.describe('Always `webhook.test`: not an order event.')),
    webhook_id: webhookId,
    created_at: timestamp.check(z.describe('When the test was sent.')),
    livemode: z.boolean().check(z.describe("False when the webhook is a test-mode key's (`vgk_test_...`).")),
  })
  .check(z.describe('The body of the `webhook.test` event POST /webhooks/{id}/test sends, signed as every event is.'));

/** An event id, as X-Service-Event-Id and webhook-id carry it: the order id, the status and the review round. */
/** An order event's id, or a balance.low event's (`<user id>:balance.low:<n>`, the user id a ULID). */
export const EVENT_ID_RE = /^(vid_[0-7][0-9a-hjkmnp-tv-z]{25}:(done|error|awaiting_review:\d{1,4})|[0-7][0-9A-HJKMNP-TV-Z]{25}:balance\.low:\d{1,9})$/;
export const resendBody = z
  .union([
    z.strictObject({
      event_id: z
        .string()
        .check(
          z.regex(EVENT_ID_RE, 'must be an event id (vid_...:done)'),
          z.describe(
            'One event to send again, by its id as X-Service-Event-Id and webhook-id carry it (`<order id>:done`, `<order id>:error`, `<order id>:awaiting_review:<round>`, or a `balance.low` event’s id): delivered, dropped or never sent for want of a webhook.',
          ),
        ),
    }),
    z.strictObject({
      since: z.iso
        .datetime({ offset: true, error: 'must be an ISO 8601 time, such as 2026-11-25T00:00:00Z' })
        .check(z.describe('Send again every event whose delivery was dropped since this time (attempts are kept 30 days), at most 100 a call.')),
    }),
  ])
  .check(
    z.meta({
      description: 'Body of POST /webhooks/{id}/resend (additive): one event, or every event dropped since a time. Each gets one attempt.',
      examples: [{ event_id: 'vid_01m88sfkhke0327c8bwnnsgp83:done' }, { since: '2026-11-24T00:00:00Z' }],
    }),
  );
export const resendResult = z
  .object({
    resent: z.array(z.string()).check(z.describe('The ids of the events sent again, one attempt each.')),
    has_more: z.boolean().check(z.describe('More dropped events remain (a call sends at most 100, or what the hour’s resend budget has left): call again.')),
  })
  .check(z.describe('The events being sent again (202 of a resend).'));
export const webhookList = z
  .object({ data: z.array(webhookView).check(z.describe("The key's webhook, or none: at most one, without its secret.")) })
  .check(z.describe('The webhooks of the key (GET /webhooks).'));
export type WebhookView = z.infer<typeof webhookView>;

export const webhookEvent = explainedEnum(
  'An event delivered to the webhook: an order event (its body the order, as GET /videos/{id}) or an account event (its own body).',
  {
    'video.awaiting_review': 'director mode, the script waits for a decision',
    'video.done': 'the video is ready',
    'video.error': 'the order failed or was canceled, and is refunded',
    'balance.low': 'a charge left the balance below the key’s threshold (POST /balance/alerts); its body is a BalanceLowEvent',
  },
);

export const deliveryList = z
  .object({
    data: z
      .array(
        z
          .object({
            event_id: z.string().check(z.describe('The event’s id, the same for each of its attempts (X-Service-Event-Id, webhook-id).')),
            event: webhookEvent.check(z.describe('The event’s type.')),
            order_id: z.optional(z.string().check(z.describe('The order the event is about (an order event’s; absent for `balance.low`).'))),
            attempt: z.int().check(z.describe('Which attempt this was: 1 to 5, then one more per resend.')),
            at: timestamp.check(z.describe('When the attempt was made.')),
            url: z.string().check(z.describe('Where it was sent: the webhook’s url then.')),
            ...attempt,
            outcome: explainedEnum('What came of the attempt.', {
              delivered: 'the receiver took it (2xx within 5 s)',
              pending: 'it failed, and another attempt follows (30 s after the first, the gap doubling)',
              dropped: 'it failed and was the last (resend it with POST /webhooks/{id}/resend)',
              no_webhook: 'the key had no webhook',
            }),
          })
          .check(z.describe('One delivery attempt.')),
      )
      .check(z.describe('The attempts, newest first.')),
  })
  .check(z.describe("The latest 50 delivery attempts of the key's webhook, newest first (GET /webhooks/{id}/deliveries, additive)."));
