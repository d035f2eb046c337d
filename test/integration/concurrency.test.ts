/**
 * Money under concurrency, with the per-key limits raised so that only the balance and the idempotency record decide.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { liveBalance, useStack } from '../support/stack.ts';

const t = useStack({ LIMIT_ACTIVE_TASKS: '1000', LIMIT_POSTS_PER_MINUTE: '10000', LOCAL_SFN_HOLD: '1' });
const quick = { prompt: 'A short video about green tea' };

async function ledgerSum(userId: string): Promise<number> {
  const { services } = await import('../../functions/app/services.ts');
  return (await services().stores.accounts.ledger(userId)).reduce((s, e) => s + e.amount, 0);
}

describe('concurrent creation', () => {
  it('charges exactly 20 of 50 concurrent orders when the balance covers 20, and the ledger agrees', async () => {
    const { userId, apiKey } = await t.user({ balance: 2000 });
    const results = await Promise.all(Array.from({ length: 50 }, () => t.api('POST', '/videos:quick', { key: apiKey, body: quick })));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 20, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 402).length, 30);
    assert.equal(new Set(results.filter((r) => r.status === 201).map((r) => r.body.id)).size, 20);
    const balance = (await t.api('GET', '/balance', { key: apiKey })).body.balance;
    assert.equal(balance, 0);
    assert.equal(await ledgerSum(userId), balance);
  });

  it('charges once for the same Idempotency-Key sent 20 times at once, and every answer names one order', async () => {
    const { userId, apiKey } = await t.user({ balance: 1000 });
    const headers = { 'Idempotency-Key': 'same-everywhere' };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers })));
    assert.deepEqual(results.map((r) => r.status).sort(), [...Array(19).fill(200), 201], results.map((r) => `${r.status} ${r.text}`).join('\n'));
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
    const balance = (await t.api('GET', '/balance', { key: apiKey })).body.balance;
    assert.equal(balance, 900);
    assert.equal(await ledgerSum(userId), 900);
  });

  it('never takes more trial videos than there are', async () => {
    const { apiKey } = await t.user({ balance: 0, trialVideos: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => t.api('POST', '/videos:quick', { key: apiKey, body: quick })));
    assert.equal(results.filter((r) => r.status === 201).length, 3);
    assert.ok(results.filter((r) => r.status === 201).every((r) => r.body.cost === 0));
    assert.deepEqual((await t.api('GET', '/balance', { key: apiKey })).body, liveBalance({ balance: 0, trial_videos_left: 0 }));
  });
});
