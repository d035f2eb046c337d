/**
 * GET /videos on the local stack: the key's orders, newest first, a page at a time (limit, starting_after, has_more),
 * filtered by status and creation time; an order is listed as soon as its creation has answered; another key's orders
 * never appear; bad parameters are 422 naming the parameter. Every answer is checked against the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ LIMIT_ACTIVE_TASKS: '50', LIMIT_POSTS_PER_MINUTE: '100' });
let key: string;
let otherKey: string;
/** The orders of `key`, oldest first, as their creation answered. */
const created: { id: string; status: string }[] = [];

/** Every order of a listing, following the cursor, with each page's size. */
async function listAll(query: string, k = key): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor = '';
  for (let n = 0; n < 50; n++) {
    const res = await t.api('GET', `/videos?${query}${cursor}`, { key: k });
    assert.equal(res.status, 200, res.text);
    ids.push(...res.body.data.map((o: { id: string }) => o.id));
    pages.push(res.body.data.length);
    if (!res.body.has_more) {
      assert.equal(res.body.next_starting_after, undefined);
      return { ids, pages };
    }
    cursor = `&starting_after=${res.body.next_starting_after}`;
  }
  throw new Error('the listing did not end');
}

async function setUp(): Promise<void> {
  ({ apiKey: key } = await t.user({ balance: 10_000 }));
  ({ apiKey: otherKey } = await t.user({ balance: 10_000 }));
  // Director orders stop at their review (no render); one short quick order renders to done.
  for (let i = 0; i < 9; i++) {
    const res = await t.api('POST', '/videos', { key, body: { topic: `Tea ${i}`, duration_seconds: 10, director_mode: true } });
    assert.equal(res.status, 201, res.text);
    created.push(res.body);
    // Listed at once: the creation's own answer is enough (strongly consistent, no index lag).
    const first = await t.api('GET', '/videos?limit=1', { key });
    assert.equal(first.body.data[0].id, res.body.id);
  }
  const quick = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about oolong' } });
  assert.equal(quick.status, 201, quick.text);
  created.push(quick.body);
  for (const k of [otherKey, otherKey]) assert.equal((await t.api('POST', '/videos', { key: k, body: { topic: 'Coffee', director_mode: true } })).status, 201);
  for (const [i, o] of created.entries()) {
    const order = await waitForStatus(t, key, o.id, ['done', 'awaiting_review', 'error']);
    assert.equal(order.status, i >= 9 ? 'done' : 'awaiting_review', JSON.stringify(order));
  }
}

describe('GET /videos', () => {
  before(setUp);

  it("pages through the key's orders newest first, each once, and no other key's", async () => {
    const newestFirst = created.map((o) => o.id).reverse();
    for (const limit of [1, 5, 10, 100]) {
      const { ids, pages } = await listAll(`limit=${limit}`);
      assert.deepEqual(ids, newestFirst, `limit ${limit}`);
      assert.ok(
        pages.every((n, i) => (i < pages.length - 1 ? n === limit : n <= limit)),
        `pages of ${limit}: ${pages}`,
      );
    }
    const first = await t.api('GET', '/videos', { key });
    assert.equal(first.body.data.length, 10, 'the default limit (20) holds all ten');
    assert.equal(first.body.has_more, false);
    // Each entry is the order as GET /videos/{id} answers it.
    const done = first.body.data.find((o: { status: string }) => o.status === 'done');
    assert.ok(done?.result_url && done.metadata, 'a done order carries its links and posting pack');
    const one = await t.api('GET', `/videos/${done.id}`, { key });
    assert.deepEqual({ ...done, result_url: undefined, cover_url: undefined }, { ...one.body, result_url: undefined, cover_url: undefined });
    // The other key sees its own two.
    const other = await listAll('limit=1', otherKey);
    assert.equal(other.ids.length, 2);
    assert.ok(other.ids.every((id) => !newestFirst.includes(id)));
    // A cursor from another key's order only positions the page: still only this key's orders.
    const crossed = await t.api('GET', `/videos?starting_after=${other.ids[0]}`, { key });
    assert.ok(crossed.body.data.every((o: { id: string }) => newestFirst.includes(o.id)));
  });

  it('filters by status and by creation time', async () => {
    const review = await listAll('status=awaiting_review&limit=4');
    assert.deepEqual(
      review.ids,
      created
        .slice(0, 9)
        .map((o) => o.id)
        .reverse(),
    );
    const done = await listAll('status=done');
    assert.deepEqual(
      done.ids,
      created
        .slice(9)
        .map((o) => o.id)
        .reverse(),
    );
    assert.deepEqual((await listAll('status=running')).ids, []);
    const times = await Promise.all(created.map(async (o) => (await t.api('GET', `/videos/${o.id}`, { key })).body.created_at as string));
    const gte = await listAll(`created_gte=${encodeURIComponent(times[4]!)}&limit=3`);
    assert.deepEqual(
      gte.ids,
      created
        .slice(4)
        .map((o) => o.id)
        .reverse(),
    );
    const lt = await listAll(`created_lt=${encodeURIComponent(times[4]!)}`);
    assert.deepEqual(
      lt.ids,
      created
        .slice(0, 4)
        .map((o) => o.id)
        .reverse(),
    );
    const between = await listAll(`created_gte=${encodeURIComponent(times[2]!)}&created_lt=${encodeURIComponent(times[7]!)}&status=awaiting_review&limit=2`);
    assert.deepEqual(
      between.ids,
      created
        .slice(2, 7)
        .map((o) => o.id)
        .reverse(),
    );
    // A time with an offset is the same instant.
    const shifted = new Date(Date.parse(times[4]!)).toISOString().replace('Z', '+00:00');
    assert.deepEqual((await listAll(`created_gte=${encodeURIComponent(shifted)}`)).ids, gte.ids);
  });

  it('refuses bad parameters with 422 naming the parameter, and needs a key', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['status=finished', 'status'],
      ['starting_after=vid_nope', 'starting_after'],
      ['created_gte=yesterday', 'created_gte'],
      ['order=asc', 'order'],
    ] as const) {
      const res = await t.api('GET', `/videos?${query}`, { key });
      assert.equal(res.status, 422, query);
      assert.equal(errorCode(res), 'invalid_params');
      assert.match(res.body.error.message, new RegExp(`^${field}: `), query);
    }
    assert.equal((await t.api('GET', '/videos')).status, 401);
  });
});
