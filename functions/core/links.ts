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
/** How far ahead of the verifier's clock the signer's may be: a link expiring later than that was not issued here. */
const CLOCK_SKEW_SECONDS = 300;
/** Unix seconds in one spelling: decimal digits, no sign, space, exponent or leading zero (Number() reads all those). */
const EXPIRES_RE = /^[1-9][0-9]{0,11}$/;

/** The key that signs new links, and the one before the last rotation, which still verifies the links it signed. */
export interface LinkKeys {
  current: string;
  previous?: string;
}

const signature = (key: string, orderId: string, name: string, expires: number | string) =>
  createHmac('sha256', key).update(`${orderId}/${name}/${expires}`).digest('base64url');

export function fileUrl(baseUrl: string, key: string, orderId: string, file: OrderFile, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS;
  const name = ORDER_FILES[file].name;
  return `${baseUrl}/files/${orderId}/${name}?expires=${expires}&sig=${signature(key, orderId, name, expires)}`;
}

export const orderLinks = (baseUrl: string, key: string, orderId: string, now: Date): OrderLinks => ({
  resultUrl: fileUrl(baseUrl, key, orderId, 'video', now),
  coverUrl: fileUrl(baseUrl, key, orderId, 'cover', now),
  expiresAt: new Date((Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS) * 1000).toISOString(),
});

/**
 * The file a link names, or 404 for a name that is no file, 403 for a tampered or expired link. A link signed with
 * either key is good: rotating the key keeps the links of the last 7 days working, as long as rotations are at least
 * 7 days apart. A link expiring further ahead than any link issued now is refused as tampered, whatever it is signed
 * with: no link lives longer than 7 days, even one signed by a leaked key.
 */
export function verifyLink(keys: LinkKeys, orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date): OrderFile {
  const file = (Object.keys(ORDER_FILES) as OrderFile[]).find((f) => ORDER_FILES[f].name === name);
  if (!file) throw notFound('file');
  if (expires === undefined || !EXPIRES_RE.test(expires) || !sig) throw new AppError('forbidden', 'The link is not signed');
  const exp = Number(expires);
  const given = Buffer.from(sig);
  const signedWith = (key: string) => {
    const expected = Buffer.from(signature(key, orderId, name, expires));
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const signed = signedWith(keys.current) || (keys.previous !== undefined && signedWith(keys.previous));
  if (!signed || exp * 1000 > now.getTime() + (LINK_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000) {
    throw new AppError('forbidden', 'The link signature does not match');
  }
  if (exp * 1000 < now.getTime()) throw new AppError('forbidden', 'The link has expired; GET /videos/{id} issues a fresh one');
  return file;
}

/** Where the link keys come from: kept for a while, and read again on demand (rate-limited by the source). */
export interface LinkKeySource {
  keys(): Promise<LinkKeys>;
  /** Reads the keys again; false when it was done too recently to do again. */
  refresh(): boolean;
}

/**
 * verifyLink with the source's keys; a link neither verifies may be signed with a key rotated in since they were read,
 * so they are read once more before the link is refused.
 */
export async function checkLink(source: LinkKeySource, orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date) {
  try {
    return verifyLink(await source.keys(), orderId, name, expires, sig, now);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'forbidden') || !source.refresh()) throw err;
    return verifyLink(await source.keys(), orderId, name, expires, sig, now);
  }
}
