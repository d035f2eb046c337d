/**
 * The deployment's smoke test (bin/smoke.ts, the pipeline's gate between stages) passes against the local service,
 * with a key given or with none (it then makes a throwaway user and deletes it), and fails when the service does not
 * answer as the contract says.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { documentedGrants, runRecorded } from '../support/aws-actions.ts';
import { useStack } from '../support/stack.ts';

const t = useStack();

function smoke(baseUrl: string, key: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/smoke.ts', '--timeout-seconds', '120'], {
      cwd: ROOT,
      env: { ...process.env, SMOKE_BASE_URL: baseUrl, SMOKE_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the smoke test of a deployment', () => {
  it('passes against the service: contract, keys, both spellings of the custom methods, a quick order to a downloaded mp4, a tampered link', async () => {
    const { apiKey } = await t.user({ balance: 500 });
    const { code, out } = await smoke(t.baseUrl, apiKey);
    assert.equal(code, 0, out);
    assert.match(out, /ok 5 POST \/videos:nothing is 404 in the service's envelope/);
    assert.match(out, /ok 7 POST \/videos%3Aquote \(the colon encoded\) prices the order too/);
    assert.match(out, /ok 8 POST \/videos:quick \(the route with a colon\) creates an order/);
    assert.match(out, /ok 9 POST \/videos%3Aquick \(the colon encoded\) with the same Idempotency-Key answers the same order/);
    assert.match(out, /smoke test passed: 13 checks/);
  });

  it("passes with no key, as a pipeline's first run: its own user and key, deleted at the end; it needs the documented grants", async () => {
    const env = { ...process.env, SMOKE_BASE_URL: t.baseUrl, SMOKE_API_KEY: undefined };
    const { code, out, grants } = await runRecorded('bin/smoke.ts', ['--timeout-seconds', '120'], env);
    assert.equal(code, 0, out);
    assert.match(out, /smoke test passed: 13 checks/);
    const userId = /^# made a throwaway user (\S+) with 1000 doubloons$/m.exec(out)?.[1];
    assert.ok(userId, out);
    assert.match(out, new RegExp(`^# deleted the throwaway user ${userId} \\(1 order, [1-9]\\d* files\\)$`, 'm'));
    const { services } = await import('../../functions/app/services.ts');
    assert.equal(await services().stores.accounts.get(userId), undefined, 'the user is gone');
    // What the pipeline's role needs for it: exactly the `smoke` rows of docs/deploy.md's table.
    assert.deepEqual(grants.sort(), [...(documentedGrants().get('smoke') ?? [])].sort());
  });

  it('fails, naming the check, when the key cannot order (no balance, no trial)', async () => {
    const { apiKey } = await t.user({ balance: 0, trialVideos: 0 });
    const { code, out } = await smoke(t.baseUrl, apiKey);
    assert.equal(code, 1, out);
    assert.match(out, /not ok 8 POST \/videos:quick .*insufficient_funds/);
  });
});
