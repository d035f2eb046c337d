/**
 * A file that is gone answers 404 not_found, not 500 (issues 15 and 26). The local S3 store answers each function as S3
 * answers its role (local/s3.ts), from the very statements CDK deploys (lib/access.ts): a read of a missing key is 403
 * unless a statement allows s3:ListBucket in that read's context, which has no s3:prefix. With the grant of before
 * (ListBucket only where s3:prefix is like orders/*) the deleted mp4 below is a 500 here, as it was on AWS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ulid } from 'ulid';
import { fileUrl } from '../../functions/core/links.ts';
import { BUCKET_GRANTS } from '../../lib/access.ts';
import { FILE_RETENTION_DAYS } from '../../functions/core/orders.ts';
import { invoke } from '../../local/invocations.ts';
import { type BucketStatement, nameCallers, startS3 } from '../../local/s3.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack();
const DAY = 86_400_000;

/** The download route's answer to a link, and the error code when it is an error. */
async function download(url: string): Promise<[number, string?]> {
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status < 400) return [res.status];
  const text = await res.text();
  return [res.status, errorCode({ status: res.status, headers: res.headers, body: JSON.parse(text), text })];
}

async function s3() {
  const { aws } = await import('../../functions/adapters/aws.ts');
  return aws().s3();
}

describe('missing order files', () => {
  it("answers 404 not_found for a missing file within its 30 days, on the local stack under the download function's exact grants", async () => {
    assert.ok(
      BUCKET_GRANTS['download-file']!.some((g) => g.Action.includes('s3:ListBucket')),
      'the download function may list the bucket',
    );
    const { apiKey: key } = await t.user({ balance: 1000 });
    const created = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about green tea' } });
    assert.equal(created.status, 201);
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error']);
    assert.equal(done.status, 'done');
    assert.deepEqual(await download(done.result_url), [302]);

    await (await s3()).send(new DeleteObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: `orders/${done.id}/video.mp4` }));
    assert.deepEqual(await download(done.result_url), [404, 'not_found']);
    // A fresh link says the same; the cover is still served.
    const again = await t.api('GET', `/videos/${done.id}`, { key });
    assert.deepEqual(await download(again.body.result_url), [404, 'not_found']);
    assert.deepEqual(await download(again.body.cover_url), [302]);
  });

  it('answers 404 not_found for an order past retention without asking S3, whose file is still there', async () => {
    const store = await s3();
    const link = (days: number) => {
      const id = `vid_${ulid(Date.now() - days * DAY).toLowerCase()}`;
      return { id, url: fileUrl(t.baseUrl, t.stack.env.LINK_SIGNING_KEY!, id, 'video', new Date()) };
    };
    const old = link(FILE_RETENTION_DAYS + 1);
    const young = link(FILE_RETENTION_DAYS - 1);
    for (const { id } of [old, young]) {
      await store.send(new PutObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: `orders/${id}/video.mp4`, Body: 'mp4' }));
    }
    assert.deepEqual(await download(old.url), [404, 'not_found']);
    assert.deepEqual(await download(young.url), [302]);
  });
});

describe('the local S3 store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-s3-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("answers each function as S3 answers its role's statements, conditions included, and a request made as no function as before", async () => {
    const read = { Action: ['s3:GetObject'], Resource: 'orders/*' };
    const listing = (Condition?: BucketStatement['Condition']) => ({ Action: ['s3:ListBucket'], Resource: '', ...(Condition ? { Condition } : {}) });
    const grants: Record<string, BucketStatement[]> = {
      reader: [read],
      lister: [read, listing()],
      // The download function's grant before issue 26: no read of a missing key carries s3:prefix, so S3 answers 403.
      prefixed: [read, listing({ StringLike: { 's3:prefix': 'orders/*' } })],
      ifExists: [read, listing({ StringLikeIfExists: { 's3:prefix': ['tmp/*', 'orders/*'] } })],
      unknownOperator: [read, listing({ NumericLessThan: { 's3:max-keys': '10' } })],
      writer: [{ Action: ['s3:PutObject'], Resource: 'orders/*' }],
    };
    const store = await startS3({ directory: dir, bucket: 'files', grants: (fn) => grants[fn] });
    const client = new S3Client({
      endpoint: store.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    nameCallers(client);
    /** The HTTP status S3 answers `call` with, made as the function `fn` (or as none). */
    const statusOf = (fn: string | undefined, call: () => Promise<unknown>) => {
      const send = () =>
        call().then(
          () => 200,
          (e: { $metadata?: { httpStatusCode?: number } }) => e.$metadata?.httpStatusCode,
        );
      return fn ? invoke(fn, send) : send();
    };
    const head = (Key: string) => () => client.send(new HeadObjectCommand({ Bucket: 'files', Key }));
    const put = (Key: string) => () => client.send(new PutObjectCommand({ Bucket: 'files', Key, Body: 'x' }));
    const list = (Prefix?: string) => () => client.send(new ListObjectsV2Command({ Bucket: 'files', ...(Prefix ? { Prefix } : {}) }));
    try {
      assert.equal(await statusOf('writer', put('orders/a/video.mp4')), 200);
      assert.equal(await statusOf('writer', put('elsewhere/video.mp4')), 403);
      assert.equal(await statusOf('writer', head('orders/a/video.mp4')), 403);
      assert.equal(await statusOf('reader', head('orders/a/video.mp4')), 200);
      // A missing key: 403 to a function that may not list it, 404 to one that may, and to a request made as no function.
      assert.equal(await statusOf('reader', head('orders/b/video.mp4')), 403);
      assert.equal(await statusOf('lister', head('orders/b/video.mp4')), 404);
      assert.equal(await statusOf(undefined, head('orders/b/video.mp4')), 404);
      assert.equal(await statusOf('lister', list('orders/')), 200);
      assert.equal(await statusOf('lister', list()), 200);
      // A condition on s3:prefix: met by a listing under it, never by a read, whose context has no s3:prefix.
      assert.equal(await statusOf('prefixed', head('orders/b/video.mp4')), 403);
      assert.equal(await statusOf('prefixed', list('orders/')), 200);
      assert.equal(await statusOf('prefixed', list('elsewhere/')), 403);
      assert.equal(await statusOf('prefixed', list()), 403);
      // ...IfExists passes a request without the key, and checks one with it against any of its values.
      assert.equal(await statusOf('ifExists', head('orders/b/video.mp4')), 404);
      assert.equal(await statusOf('ifExists', list('tmp/')), 200);
      assert.equal(await statusOf('ifExists', list('elsewhere/')), 403);
      // An operator the store does not evaluate allows nothing (the store fails the request instead of guessing).
      assert.equal(await statusOf('unknownOperator', head('orders/b/video.mp4')), 500);
      assert.equal(await statusOf('unknown', head('orders/a/video.mp4')), 403);
    } finally {
      client.destroy();
      await store.stop();
    }
  });
});
