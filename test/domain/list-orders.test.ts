/**
 * The listing's rules on the in-memory store: newest first across pages, a status filter that reads at most
 * three times `limit` orders per request (a short page with a cursor instead of the whole history), and time bounds taken
 * from the ids. test/integration/list-videos.test.ts runs the same on DynamoDB Local through the API.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newOrderId } from '../../functions/core/ids.ts';
import { examinedAtMost, listOrders } from '../../functions/core/list-orders.ts';
import type { Order, OrderStatus } from '../../functions/core/orders.ts';
import { MemoryOrders, MemoryTable } from './memory.ts';

const T0 = Date.parse('2026-11-01T00:00:00Z');

/** `n` orders of one user, a second apart, the statuses given by `statusOf`. */
function history(n: number, statusOf: (i: number) => OrderStatus) {
  const table = new MemoryTable();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newOrderId(T0 + i * 1000);
    ids.push(id);
    table.orders.set(id, { id, userId: 'u1', status: statusOf(i), createdAt: new Date(T0 + i * 1000).toISOString() } as Order);
  }
  table.orders.set('vid_other', { id: newOrderId(T0 + 500), userId: 'u2', status: 'done' } as Order);
  return { store: new MemoryOrders(table), ids };
}

describe('listing orders', () => {
  it('pages newest first, each order once, with a cursor until the last page', async () => {
    const { store, ids } = history(25, () => 'done');
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await listOrders(store, 'u1', { limit: 10, ...(startingAfter ? { startingAfter } : {}) });
      seen.push(...page.orders.map((o) => o.id));
      if (!page.hasMore) break;
      startingAfter = page.next;
    }
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('reads at most three times the limit for a status filter, and its cursor goes on from where it stopped', async () => {
    // One order in error among many done ones, older than the first request reads.
    const n = 40;
    const { store, ids } = history(n, (i) => (i === 20 ? 'error' : 'done'));
    let reads = 0;
    const counting = {
      ofUser: async (...args: Parameters<MemoryOrders['ofUser']>) => {
        const page = await store.ofUser(...args);
        reads += page.orders.length;
        return page;
      },
    };
    assert.equal(examinedAtMost(5), 15);
    const first = await listOrders(counting, 'u1', { limit: 5, status: 'error' });
    assert.deepEqual([first.orders, first.hasMore, first.next, reads], [[], true, ids[n - 15], 15]);
    const found: string[] = [];
    const perRequest: number[] = [];
    for (let next = first.next; next; ) {
      reads = 0;
      const page = await listOrders(counting, 'u1', { limit: 5, status: 'error', startingAfter: next });
      perRequest.push(reads);
      found.push(...page.orders.map((o) => o.id));
      next = page.hasMore ? page.next : undefined;
    }
    assert.deepEqual(found, [ids[20]]);
    assert.deepEqual(perRequest, [15, 10]);
  });

  it('takes the creation-time bounds from the ids: at or after created_gte, before created_lt', async () => {
    const { store, ids } = history(10, () => 'queued');
    const page = await listOrders(store, 'u1', { limit: 100, createdGte: new Date(T0 + 3000), createdLt: new Date(T0 + 7000) });
    assert.deepEqual(
      page.orders.map((o) => o.id),
      ids.slice(3, 7).reverse(),
    );
    // The tighter of a cursor and created_lt wins.
    const both = await listOrders(store, 'u1', { limit: 100, createdLt: new Date(T0 + 7000), startingAfter: ids[5]! });
    assert.deepEqual(
      both.orders.map((o) => o.id),
      ids.slice(0, 5).reverse(),
    );
  });

  it('answers a range outside the ids without reading, and refuses an inverted one naming created_gte', async () => {
    const { store, ids } = history(3, () => 'queued');
    let reads = 0;
    const counting = {
      ofUser: async (...args: Parameters<MemoryOrders['ofUser']>) => {
        reads++;
        return store.ofUser(...args);
      },
    };
    const before1970 = new Date(Date.UTC(1969, 11, 31));
    const yearZero = new Date('0000-01-01T00:00:00Z');
    for (const q of [
      { createdLt: before1970 },
      { createdLt: new Date(0) },
      { createdGte: yearZero, createdLt: before1970 },
      { createdGte: new Date(T0 + 5000), createdLt: new Date(T0 + 5000) },
      { createdGte: new Date(T0 + 60_000), startingAfter: ids[1]! },
    ]) {
      assert.deepEqual(await listOrders(counting, 'u1', { limit: 10, ...q }), { orders: [], hasMore: false }, JSON.stringify(q));
    }
    assert.equal(reads, 0);
    // A lower bound before 1970 bounds nothing.
    const all = await listOrders(store, 'u1', { limit: 10, createdGte: yearZero });
    assert.deepEqual(
      all.orders.map((o) => o.id),
      [...ids].reverse(),
    );
    await assert.rejects(listOrders(store, 'u1', { limit: 10, createdGte: new Date(T0 + 1), createdLt: new Date(T0) }), /^InvalidParams: created_gte: /);
    await assert.rejects(listOrders(store, 'u1', { limit: 10, createdGte: before1970, createdLt: yearZero }), /created_gte: must not be after created_lt/);
  });
});
