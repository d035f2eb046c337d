/**
 * GET /balance/transactions reads one bounded page whatever the ledger's length, and each entry's balance_after is
 * exact: the balance after the entry before it plus its amount, in the order the ledger lists them, also when the
 * same user's charges, refunds and top-ups are written at once (issue 25). On the local stack; the items DynamoDB
 * reads are counted by a middleware on the handlers' own client (test/support/reads.ts).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countReads, readsBy } from '../support/reads.ts';
import { useStack } from '../support/stack.ts';

const t = useStack({ LIMIT_ACTIVE_TASKS: '100', LIMIT_POSTS_PER_MINUTE: '10000', LOCAL_SFN_HOLD: '1' });

/** The items read for the user by one request, and its time. */
async function measure(userId: string, key: string, path: string) {
  const { items, ms, result: res } = await readsBy(userId, () => t.api('GET', path, { key }));
  assert.equal(res.status, 200, res.text);
  return { items, ms, body: res.body };
}

/** Every entry, newest first, following the cursor. */
async function wholeLedger(key: string) {
  const out: any[] = [];
  let cursor = '';
  for (let i = 0; i < 100; i++) {
    const res = await t.api('GET', `/balance/transactions?limit=100${cursor}`, { key });
    assert.equal(res.status, 200, res.text);
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    cursor = `&starting_after=${res.body.next_starting_after}`;
  }
  throw new Error('no end');
}

/** balance_after chains exactly, newest first: each is the one before it (older) plus its amount; the newest is the balance. */
async function assertChains(key: string, entries: any[]) {
  assert.equal(entries.at(-1).balance_after, entries.at(-1).amount, 'the first entry starts from zero');
  for (let i = 0; i < entries.length - 1; i++) {
    const [newer, older] = [entries[i], entries[i + 1]];
    assert.equal(newer.balance_after, older.balance_after + newer.amount, `entry ${i} (${newer.id}) after ${older.id}`);
    assert.ok(newer.id > older.id, 'ids sort newest first');
  }
  assert.ok(
    entries.every((e) => e.balance_after >= 0),
    'no balance below zero',
  );
  assert.equal(entries[0].balance_after, (await t.api('GET', '/balance', { key })).body.balance);
}

/** A few real orders: two charged, one canceled and refunded. */
async function orders(key: string) {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await t.api('POST', '/videos', { key, body: { topic: `Tea ${i}`, duration_seconds: 10, director_mode: true } });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id);
  }
  assert.equal((await t.api('POST', `/videos/${ids[1]}/cancel`, { key })).status, 200);
}

