/**
 * DynamoDB Local killed outright under a running stack (its data on disk): while it is away the API answers 503
 * service_unavailable with Retry-After (not 500), the order that was running when it went finishes done (its steps
 * retry ServiceUnavailable instead of failing it), and the stack has started it again on the same port.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startLocalStack, type LocalStack } from '../../local/stack.ts';
import { BUCKET_GRANTS } from '../../lib/access.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { javaPidsOf } from '../support/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'video-service-outage-'));
let stack: LocalStack | undefined;
after(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const javaPids = () => javaPidsOf(dir);

describe('a store outage', () => {
  it('is 503 with Retry-After while it lasts, fails no order, and ends by itself', async () => {
    stack = await startLocalStack({
      bucketGrants: BUCKET_GRANTS,
      shortLived: true,
      port: 0,
      dataDir: dir,
      s3Dir: join(dir, 's3'),
      env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
    });
    checkFetchesTo(stack.baseUrl);
    const { services } = await import('../../functions/app/services.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 500, trialVideos: 0, now: new Date() });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${stack.baseUrl}/videos:quick`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'A 10 second video about rain' }) });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };

    const [java] = javaPids();
    assert.ok(java, 'DynamoDB Local runs');
    process.kill(java, 'SIGKILL');
    let unavailable: Response | undefined;
    for (const end = Date.now() + 5000; !unavailable && Date.now() < end; ) {
      const res = await fetch(`${stack.baseUrl}/balance`, { headers });
      if (res.status !== 200) unavailable = res;
    }
    assert.ok(unavailable, 'an answer while the store was away');
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.headers.get('retry-after'), '2');
    assert.equal(((await unavailable.json()) as { error: { code: string } }).error.code, 'service_unavailable');

    let order = { status: 'queued' } as { status: string; error?: unknown };
    for (const end = Date.now() + 120_000; !['done', 'error'].includes(order.status) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 500));
      const res = await fetch(`${stack.baseUrl}/videos/${id}`, { headers });
      if (res.status === 200) order = (await res.json()) as typeof order;
    }
    assert.equal(order.status, 'done', JSON.stringify(order));
    const [again] = javaPids();
    assert.ok(again && again !== java, 'DynamoDB Local was started again');
    assert.equal((await fetch(`${stack.baseUrl}/balance`, { headers })).status, 200);
  });
});
