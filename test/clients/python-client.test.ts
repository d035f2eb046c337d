/**
 * Runs the Python client's unittest suite (clients/python/tests) with python3 against this local stack: the stack
 * and twelve users with 1000 doubloons each come from here, the tests themselves are Python's. The client talks through
 * a proxy that checks every answer it gets against the OpenAPI document. The webhook receivers (tests/test_webhooks.py)
 * listen on 127.0.0.1, hence WEBHOOK_ALLOW_PRIVATE_URLS.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { contractProxy } from '../support/contract.ts';
import { useStack } from '../support/stack.ts';

// As for the JavaScript client: one active order per key, so a second creation gets 429 with Retry-After: 1.
const t = useStack({ LIMIT_ACTIVE_TASKS: '1', ORDER_SECONDS_ESTIMATE: '1', WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });

describe('the Python client', () => {
  it('passes its unittest suite against the local service', async () => {
    const keys = [];
    for (let i = 0; i < 12; i++) keys.push((await t.user({ balance: 1000 })).apiKey);
    // The test-mode key of a user of its own (issue 30): the client takes it unchanged.
    const { services } = await import('../../functions/app/services.ts');
    const testKey = (await services().stores.accounts.issueTestKey((await t.user({ balance: 1000 })).userId, new Date())).apiKey;
    const checking = await contractProxy(t.baseUrl);
    after(() => checking.close());
    const child = spawn('python3', ['-m', 'unittest', 'discover', '-v', '-s', join(ROOT, 'clients', 'python', 'tests')], {
      env: { ...process.env, VIDEO_SERVICE_URL: checking.baseUrl, VIDEO_SERVICE_KEYS: JSON.stringify(keys), VIDEO_SERVICE_TEST_KEY: testKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    console.log(
      output
        .trim()
        .split('\n')
        .map((l) => `# ${l}`)
        .join('\n'),
    );
    assert.equal(code, 0, output.slice(-3000));
    assert.match(output, /Ran 38 tests/);
    assert.deepEqual(checking.violations, [], 'every answer the Python client received is in the OpenAPI document');
    assert.ok(checking.checked > 10, `${checking.checked} answers checked`);
  });
});
