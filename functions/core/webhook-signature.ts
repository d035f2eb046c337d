/**
 * Webhook signatures, two schemes side by side on every delivery:
 * - the spec's: `X-Service-Signature`, lowercase hex HMAC-SHA256 of the raw body bytes with the webhook secret (the
 *   whole `whsec_...` string) as key; during a rotation's overlap `X-Service-Signature-Previous` carries the same with
 *   the previous secret;
 * - Standard Webhooks' (standardwebhooks.com): `webhook-id` (the event id, stable across attempts), `webhook-timestamp`
 *   (unix seconds) and `webhook-signature`, space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 *   keyed by the secret's base64 part decoded; one signature per secret in force (the previous one too during an
 *   overlap), so the `standardwebhooks` and `svix` verifiers accept it and refuse a replay older than their tolerance.
 * Receivers check them on the raw bytes, in constant time, before parsing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';
export const USER_AGENT = 'video-service-webhooks/1';
export const PREVIOUS_SIGNATURE_HEADER = 'x-service-signature-previous';

/** A new secret in Standard Webhooks' form: `whsec_` and 24 random bytes in standard base64 (no padding). */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export const signBody = (rawBody: Buffer | string, secret: string) => createHmac('sha256', secret).update(rawBody).digest('hex');

/** The Standard Webhooks signature of one message with one secret. */
export const standardSignature = (secret: string, id: string, timestamp: number, rawBody: Buffer | string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.`)
    .update(rawBody)
    .digest('base64')}`;

/** The signature headers of one delivery: `secrets` are the current one, then the previous one while it still signs. */
export function signatureHeaders(rawBody: string, secrets: [string, string?], message: { id: string; timestamp: number }): Record<string, string> {
  const [current, previous] = secrets;
  return {
    [SIGNATURE_HEADER]: signBody(rawBody, current),
    ...(previous ? { [PREVIOUS_SIGNATURE_HEADER]: signBody(rawBody, previous) } : {}),
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': [current, previous]
      .filter((s): s is string => Boolean(s))
      .map((s) => standardSignature(s, message.id, message.timestamp, rawBody))
      .join(' '),
  };
}

export function verifyWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signBody(rawBody, secret), 'hex'), Buffer.from(signature, 'hex'));
}
