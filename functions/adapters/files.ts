/** Order files in S3: everything of an order lives under orders/<order id>/. */
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

export const fileKeys = {
  orderPrefix: (orderId: string) => `orders/${orderId}/`,
};

export class OrderFiles {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async deleteAll(orderId: string): Promise<number> {
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: fileKeys.orderPrefix(orderId), ContinuationToken: token }),
      );
      const objects = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (objects.length) {
        await this.s3.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: objects, Quiet: true } }));
        deleted += objects.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }
}
