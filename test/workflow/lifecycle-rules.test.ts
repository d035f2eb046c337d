/**
 * The rules the lifecycle's model found broken (issue 25), on the local stack: a deadline does not refund a render that
 * has started nor give its slot away; a review that would take a key past its active-task limit is 429 and leaves the
 * order awaiting review; a key holds a bounded number of director-mode orders before approval; regens are capped.
 * One render slot, an active limit of 1 and 2 director-mode orders awaiting approval per key, so the limits are met
 * with few renders.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_REGENS } from '../../functions/core/orders.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ RENDER_SLOTS: '1', LIMIT_ACTIVE_TASKS: '1', LIMIT_REVIEWS_PENDING: '2', SWEEP_SECONDS: '3600', SWEEP_GRACE_SECONDS: '0' });
const services = async () => (await import('../../functions/app/services.ts')).services();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The orders but the first: the shortest video, with no voice or music (the rules are tested, not what is shown). */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

describe('the lifecycle rules', () => {
  it('a deadline that passes mid-render neither refunds the order nor hands its slot to another', async () => {
    const {
      sweep,
      stores: { orders, files },
    } = await services();
    const a = await t.user({ balance: 1000 });
    const b = await t.user({ balance: 1000 });
    // 20 seconds of video: a render of several seconds, long enough to pass its deadline in the middle of it.
    const first = await t.api('POST', '/videos', { key: a.apiKey, body: { topic: 'Green tea', duration_seconds: 20, deadline_seconds: 600 } });
    const second = await t.api('POST', '/videos', { key: b.apiKey, body: { topic: 'Black tea', ...VIDEO } });
    assert.deepEqual([first.status, second.status], [201, 201]);
    const id = first.body.id;
    // Its render under way: the script written, the render step begun (it marks the order; a second and a half after
    // the script, it has surely begun, should a version not mark it).
    const end = Date.now() + 60_000;
    let scripted: number | undefined;
    for (;;) {
      const o = await orders.get(id);
      if (o?.renderStartedAt || (scripted && Date.now() - scripted > 1500)) break;
      if (o?.script && o.status === 'running') scripted ??= Date.now();
      assert.ok(Date.now() < end && o?.status !== 'done' && o?.status !== 'error', `the render did not start (${o?.status})`);
      await sleep(100);
    }
    assert.equal(await files.exists(id, 'video'), false, 'still rendering');
    // Its deadline brought forward in the store (the sweep runs every minute on AWS; a test does not wait ten).
    assert.ok(await orders.patch(id, { status: 'running', set: { deadlineAt: new Date(Date.now() - 1000).toISOString() } }, new Date()));
    await sweep(0);
    const during = (await t.api('GET', `/videos/${id}`, { key: a.apiKey })).body;
    assert.equal(during.status, 'running', `the sweep left the rendering order alone (${during.status} ${during.error?.code ?? ''})`);
    assert.equal((await t.api('GET', `/videos/${second.body.id}`, { key: b.apiKey })).body.status, 'queued', 'its slot was not handed on');
    const done = await waitForStatus(t, a.apiKey, id, ['done', 'error'], 120_000);
    assert.equal(done.status, 'done');
    assert.equal(done.refund, undefined);
    assert.equal((await t.api('GET', '/balance', { key: a.apiKey })).body.balance, 1000 - first.body.cost, 'charged as usual');
    assert.equal((await waitForStatus(t, b.apiKey, second.body.id, ['done', 'error'], 120_000)).status, 'done');
  });

  it('a review at the active-task limit is 429 with Retry-After, and the order stays awaiting review', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const director = await t.api('POST', '/videos', { key, body: { topic: 'Oolong', ...VIDEO, director_mode: true } });
    assert.equal(director.status, 201, director.text);
    await waitForStatus(t, key, director.body.id, ['awaiting_review']);
    // The key's active task taken while the director-mode order waits for its review (which holds none).
    const busy = await t.api('POST', '/videos', { key, body: { topic: 'Sencha', ...VIDEO } });
    assert.equal(busy.status, 201, busy.text);
    for (const body of [{ action: 'approve' }, { action: 'edit', text: 'Caption: Tea\nVoice: Tea time.' }, { action: 'regen', note: 'shorter' }]) {
      const refused = await t.api('POST', `/videos/${director.body.id}/review`, { key, body });
      assert.equal(refused.status, 429, `${body.action}: ${refused.text}`);
      assert.equal(errorCode(refused), 'active_tasks_exceeded');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
    }
    assert.equal((await t.api('GET', `/videos/${director.body.id}`, { key })).body.status, 'awaiting_review');
    // The task done, the approval goes through.
    assert.equal((await waitForStatus(t, key, busy.body.id, ['done', 'error'], 120_000)).status, 'done');
    const approved = await t.api('POST', `/videos/${director.body.id}/review`, { key, body: { action: 'approve' } });
    assert.deepEqual([approved.status, approved.body.status], [200, 'running'], approved.text);
    assert.equal((await waitForStatus(t, key, director.body.id, ['done', 'error'], 120_000)).status, 'done');
  });

  it('a key holds at most LIMIT_REVIEWS_PENDING director-mode orders before their approval', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    // One at a time: each holds the key's one active task until it reaches its review.
    const ids: string[] = [];
    for (const topic of ['Puerh', 'Genmaicha']) {
      const r = await t.api('POST', '/videos', { key, body: { topic, ...VIDEO, director_mode: true } });
      assert.equal(r.status, 201, r.text);
      ids.push(r.body.id);
      await waitForStatus(t, key, r.body.id, ['awaiting_review']);
    }
    const third = await t.api('POST', '/videos', { key, body: { topic: 'Hojicha', ...VIDEO, director_mode: true } });
    assert.equal(third.status, 409, third.text);
    assert.equal(errorCode(third), 'review_limit_exceeded');
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000 - 200, 'nothing charged for the refused one');
    // One canceled, a new director-mode order fits.
    assert.equal((await t.api('POST', `/videos/${ids[0]}/cancel`, { key })).status, 200);
    const fits = await t.api('POST', '/videos', { key, body: { topic: 'Kukicha', ...VIDEO, director_mode: true } });
    assert.equal(fits.status, 201, fits.text);
    await waitForStatus(t, key, fits.body.id, ['awaiting_review']);
    // At the bound again, an order that needs no review is not refused.
    assert.equal(errorCode(await t.api('POST', '/videos', { key, body: { topic: 'Hojicha', ...VIDEO, director_mode: true } })), 'review_limit_exceeded');
    assert.equal((await t.api('POST', '/videos', { key, body: { topic: 'Hojicha', ...VIDEO } })).status, 201);
  });

  it(`rewrites a script at most ${MAX_REGENS} times (409 regen_limit_reached after)`, async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const order = await t.api('POST', '/videos', { key, body: { topic: 'Jasmine tea', ...VIDEO, director_mode: true } });
    assert.equal(order.status, 201, order.text);
    const id = order.body.id;
    for (let round = 1; round <= MAX_REGENS; round++) {
      await waitForStatus(t, key, id, ['awaiting_review']);
      const regen = await t.api('POST', `/videos/${id}/review`, { key, body: { action: 'regen', note: `round ${round}: shorter` } });
      assert.equal(regen.status, 200, regen.text);
    }
    await waitForStatus(t, key, id, ['awaiting_review']);
    const capped = await t.api('POST', `/videos/${id}/review`, { key, body: { action: 'regen', note: 'once more' } });
    assert.equal(capped.status, 409, capped.text);
    assert.equal(errorCode(capped), 'regen_limit_reached');
    assert.equal((await t.api('GET', `/videos/${id}`, { key })).body.status, 'awaiting_review', 'still reviewable: approve, edit or cancel');
    const canceled = await t.api('POST', `/videos/${id}/cancel`, { key });
    assert.deepEqual([canceled.status, canceled.body.error?.code], [200, 'canceled']);
  });
});
