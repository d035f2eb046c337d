/**
 * Files in S3: everything of an order lives under orders/<order id>/ (its copies of the assets it names under
 * orders/<order id>/assets/), a key's uploaded assets under assets/<user id>/.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Asset, AssetFiles } from '../core/assets.ts';
import { ORDER_FILES, type OrderFile } from '../core/orders.ts';
import type { FileStore } from '../core/ports.ts';
import { sdk } from './aws.ts';

/** Where every order's files are: the grants (lib/access.ts) and the lifecycle rule name this prefix. */
export const ORDER_FILES_PREFIX = 'orders/';
/** Where the keys' uploaded assets are: their grants and their own lifecycle rule (30 days) name this prefix. */
export const ASSET_FILES_PREFIX = 'assets/';

const fileKeys = {
  orderPrefix: (orderId: string) => `${ORDER_FILES_PREFIX}${orderId}/`,
  file: (orderId: string, file: OrderFile) => `${ORDER_FILES_PREFIX}${orderId}/${ORDER_FILES[file].name}`,
  asset: (a: Pick<Asset, 'id' | 'userId'>) => `${ASSET_FILES_PREFIX}${a.userId}/${a.id}`,
  userAssets: (userId: string) => `${ASSET_FILES_PREFIX}${userId}/`,
  orderCopy: (orderId: string, assetId: string) => `${ORDER_FILES_PREFIX}${orderId}/assets/${assetId}`,
};

/** S3's answer to a read or copy whose If-Match (or x-amz-copy-source-if-match) no longer holds, or of a key that went. */
const gone = (err: unknown) => {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return e.$metadata?.httpStatusCode === 412 || e.$metadata?.httpStatusCode === 404 || e.name === 'NoSuchKey' || e.name === 'PreconditionFailed';
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

  /**
   * The local stand-in of an S3 lifecycle rule: deletes files under `prefix` last written before `cutoff` (of fewer
   * than `smallerThan` bytes, when given: the rule's ObjectSizeLessThan).
   */
  async expire(cutoff: Date, prefix = ORDER_FILES_PREFIX, smallerThan = Number.POSITIVE_INFINITY): Promise<number> {
    return this.deleteWhere(prefix, (modified, size) => modified < cutoff && size < smallerThan);
  }

  private async deleteWhere(prefix: string, keep: (modified: Date, size: number) => boolean): Promise<number> {
    const { DeleteObjectsCommand, ListObjectsV2Command } = await sdk.s3();
    const s3 = await this.s3();
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      const objects = (page.Contents ?? []).filter((o) => keep(o.LastModified ?? new Date(0), o.Size ?? 0)).map((o) => ({ Key: o.Key! }));
      if (objects.length) {
        await s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }));
        deleted += objects.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }
}

/**
 * The keys' assets: a presigned PUT whose signature binds the content type, the exact length (S3 refuses another with
 * 403 SignatureDoesNotMatch) and `If-None-Match: *` (S3's conditional write: 412 PreconditionFailed when an object is
 * at the key, so an upload only creates), the check's bounded read, the copies into orders (only of the version
 * checked), and a delete that leaves an empty marker at the key, which a PUT then meets.
 */
export class AssetObjects implements AssetFiles {
  constructor(
    private readonly client: () => Promise<S3Client>,
    private readonly bucketName: string,
  ) {}

  async uploadUrl(asset: Asset, seconds: number): Promise<{ url: string; headers: Record<string, string> }> {
    const [{ PutObjectCommand }, { getSignedUrl }] = await Promise.all([sdk.s3(), sdk.presigner()]);
    const put = new PutObjectCommand({
      Bucket: this.bucketName,
      Key: fileKeys.asset(asset),
      ContentType: asset.contentType,
      ContentLength: asset.sizeBytes,
      IfNoneMatch: '*',
    });
    // The presigner signs content-length as it signs any header it is given, but leaves content-type unsigned unless asked.
    const signableHeaders = new Set(['content-type', 'content-length', 'if-none-match']);
    const url = await getSignedUrl(await this.client(), put, { expiresIn: seconds, signableHeaders });
    return { url, headers: { 'Content-Type': asset.contentType, 'Content-Length': String(asset.sizeBytes), 'If-None-Match': '*' } };
  }

  /**
   * A listing of the key itself (s3:ListBucket with s3:prefix under assets/): unlike a read of a missing key, which S3
   * answers 404 only to a caller allowed to list the whole bucket, it tells "not uploaded" apart without that grant.
   */
  async stat(asset: Asset): Promise<{ size: number; etag: string } | undefined> {
    const { ListObjectsV2Command } = await sdk.s3();
    const key = fileKeys.asset(asset);
    const page = await (await this.client()).send(new ListObjectsV2Command({ Bucket: this.bucketName, Prefix: key, MaxKeys: 1 }));
    const found = page.Contents?.find((o) => o.Key === key);
    return found?.ETag !== undefined && found.Size !== undefined ? { size: found.Size, etag: found.ETag } : undefined;
  }

  async readTo(asset: Pick<Asset, 'id' | 'userId'>, etag: string, toPath: string): Promise<boolean> {
    const { GetObjectCommand } = await sdk.s3();
    try {
      const out = await (await this.client()).send(new GetObjectCommand({ Bucket: this.bucketName, Key: fileKeys.asset(asset), IfMatch: etag }));
      await pipeline(out.Body as Readable, createWriteStream(toPath));
      return true;
    } catch (err) {
      if (gone(err)) return false;
      throw err;
    }
  }

  async copyToOrder(asset: Pick<Asset, 'id' | 'userId'>, etag: string, orderId: string): Promise<boolean> {
    const { CopyObjectCommand } = await sdk.s3();
    try {
      await (await this.client()).send(
        new CopyObjectCommand({
          Bucket: this.bucketName,
          Key: fileKeys.orderCopy(orderId, asset.id),
          CopySource: `${this.bucketName}/${fileKeys.asset(asset)}`,
          CopySourceIfMatch: etag,
        }),
      );
      return true;
    } catch (err) {
      if (gone(err)) return false;
      throw err;
    }
  }

  async readCopy(orderId: string, assetId: string, toPath: string): Promise<void> {
    const { GetObjectCommand } = await sdk.s3();
    const out = await (await this.client()).send(new GetObjectCommand({ Bucket: this.bucketName, Key: fileKeys.orderCopy(orderId, assetId) }));
    await pipeline(out.Body as Readable, createWriteStream(toPath));
  }

  /** The bytes replaced by an empty object (s3:PutObject), which the lifecycle rule on objects under 1 byte expires. */
  async delete(asset: Pick<Asset, 'id' | 'userId'>): Promise<void> {
    const { PutObjectCommand } = await sdk.s3();
    await (await this.client()).send(new PutObjectCommand({ Bucket: this.bucketName, Key: fileKeys.asset(asset), Body: new Uint8Array(0) }));
  }
}
