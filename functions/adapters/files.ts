/** Order files in S3: everything of an order lives under orders/<order id>/. */
import { createReadStream, statSync } from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import { ORDER_FILES, type OrderFile } from '../core/orders.ts';
import type { FileStore } from '../core/ports.ts';
import { sdk } from './aws.ts';

/** Where every order's files are: the grants (lib/access.ts) and the lifecycle rule name this prefix. */
export const ORDER_FILES_PREFIX = 'orders/';

const fileKeys = {
  orderPrefix: (orderId: string) => `${ORDER_FILES_PREFIX}${orderId}/`,
  file: (orderId: string, file: OrderFile) => `${ORDER_FILES_PREFIX}${orderId}/${ORDER_FILES[file].name}`,
};

export class OrderFiles implements FileStore {
  constructor(
    private readonly s3: () => Promise<S3Client>,
    private readonly bucket: string,
  ) {}

  /**
   * S3 answers 404 for a missing file only to a caller that may list it (s3:ListBucket), and 403 to others. A 403 is
   * not taken for "missing": it may be a permission fault, so it stays an error, named.
   */
  async exists(orderId: string, file: OrderFile): Promise<boolean> {
    const { HeadObjectCommand } = await sdk.s3();
    const key = fileKeys.file(orderId, file);
    try {
      await (await this.s3()).send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return false;
      if (e.$metadata?.httpStatusCode === 403) {
        throw new Error(`S3 refused HeadObject of ${key}: no s3:GetObject, or a missing file and no s3:ListBucket on ${ORDER_FILES_PREFIX}`, {
          cause: err,
        });
      }
      throw err;
    }
  }

  /** Stores a file from memory, or from a path on disk (streamed). */
  async put(orderId: string, file: OrderFile, body: Buffer | string, fromPath = false): Promise<void> {
    const { PutObjectCommand } = await sdk.s3();
    await (await this.s3()).send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: fileKeys.file(orderId, file),
        ContentType: ORDER_FILES[file].type,
        ...(fromPath
          ? { Body: createReadStream(body as string), ContentLength: statSync(body as string).size }
          : { Body: typeof body === 'string' ? Buffer.from(body) : body }),
      }),
    );
  }

  /** A short-lived presigned GET of the file (the download route redirects to it). */
  async presign(orderId: string, file: OrderFile, seconds: number): Promise<string> {
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([sdk.s3(), sdk.presigner()]);
    return getSignedUrl(await this.s3(), new GetObjectCommand({ Bucket: this.bucket, Key: fileKeys.file(orderId, file) }), { expiresIn: seconds });
  }

  async deleteAll(orderId: string): Promise<number> {
    return this.deleteWhere(fileKeys.orderPrefix(orderId), () => true);
  }

  /** The local stand-in of the S3 lifecycle rule: deletes order files last written before `cutoff`. */
  async expire(cutoff: Date): Promise<number> {
    return this.deleteWhere('orders/', (modified) => modified < cutoff);
  }

  private async deleteWhere(prefix: string, keep: (modified: Date) => boolean): Promise<number> {
    const { DeleteObjectsCommand, ListObjectsV2Command } = await sdk.s3();
    const s3 = await this.s3();
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      const objects = (page.Contents ?? []).filter((o) => keep(o.LastModified ?? new Date(0))).map((o) => ({ Key: o.Key! }));
      if (objects.length) {
        await s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }));
        deleted += objects.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }
}
