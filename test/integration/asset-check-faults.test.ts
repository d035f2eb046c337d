/**
 * The asset check's failures, as the functions taking orders meet them through Lambda's Invoke API (the local Lambda
 * endpoint answers as Lambda does): a check that throws (on AWS an out-of-memory exit or a timeout reports the same
 * `X-Amz-Function-Error`) is 503 service_unavailable with Retry-After, and no verdict; a version gone is no verdict
 * either; an unknown function is the SDK's ResourceNotFoundException, which is no verdict to record.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { InvokedImageCheck } from '../../functions/adapters/image-check.ts';
import type { Asset } from '../../functions/core/assets.ts';
import { AppError } from '../../functions/core/errors.ts';
import { LocalLambda } from '../../local/lambda.ts';

const asset: Asset = {
  id: 'ast_01m88sdrykmmkkdgyfr9yzsa5f',
  userId: 'U1',
  kind: 'image',
  contentType: 'image/png',
  sizeBytes: 10,
  createdAt: '2026-11-28T00:00:00.000Z',
  expiresAt: '2026-12-28T00:00:00.000Z',
};
const seen: unknown[] = [];
const lambda = new LocalLambda({
  'check-asset': async (event) => {
    seen.push(event);
    const { etag } = event as { etag: string };
    if (etag === '"oom"') throw Object.assign(new Error('Runtime exited with error: signal: killed'), { name: 'Runtime.ExitError' });
    if (etag === '"gone"') return { gone: true };
    return { width: 64, height: 48 };
  },
});
const endpoint = await lambda.listen();
after(() => lambda.stop());
const client = new LambdaClient({ region: 'eu-central-1', endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const check = (name = 'check-asset') =>
  new InvokedImageCheck(
    async () => client,
    () => name,
  );

describe('the asset check through Lambda Invoke', () => {
  it('answers the verdict, sent the asset and the version to check', async () => {
    assert.deepEqual(await check().check(asset, '"v1"'), { width: 64, height: 48 });
    assert.deepEqual(seen.at(-1), { userId: 'U1', assetId: asset.id, contentType: 'image/png', etag: '"v1"' });
  });

  it('is no verdict when the version went', async () => {
    assert.equal(await check().check(asset, '"gone"'), undefined);
  });

  it('is 503 with Retry-After when the check itself failed, so nothing is recorded and the client retries', async () => {
    const err = await check()
      .check(asset, '"oom"')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'service_unavailable');
    assert.equal(err.retryAfterSeconds, 5);
    assert.match(err.message, /could not finish; retry \(Runtime exited with error: signal: killed\)/);
  });

  it('throws the SDK error for a function that is not there (a deployment fault, not a verdict)', async () => {
    await assert.rejects(check('no-such-function').check(asset, '"v1"'), (e: Error) => e.name === 'ResourceNotFoundException');
  });
});
