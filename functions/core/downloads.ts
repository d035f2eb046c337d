/**
 * GET /files/{id}/{file}, the target of result_url and cover_url: the link's signature and expiry first (403 when
 * tampered or expired), then the order's age, then the file's existence (404 for either), then a short-lived
 * presigned URL of the file.
 *
 * An order's files are served for the retention period counted from the order's creation, the time in its id: past it
 * the answer is 404 without asking the store. S3's lifecycle rule deletes each file that many days after it was
 * written, which is never earlier, so the route does not depend on S3 to tell a file past its time.
 */
import { notFound } from './errors.ts';
import { orderCreatedAt } from './ids.ts';
import type { OrderFile } from './orders.ts';
import type { FileStore } from './ports.ts';

const DAY_MS = 86_400_000;
/** How long the presigned URL the route redirects to stays valid. */
export const PRESIGNED_SECONDS = 300;

export interface DownloadPorts {
  /** The file a link names: 403 when the link is tampered or expired, 404 for a name that is no file. */
  verify(orderId: string, name: string, expires: string | undefined, sig: string | undefined, now: Date): Promise<OrderFile>;
  files: Pick<FileStore, 'exists' | 'presign'>;
  retentionDays: number;
}

/** The order is older than the retention period: its files are no longer served. */
export const pastRetention = (orderId: string, now: Date, retentionDays: number) => now.getTime() - orderCreatedAt(orderId) > retentionDays * DAY_MS;

/** Where a valid link to a file that is still kept leads: a presigned URL. */
export async function downloadLocation(
  p: DownloadPorts,
  orderId: string,
  name: string,
  expires: string | undefined,
  sig: string | undefined,
  now: Date,
): Promise<string> {
  const file = await p.verify(orderId, name, expires, sig, now);
  if (pastRetention(orderId, now, p.retentionDays) || !(await p.files.exists(orderId, file))) {
    throw notFound(`file (order files are kept ${p.retentionDays} days)`);
  }
  return p.files.presign(orderId, file, PRESIGNED_SECONDS);
}
