/**
 * GET /balance/transactions on the local stack: every ledger entry of the key, newest first, with its kind, amount,
 * balance after it and order; pages follow the cursor; the balance after the newest is the balance; another key's
 * entries never appear. The order record shows its charge and its refund with the reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ LIMIT_ACTIVE_TASKS: '20' });

async function all(key: string, limit: number) {
  const out: any[] = [];
  let cursor = '';
  for (let i = 0; i < 20; i++) {
    const res = await t.api('GET', `/balance/transactions?limit=${limit}${cursor}`, { key });
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    cursor = `&starting_after=${res.body.next_starting_after}`;
  }
  throw new Error('no end');
}

describe('GET /balance/transactions', () => {
  it('shows every entry with its kind and the balance after it, newest first, in pages', async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 1, plan: { name: 'creator', heavyPerMonth: 1 } });
    const director = { duration_seconds: 10, director_mode: true };
    const trial = await t.api('POST', '/videos', { key, body: { topic: 'Tea', ...director } });
    const allowance = await t.api('POST', '/videos', { key, body: { topic: 'Oolong', music: 'song', placement: { product: 'Tea Co' }, ...director } });
    const paid = await t.api('POST', '/videos', { key, body: { topic: 'Puerh', ...director } });
    assert.deepEqual([trial.body.cost, allowance.body.cost, paid.body.cost], [0, 150, 100]);
    await waitForStatus(t, key, paid.body.id, ['awaiting_review']);
    const canceled = await t.api('POST', `/videos/${paid.body.id}/cancel`, { key });
    assert.equal(canceled.status, 200);
    assert.deepEqual(canceled.body.charge, { amount: 100, trial: false, plan_allowance: false });
    assert.deepEqual([canceled.body.refund.amount, canceled.body.refund.reason], [100, 'canceled']);
    assert.deepEqual((await t.api('GET', `/videos/${allowance.body.id}`, { key })).body.charge, { amount: 150, trial: false, plan_allowance: true });
    assert.equal((await t.api('GET', `/videos/${allowance.body.id}`, { key })).body.refund, undefined);

    const entries = await all(key, 2);
    assert.deepEqual(
      entries.map((e) => [e.kind, e.amount, e.balance_after, e.order_id ?? null, e.reason ?? null]),
      [
        ['refund', 100, 850, paid.body.id, 'canceled'],
        ['charge', -100, 750, paid.body.id, null],
        ['plan_allowance', -150, 850, allowance.body.id, null],
        ['trial', 0, 1000, trial.body.id, null],
        ['top_up', 1000, 1000, null, null],
      ],
    );
    assert.equal(entries[0].balance_after, (await t.api('GET', '/balance', { key })).body.balance);
    assert.equal(new Set(entries.map((e) => e.id)).size, 5);
    assert.ok(entries.every((e, i) => i === 0 || e.created_at <= entries[i - 1].created_at));
    // Another key's ledger is its own.
    const { apiKey: other } = await t.user({ balance: 7 });
    assert.deepEqual(
      (await all(other, 100)).map((e) => [e.kind, e.amount]),
      [['top_up', 7]],
    );
    const bad = await t.api('GET', '/balance/transactions?starting_after=vid_01m8000000000000000000000', { key });
    assert.deepEqual([bad.status, bad.body.error.message.split(':')[0]], [422, 'starting_after']);
  });
});
