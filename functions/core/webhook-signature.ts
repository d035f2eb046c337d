/**
 * The webhook signature of the spec: lowercase hex HMAC-SHA256 of the raw body bytes with the webhook secret as key,
 * in the X-Service-Signature header. Receivers check it on the raw bytes, in constant time, before parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';

export const signBody = (rawBody: Buffer | string, secret: string) => createHmac('sha256', secret).update(rawBody).digest('hex');

export function verifyWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signBody(rawBody, secret), 'hex'), Buffer.from(signature, 'hex'));
}
