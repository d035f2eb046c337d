/**
 * Test mode apart from paid capacity (issue 37, item 4), on the local stack with one render slot and one test slot,
 * executions held where the admission started them (LOCAL_SFN_HOLD: nothing renders, so every slot stays taken and no
 * timer is raced): eight test-mode orders wait in the test lane behind its one slot, and a live order created after
 * them takes the live slot at once; a user's test key and live key together get one set of per-key limits (POSTs and
 * GETs a minute, active tasks, orders awaiting review, new assets a day).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, inOneWindow, useStack } from '../support/stack.ts';

const LIMITS = { posts: 14, gets: 20, active: 10, reviews: 2, assets: 2 };
const t = useStack({
  LOCAL_SFN_HOLD: '1',
  RENDER_SLOTS: '1',
  TEST_RENDER_SLOTS: '1',
  QUEUE_SNAPSHOT_MS: '0',
  LIMIT_POSTS_PER_MINUTE: String(LIMITS.posts),
  LIMIT_GETS_PER_MINUTE: String(LIMITS.gets),
  LIMIT_ACTIVE_TASKS: String(LIMITS.active),
  LIMIT_REVIEWS_PENDING: String(LIMITS.reviews),
  LIMIT_ASSETS_PER_DAY: String(LIMITS.assets),
});
const services = async () => (await import('../../functions/app/services.ts')).services();
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' };

/** A user with a live key and a test-mode key. */
async function keys() {
  const { userId, apiKey: live } = await t.user({ balance: 10_000 });
  const { apiKey: test } = await (await services()).stores.accounts.issueTestKey(userId, new Date());
  return { live, test };
}

/** Whether the order's execution was started (an admission starts it with its slot): held here, so still running. */
async function started(orderId: string) {
  const { orders, workflow } = (await services()).stores;
  return (await workflow.state((await orders.get(orderId))!)) === 'running';
}

describe('test-mode orders', () => {
  it('wait in a lane of their own: a live order after eight of them is admitted at once, one test order at a time', async () => {
    const { live, test } = await keys();
    const tests: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await t.api('POST', '/videos', { key: test, body: { topic: `Test tea ${i}`, ...VIDEO } });
      assert.equal(r.status, 201, r.text);
      tests.push(r.body.id);
    }
    const created = await t.api('POST', '/videos', { key: live, body: { topic: 'Live tea', ...VIDEO } });
    assert.equal(created.status, 201, created.text);
    const order = created.body.id as string;
    assert.equal((await t.api('GET', `/videos/${order}`, { key: live })).body.queue_position, 1, 'no test order ahead of it');
    assert.equal(await started(order), true, 'the live order took the live slot at its creation');

    // The test lane's own bound: one test order admitted, the seven others waiting in its queue, in order.
    const admitted: string[] = [];
    for (const id of tests) if (await started(id)) admitted.push(id);
    assert.equal(admitted.length, 1, `test orders admitted at once: ${admitted.length}`);
    const positions: number[] = [];
    for (const id of tests.filter((id) => !admitted.includes(id))) positions.push((await t.api('GET', `/videos/${id}`, { key: test })).body.queue_position);
    assert.deepEqual(positions, [1, 2, 3, 4, 5, 6, 7]);
  });
});

describe("a test key and its live key share the user's per-key limits", () => {
  it('POSTs a minute: the keys alternating, the one past the limit is 429 whichever sends it', async () => {
    const { result } = await inOneWindow(async () => {
      const { live, test } = await keys();
      const statuses: number[] = [];
      // Quotes: counted POSTs that charge nothing and take no active task.
      for (let i = 0; i <= LIMITS.posts; i++)
        statuses.push((await t.api('POST', '/videos:quote', { key: i % 2 ? test : live, body: { topic: `Tea ${i}` } })).status);
      return statuses;
    });
    assert.deepEqual(result, [...Array<number>(LIMITS.posts).fill(200), 429]);
  });

  it('GETs a minute likewise', async () => {
    const { result } = await inOneWindow(async () => {
      const { live, test } = await keys();
      const answers = [];
      for (let i = 0; i <= LIMITS.gets; i++) answers.push(await t.api('GET', '/balance', { key: i % 2 ? test : live }));
      return answers;
    });
    assert.deepEqual(
      result.map((r) => r.status),
      [...Array<number>(LIMITS.gets).fill(200), 429],
    );
    assert.equal(errorCode(result.at(-1)!), 'rate_limited');
  });

  it('active tasks and orders awaiting review: one count for both keys', async () => {
    const { live, test } = await keys();
    const create = (key: string, body: object) => t.api('POST', '/videos', { key, body: { ...VIDEO, ...body } });
    // Two director-mode orders, one of each key: the reviews pending are spent.
    assert.equal((await create(live, { topic: 'Live script', director_mode: true })).status, 201);
    assert.equal((await create(test, { topic: 'Test script', director_mode: true })).status, 201);
    const third = await create(test, { topic: 'One script too many', director_mode: true });
    assert.deepEqual([third.status, errorCode(third)], [409, 'review_limit_exceeded']);
    // Active: those two and eight more, alternating; the next is 429 from either key.
    for (let i = 0; i < LIMITS.active - 2; i++) assert.equal((await create(i % 2 ? test : live, { topic: `Tea ${i}` })).status, 201);
    for (const key of [test, live]) {
      const over = await create(key, { topic: 'One too many' });
      assert.deepEqual([over.status, errorCode(over)], [429, 'active_tasks_exceeded']);
    }
  });

  it('new assets a day: one budget for both keys', async () => {
    const { live, test } = await keys();
    const asset = (key: string) => t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: 68 } });
    assert.deepEqual([(await asset(live)).status, (await asset(test)).status], [201, 201]);
    const over = await asset(test);
    assert.deepEqual([over.status, errorCode(over)], [429, 'rate_limited']);
  });
});
