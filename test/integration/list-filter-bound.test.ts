/**
 * GET /videos with a status filter reads a bounded amount per request, whatever the history: at most three times
 * `limit` orders, answering a short or empty page with `has_more` and a cursor when the bound is reached, and the
 * cursor goes on from there (issue 25). On the local stack, the items read counted on the handlers' client.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countReads, readsBy } from '../support/reads.ts';
import { useStack } from '../support/stack.ts';

// Executions are held: every order stays queued.
const t = useStack({ LIMIT_ACTIVE_TASKS: '1000', LIMIT_POSTS_PER_MINUTE: '10000', LOCAL_SFN_HOLD: '1' });
const ORDERS = 65;
let user: { userId: string; apiKey: string };
const ids: string[] = [];

async function setUp() {
  await countReads();
  user = await t.user({ balance: 100_000 });
  for (let i = 0; i < ORDERS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, ORDERS - i) }, () => t.api('POST', '/videos:quick', { key: user.apiKey, body: { prompt: 'A short video about tea' } })),
    );
    for (const res of batch) assert.equal(res.status, 201, res.text);
    ids.push(...batch.map((r) => r.body.id as string));
  }
}

/** One request: its page and the items it read (the key's user item, the references, the orders). */
async function page(query: string) {
  const { items, result: res } = await readsBy(user.userId, () => t.api('GET', `/videos?${query}`, { key: user.apiKey }));
  assert.equal(res.status, 200, res.text);
  return { items, body: res.body };
}

describe('GET /videos with a status filter', () => {
  before(setUp);

  it('reads at most three times the limit per request, and the cursor walks the whole history', async () => {
    const limit = 5;
    const bound = 3 * limit;
    const first = await page(`status=done&limit=${limit}`);
    console.log(`# status=done&limit=${limit} over ${ORDERS} queued orders: ${first.items} items read by the first request`);
    assert.deepEqual([first.body.data, first.body.has_more], [[], true]);
    // The user item, the references the queries examined (each asks 2 beyond its page), the orders themselves.
    assert.ok(first.items <= 1 + 2 * (bound + 2), `${first.items} items read`);
    let requests = 1;
    let cursor = first.body.next_starting_after as string;
    for (;;) {
      const next = await page(`status=done&limit=${limit}&starting_after=${cursor}`);
      requests++;
      assert.equal(next.body.data.length, 0);
      assert.ok(next.items <= 1 + 2 * (bound + 2), `${next.items} items read`);
      if (!next.body.has_more) break;
      cursor = next.body.next_starting_after;
      assert.ok(requests < ORDERS, 'the cursor moves on');
    }
    assert.equal(requests, Math.ceil(ORDERS / bound));

    // A filter that matches: its page, within the same bound.
    const queued = await page(`status=queued&limit=${limit}`);
    assert.deepEqual(
      queued.body.data.map((o: { id: string }) => o.id),
      [...ids].sort().reverse().slice(0, limit),
    );
    assert.equal(queued.body.has_more, true);
    assert.ok(queued.items <= 1 + 2 * (bound + 2), `${queued.items} items read`);
  });
});
