/**
 * Orders that end in error, on a stack whose renderer fails every order (GENERATOR_FAIL=render) and whose review
 * deadline is 3 seconds: the exact refund, the freed slot, one video.error event.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { liveBalance, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ GENERATOR_FAIL: 'render', REVIEW_DEADLINE_SECONDS: '3' });
const services = async () => (await import('../../functions/app/services.ts')).services();

describe('a failed generation', () => {
  it('ends the order in error with a safe reason, refunds exactly what it took and frees the slot', async () => {
    const { userId, apiKey } = await t.user({ balance: 120, trialVideos: 1 });
    // Trial base price, placement paid: the order takes one trial video and 50 doubloons.
    const created = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', duration_seconds: 10, placement: { product: 'Leaf' } } });
    assert.equal(created.status, 201);
    assert.equal(created.body.cost, 50);
    // (Not read now: its admission starts it at once, and it may have failed and been refunded already. The ledger
    // below shows the charge and the refund.)
    const order = await waitForStatus(t, apiKey, created.body.id, ['error', 'done']);
    assert.equal(order.status, 'error');
    assert.deepEqual(order.error, { code: 'generation_failed', message: 'The video could not be generated from this order' });
    assert.equal(order.result_url, undefined);
    assert.deepEqual(
      (await t.api('GET', '/balance', { key: apiKey })).body,
      liveBalance({ balance: 120, trial_videos_left: 1 }),
      'the refund gave back the month’s spend too',
    );
    const { accounts, orders } = (await services()).stores;
    assert.equal((await accounts.get(userId))!.activeTasks, 0);
    const ledger = await accounts.ledger(userId);
    assert.deepEqual(ledger.map((e) => [e.kind, e.amount]).sort(), [
      ['charge', -50],
      ['refund', 50],
      ['top_up', 120],
    ]);
    assert.deepEqual(
      (await orders.events(created.body.id)).map((e) => e.type),
      ['video.error'],
    );
  });

  it('gives a plan’s heavy video back', async () => {
    const { apiKey } = await t.user({ balance: 500, plan: { name: 'creator', heavyPerMonth: 1 } });
    const created = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', duration_seconds: 10, music: 'song' } });
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.heavy_videos_left, 0);
    assert.equal((await waitForStatus(t, apiKey, created.body.id, ['error', 'done'])).status, 'error');
    assert.deepEqual(
      (await t.api('GET', '/balance', { key: apiKey })).body,
      liveBalance({ balance: 500, trial_videos_left: 0, plan: 'creator', heavy_videos_left: 1 }),
    );
  });
});

describe('the review deadline', () => {
  it('ends an unreviewed order in error with a refund when it lapses', async () => {
    const { userId, apiKey } = await t.user({ balance: 300 });
    const created = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
    await waitForStatus(t, apiKey, created.body.id, ['awaiting_review']);
    const order = await waitForStatus(t, apiKey, created.body.id, ['error'], 15_000);
    assert.equal(order.error.code, 'review_expired');
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 300);
    const { accounts, orders } = (await services()).stores;
    assert.equal((await accounts.get(userId))!.activeTasks, 0, 'it was no active task while waiting; nothing given back twice');
    assert.deepEqual(
      (await orders.events(created.body.id)).map((e) => e.type),
      ['video.awaiting_review', 'video.error'],
    );
    const late = await t.api('POST', `/videos/${created.body.id}/review`, { key: apiKey, body: { action: 'approve' } });
    assert.equal(late.status, 409);
  });
});
