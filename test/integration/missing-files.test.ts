/**
 * A file that is gone answers 404 not_found, not 500 (issue 15). The local S3 store answers each function as S3 answers
 * its role (local/s3.ts): a read of a missing key is 403 unless the function may list the order files, as the download
 * route may (lib/access.ts). Without that grant the deleted mp4 below is a 500 here, as it was on AWS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ulid } from 'ulid';
import { fileUrl } from '../../functions/core/links.ts';
import { FILE_RETENTION_DAYS } from '../../functions/core/orders.ts';
import { invoke } from '../../local/invocations.ts';
import { nameCallers, startS3 } from '../../local/s3.ts';
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
  it('answers 404 not_found for a done order whose mp4 was deleted', async () => {
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

  it("answers each function as S3 answers its role's grants, and a request made as no function as before", async () => {
    const grants: Record<string, { bucket?: string[]; listOrderFiles?: boolean }> = {
      reader: { bucket: ['GetObject'] },
      lister: { bucket: ['GetObject'], listOrderFiles: true },
      writer: { bucket: ['PutObject'] },
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
      assert.equal(await statusOf('lister', list()), 403);
      assert.equal(await statusOf('unknown', head('orders/a/video.mp4')), 403);
    } finally {
      client.destroy();
      await store.stop();
    }
  });
});
