/**
 * The local S3 store checks a request signed in its Authorization header as S3 does (local/s3.ts), with the SDK's own
 * signer: the functions' SDK calls (uploads of every kind included) go through; a forged signature of the same shape, a
 * header changed after signing, another secret, an unknown key, a skewed clock or a malformed header are refused with
 * S3's XML error, and write nothing.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/core/protocols';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { LOCAL_CREDENTIALS } from '../../local/s3.ts';
import { useStack } from '../support/stack.ts';

const t = useStack();

/** The functions' own S3 client (functions/adapters/aws.ts), on the stack's store. */
async function functionsClient(): Promise<S3Client> {
  const { aws } = await import('../../functions/adapters/aws.ts');
  return aws().s3();
}

/** A PUT of `body` at `key`, signed in its Authorization header as the SDK signs it; `alter` changes it after signing. */
async function signedPut(
  key: string,
  body: string,
  opts: { credentials?: { accessKeyId: string; secretAccessKey: string }; signingDate?: Date; alter?: (headers: Record<string, string>) => unknown } = {},
): Promise<{ status: number; code: string | undefined }> {
  const url = new URL(`${t.stack.env.S3_ENDPOINT}/${t.stack.env.BUCKET_NAME}/${key}`);
  const signer = new SignatureV4({
    credentials: opts.credentials ?? LOCAL_CREDENTIALS,
    region: 'us-east-1',
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
  });
  const request = new HttpRequest({
    method: 'PUT',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { host: url.host, 'content-type': 'text/plain', 'x-amz-meta-origin': 'test' },
    body,
  });
  const signed = await signer.sign(request, { ...(opts.signingDate ? { signingDate: opts.signingDate } : {}) });
  const headers = { ...(signed.headers as Record<string, string>) };
  delete headers.host;
  opts.alter?.(headers);
  const res = await fetch(url, { method: 'PUT', headers, body });
  const text = await res.text();
  return { status: res.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] };
}

async function exists(key: string): Promise<boolean> {
  const s3 = await functionsClient();
  return s3.send(new HeadObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: key })).then(
    () => true,
    (e: { $metadata?: { httpStatusCode?: number } }) => (e.$metadata?.httpStatusCode === 404 ? false : Promise.reject(e)),
  );
}

describe('the local S3 store, on requests signed in a header', () => {
  it("serves the SDK's own calls: put (a string, a stream), get, head, copy, list, batch delete, with or without checksums", async () => {
    const Bucket = t.stack.env.BUCKET_NAME!;
    const s3 = await functionsClient();
    // A client with the SDK's default checksums too (an upload's checksum header signed).
    const defaults = new S3Client({ region: 'us-east-1', endpoint: t.stack.env.S3_ENDPOINT!, forcePathStyle: true, credentials: LOCAL_CREDENTIALS });
    try {
      await s3.send(new PutObjectCommand({ Bucket, Key: 'sig/a b+c.txt', Body: 'hello', ContentType: 'text/plain' }));
      await s3.send(new PutObjectCommand({ Bucket, Key: 'sig/stream.bin', Body: Readable.from([Buffer.alloc(70_000, 1)]), ContentLength: 70_000 }));
      await defaults.send(new PutObjectCommand({ Bucket, Key: 'sig/checksummed.txt', Body: 'checked' }));
      assert.ok(await exists('sig/stream.bin'));
      assert.equal(await (await s3.send(new GetObjectCommand({ Bucket, Key: 'sig/a b+c.txt' }))).Body!.transformToString(), 'hello');
      await s3.send(new CopyObjectCommand({ Bucket, Key: 'sig/copy.txt', CopySource: `${Bucket}/sig/checksummed.txt` }));
      assert.equal(await (await s3.send(new GetObjectCommand({ Bucket, Key: 'sig/copy.txt' }))).Body!.transformToString(), 'checked');
      assert.equal((await s3.send(new GetObjectCommand({ Bucket, Key: 'sig/stream.bin' }))).ContentLength, 70_000);
      assert.equal(await (await defaults.send(new GetObjectCommand({ Bucket, Key: 'sig/checksummed.txt' }))).Body!.transformToString(), 'checked');
      const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'sig/', MaxKeys: 10 }));
      assert.deepEqual(listed.Contents?.map((o) => o.Key).sort(), ['sig/a b+c.txt', 'sig/checksummed.txt', 'sig/copy.txt', 'sig/stream.bin']);
      await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: listed.Contents!.map((o) => ({ Key: o.Key! })) } }));
      assert.equal((await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'sig/' }))).KeyCount, 0);
    } finally {
      defaults.destroy();
    }
  });

  it('refuses a forged or altered signature with S3’s error, and writes nothing', async () => {
    assert.deepEqual(await signedPut('forged/signed.txt', 'x'), { status: 200, code: undefined }, 'signed as the SDK signs: stored');
    const refusals: [string, Parameters<typeof signedPut>[2], number, string][] = [
      [
        'the same shape, another signature',
        { alter: (h) => Object.assign(h, { authorization: h.authorization!.replace(/Signature=\w+/, `Signature=${'0'.repeat(64)}`) }) },
        403,
        'SignatureDoesNotMatch',
      ],
      ['a signed header changed after signing', { alter: (h) => Object.assign(h, { 'content-type': 'text/html' }) }, 403, 'SignatureDoesNotMatch'],
      ['the declared payload hash changed', { alter: (h) => Object.assign(h, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) }, 403, 'SignatureDoesNotMatch'],
      ['the known key with another secret', { credentials: { ...LOCAL_CREDENTIALS, secretAccessKey: 'guessed' } }, 403, 'SignatureDoesNotMatch'],
      ['an unknown key', { credentials: { accessKeyId: 'AKIAFORGED', secretAccessKey: 'S3RVER' } }, 403, 'InvalidAccessKeyId'],
      ['signed 20 minutes ago', { signingDate: new Date(Date.now() - 20 * 60_000) }, 403, 'RequestTimeTooSkewed'],
      ['a header of another scheme', { alter: (h) => Object.assign(h, { authorization: 'AWS S3RVER:c2lnbmF0dXJl' }) }, 400, 'AuthorizationHeaderMalformed'],
    ];
    for (const [i, [what, opts, status, code]] of refusals.entries()) {
      assert.deepEqual(await signedPut(`forged/${i}.txt`, 'x', opts), { status, code }, what);
      assert.equal(await exists(`forged/${i}.txt`), false, `${what}: nothing stored`);
    }
  });
});
