/**
 * The edge's origin check (functions/edge/origin-verify.ts), which every route carries on a stage with the edge: a
 * request that did not come through CloudFront never reaches a function. Run as API Gateway runs it, by the local
 * gateway on a real local stack (there is no CloudFront here: the test adds the header CloudFront would), and its
 * rotation against the Secrets Manager stand-in. The answers API Gateway gives around an authorizer are its own
 * `{message}` bodies, which the contract does not describe (no contract client meets them), so this stack's answers are
 * not run through the contract check.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RotatedSecret } from '../../functions/adapters/secrets.ts';
import { cameThroughEdge } from '../../functions/core/origin.ts';
import { ORIGIN_VERIFY } from '../../functions/edge/table.ts';
import { CUSTOM_METHODS } from '../../functions/http/routes.ts';
import { BUCKET_GRANTS } from '../../lib/access.ts';
import { onInvocation } from '../../local/invocations.ts';
import { type LocalStack, startLocalStack } from '../../local/stack.ts';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.ts';

const VALUE = randomBytes(24).toString('base64url');
const dir = mkdtempSync(join(tmpdir(), 'video-service-origin-'));
let stack: LocalStack;
/** The functions run, in order (the check's runs among them). */
const runs: string[] = [];
const stopCounting = onInvocation((name) => runs.push(name));
const checks = () => runs.filter((n) => n === ORIGIN_VERIFY.handler).length;

before(async () => {
  stack = await startLocalStack({
    bucketGrants: BUCKET_GRANTS,
    shortLived: true,
    port: 0,
    s3Dir: join(dir, 's3'),
    jobs: false,
    originVerify: VALUE,
    env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
  });
});
after(async () => {
  stopCounting();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(stack.baseUrl + path, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('the origin check on every route', () => {
  it("answers API Gateway's 401 without the header, without running the check or any function", async () => {
    for (const [method, path] of [
      ['GET', '/balance'],
      ['POST', '/videos:quick'],
      ['GET', '/files/vid_x/video.mp4'],
      ['GET', '/no-such-route'],
    ] as const) {
      assert.deepEqual(await call(method, path), { status: 401, body: { message: 'Unauthorized' } }, `${method} ${path}`);
    }
    assert.deepEqual(runs, []);
  });

  it("answers 403 to a wrong value, and keeps that answer per value as API Gateway's cache does", async () => {
    const wrong = { [ORIGIN_VERIFY.header]: `${VALUE}x` };
    assert.deepEqual(await call('GET', '/balance', wrong), { status: 403, body: { message: 'Forbidden' } });
    assert.deepEqual(await call('GET', '/openapi.json', wrong), { status: 403, body: { message: 'Forbidden' } });
    assert.deepEqual(runs, [ORIGIN_VERIFY.handler], 'the second request with the same value was answered from the cache');
  });

  it("lets CloudFront's requests through to the functions, whose own key check answers in the contract's envelope", async () => {
    const edge = { [ORIGIN_VERIFY.header]: VALUE };
    const keyless = await call('GET', '/balance', edge);
    assert.equal(keyless.status, 401);
    assert.equal(keyless.body.error.code, 'unauthorized');
    assert.equal((await call('GET', '/no-such-route', edge)).body.error.code, 'not_found');
    const { services } = await import('../../functions/app/services.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 500, trialVideos: 0, now: new Date() });
    const created = await call('POST', '/videos:quick', { ...edge, 'x-api-key': apiKey }, { prompt: 'A 10 second video about green tea' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await call('GET', '/balance', { ...edge, 'x-api-key': apiKey })).body.balance, 500 - created.body.cost);
    assert.equal(checks(), 2, 'one check for the right value, then its cached answer');
    assert.ok(runs.includes(CUSTOM_METHODS.handler) && runs.includes('get-balance'), runs.join(', '));
  });
});

describe('rotating the origin-verify value', () => {
  const SECRET = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:origin-verify-AbCdEf';
  let secrets: SecretsManagerStandIn;
  const saved = { ...process.env };
  before(async () => {
    secrets = await startSecretsManager();
    Object.assign(process.env, secrets.env);
  });
  after(async () => {
    process.env = saved;
    await secrets.stop();
  });

  it('passes the current and the previous value, reads the secret again once for a new one, and drops a value two rotations old', async () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    secrets.put(SECRET, 'value-one');
    const reads = () => secrets.reads.get(SECRET) ?? 0;
    const warm = new RotatedSecret({ secretArn: SECRET }, 'ORIGIN_VERIFY', () => clock);
    assert.equal(await cameThroughEdge('value-one', warm), true);
    assert.equal(await cameThroughEdge(undefined, warm), false);
    // The operator puts a new value, then sets CloudFront's header to it: the warm function reads the secret again.
    secrets.put(SECRET, 'value-two');
    clock += 120_000;
    const before = reads();
    assert.equal(await cameThroughEdge('value-two', warm), true);
    assert.equal(reads() - before, 2, 'one fresh read: AWSCURRENT and AWSPREVIOUS');
    assert.equal(await cameThroughEdge('value-one', warm), true, 'CloudFront may still send the previous value meanwhile');
    // A wrong value does not make it read again within the minute.
    assert.equal(await cameThroughEdge('forged', warm), false);
    assert.equal(reads() - before, 2);
    secrets.put(SECRET, 'value-three');
    clock += 120_000;
    assert.equal(await cameThroughEdge('value-three', warm), true);
    assert.equal(await cameThroughEdge('value-one', warm), false, 'two rotations old');
  });
});
