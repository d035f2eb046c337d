/**
 * Download links that stay valid for 7 days without an API key: the path names the order's file, `expires` the
 * moment it stops working, and `sig` an HMAC-SHA256 of both under the service's link key. A presigned S3 URL could not
 * live that long when signed with a Lambda role's temporary credentials, so the download route checks this signature
 * and then redirects to a short-lived presigned URL.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, notFound } from './errors.ts';
import { ORDER_FILES, type OrderFile, type OrderLinks } from './orders.ts';

const LINK_TTL_SECONDS = 7 * 24 * 3600;

const signature = (key: string, orderId: string, name: string, expires: number) =>
  createHmac('sha256', key).update(`${orderId}/${name}/${expires}`).digest('base64url');

export function fileUrl(baseUrl: string, key: string, orderId: string, file: OrderFile, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS;
  const name = ORDER_FILES[file].name;
  return `${baseUrl}/files/${orderId}/${name}?expires=${expires}&sig=${signature(key, orderId, name, expires)}`;
}

export const orderLinks = (baseUrl: string, key: string, orderId: string, now: Date): OrderLinks => ({
  resultUrl: fileUrl(baseUrl, key, orderId, 'video', now),
  coverUrl: fileUrl(baseUrl, key, orderId, 'cover', now),
});

/** The file a link names, or 404 for a name that is no file, 403 for a tampered or expired link. */
export function verifyLink(key: string, orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date): OrderFile {
  const file = (Object.keys(ORDER_FILES) as OrderFile[]).find((f) => ORDER_FILES[f].name === name);
  if (!file) throw notFound('file');
  const exp = Number(expires);
  if (!Number.isSafeInteger(exp) || !sig) throw new AppError('forbidden', 'The link is not signed');
  const expected = Buffer.from(signature(key, orderId, name, exp));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new AppError('forbidden', 'The link signature does not match');
  if (exp * 1000 < now.getTime()) throw new AppError('forbidden', 'The link has expired; GET /videos/{id} issues a fresh one');
  return file;
}