describe('the ledger, a page at a time', () => {
  before(countReads);

  it('reads one bounded page for limit=1 whatever the ledger holds, and balance_after chains exactly', async () => {
    const { services } = await import('../../functions/app/services.ts');
    const small = await t.user({ balance: 1000 });
    await orders(small.apiKey);
    const large = await t.user({ balance: 1000 });
    await orders(large.apiKey);
    // A long history, written through the adapters for speed: 400 top-ups.
    for (let i = 0; i < 400; i++) await services().stores.accounts.topUp(large.userId, 1 + (i % 7), new Date());
    await orders(large.apiKey);

    const figures = [];
    for (const [name, u] of [
      ['small', small],
      ['large', large],
    ] as const) {
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await measure(u.userId, u.apiKey, '/balance/transactions?limit=1'));
      const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[2]!;
      const entries = (await wholeLedger(u.apiKey)).length;
      figures.push({ name, entries, items: runs[0]!.items, ms });
      assert.equal(runs[0]!.body.data.length, 1);
      assert.equal(runs[0]!.body.has_more, true);
    }
    console.log(`# items read for a page of limit=1: ${figures.map((f) => `${f.entries} entries: ${f.items} items, ${f.ms.toFixed(1)} ms`).join('; ')}`);
    const [s, l] = figures as [(typeof figures)[0], (typeof figures)[0]];
    assert.equal(l.entries, s.entries * 2 + 400 - 1, 'the large ledger holds its top-ups and both rounds of orders');
    assert.equal(l.items, s.items, 'the items read do not grow with the ledger');
    // The key's user item, and the page with the one entry that tells whether more remain.
    assert.ok(l.items <= 3, `${l.items} items read`);

    await assertChains(small.apiKey, await wholeLedger(small.apiKey));
    await assertChains(large.apiKey, await wholeLedger(large.apiKey));
    // A page from the middle reads a page too, and goes on where the previous one stopped.
    const first = await measure(large.userId, large.apiKey, '/balance/transactions?limit=50');
    const next = await measure(large.userId, large.apiKey, `/balance/transactions?limit=50&starting_after=${first.body.next_starting_after}`);
    assert.ok(next.items <= 53, `${next.items} items read for a page of 50`);
    const all = await wholeLedger(large.apiKey);
    assert.deepEqual(
      [...first.body.data, ...next.body.data].map((e: { id: string }) => e.id),
      all.slice(0, 100).map((e) => e.id),
    );
  });

  it('keeps balance_after exact when charges, refunds and top-ups of one user are written at once', async () => {
    const { services } = await import('../../functions/app/services.ts');
    const { userId, apiKey: key } = await t.user({ balance: 500 });
    const create = () => t.api('POST', '/videos', { key, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
    const first = await Promise.all(Array.from({ length: 8 }, create));
    const created = first.filter((r) => r.status === 201).map((r) => r.body.id as string);
    assert.equal(created.length, 5, first.map((r) => r.status).join(','));
    // Cancels (refunds), top-ups and creations, all at once.
    const results = await Promise.all([
      ...created.map((id) => t.api('POST', `/videos/${id}/cancel`, { key })),
      ...Array.from({ length: 10 }, (_, i) => services().stores.accounts.topUp(userId, 10 + i, new Date())),
      ...Array.from({ length: 10 }, create),
    ]);
    const statuses = results.map((r) => (typeof r === 'number' ? 'top-up' : r.status));
    assert.ok(
      statuses.every((s) => s === 'top-up' || s === 200 || s === 201 || s === 402),
      statuses.join(','),
    );
    const entries = await wholeLedger(key);
    await assertChains(key, entries);
    const stored = await services().stores.accounts.ledger(userId);
    assert.equal(
      stored.reduce((n, e) => n + e.amount, 0),
      entries[0].balance_after,
    );
    // Kept on each entry as it was written, not counted when read.
    assert.deepEqual(
      stored.map((e) => e.balanceAfter).reverse(),
      entries.map((e) => e.balance_after),
    );
  });

  it('writes the ledger of a data folder from before again, once, with the balance after each entry', async () => {
    const { services } = await import('../../functions/app/services.ts');
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { keys } = await import('../../functions/adapters/keys.ts');
    const { migrateLedgers } = await import('../../local/ledger-migration.ts');
    const { PutCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { ulid } = await import('ulid');
    const { ddb } = aws();
    const TableName = t.stack.env.TABLE_NAME!;
    // A user as the earlier version left it: no ledger count, entries keyed by the time they were written.
    const { userId, apiKey: key } = await t.user({ balance: 0 });
    const old = [
      { amount: 1000, kind: 'top_up' },
      { amount: -100, kind: 'charge', orderId: 'vid_01kbg000000000000000000000' },
      { amount: 100, kind: 'refund', orderId: 'vid_01kbg000000000000000000000', reason: 'canceled' },
      { amount: 70, kind: 'top_up' },
    ];
    const t0 = Date.parse('2026-10-01T00:00:00Z');
    for (const [i, e] of old.entries()) {
      await ddb.send(
        new PutCommand({ TableName, Item: { ...keys.ledger(userId, ulid(t0 + i * 1000)), ...e, createdAt: new Date(t0 + i * 1000).toISOString() } }),
      );
    }
    await ddb.send(
      new UpdateCommand({
        TableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET balance = :b REMOVE ledgerSeq',
        ExpressionAttributeValues: { ':b': 1070 },
      }),
    );

    assert.ok((await migrateLedgers(ddb, TableName)) >= 1);
    const shown = (entries: any[]) => entries.map((e) => [e.kind, e.amount, e.balance_after]);
    const expected = [
      ['top_up', 70, 1070],
      ['refund', 100, 1000],
      ['charge', -100, 900],
      ['top_up', 1000, 1000],
    ];
    assert.deepEqual(shown(await wholeLedger(key)), expected);
    // Once: a second start finds nothing to do, and new writes follow the migrated entries.
    assert.equal(await migrateLedgers(ddb, TableName), 0);
    assert.equal((await services().stores.accounts.ledger(userId)).length, 4);
    await services().stores.accounts.topUp(userId, 5, new Date());
    const after = await wholeLedger(key);
    assert.deepEqual(shown(after), [['top_up', 5, 1075], ...expected]);
    await assertChains(key, after);
  });
});
