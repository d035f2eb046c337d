/** Stored items become records field by field: the record's fields only, and a malformed item fails loudly. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedItem, orderOf, quoteOf } from '../../functions/adapters/records.ts';

const stored = {
  PK: 'ORDER#vid_1',
  SK: 'ORDER',
  GSI1PK: 'USER#u1',
  GSI1SK: 'ORDER#vid_1',
  id: 'vid_1',
  userId: 'u1',
  status: 'queued',
  kind: 'explicit',
  params: { topic: 'Tea' },
  charge: { cost: 100, trial: false, extras: [] },
  createdAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:00.000Z',
  etaSeconds: 40,
  queueShard: 3,
  queuePlace: { shard: 3, ticket: 7 },
  leftover: 'an attribute no record names',
};

describe('stored items to records', () => {
  it('picks an order’s fields and leaves the table’s keys and unknown attributes behind', () => {
    const order = orderOf(stored);
    assert.deepEqual(Object.keys(order).sort(), [
      'charge',
      'createdAt',
      'etaSeconds',
      'id',
      'kind',
      'params',
      'queuePlace',
      'queueShard',
      'status',
      'updatedAt',
      'userId',
    ]);
    assert.deepEqual(order.queuePlace, { shard: 3, ticket: 7 });
  });

  it('fails on a malformed item, naming the item and the field', () => {
    assert.throws(
      () => orderOf({ ...stored, status: 'lost' }),
      (e: Error) => e instanceof MalformedItem && /ORDER#vid_1 ORDER.*status/.test(e.message),
    );
    assert.throws(() => orderOf({ ...stored, etaSeconds: '40' }), /etaSeconds: a number expected/);
    assert.throws(() => orderOf({ ...stored, charge: { cost: 100, trial: false, extras: ['gold'] } }), MalformedItem);
    const { userId: _u, ...noUser } = stored;
    assert.throws(() => orderOf(noUser), /userId/);
  });

  it('reads a quote’s expiry from its TTL attribute and its hash from the attribute it is stored under', () => {
    const q = quoteOf({
      PK: 'USER#u1',
      SK: 'QUOTE#q1',
      id: 'q1',
      userId: 'u1',
      requestHash: 'abc',
      charge: { cost: 170, trial: false, extras: ['song'] },
      createdAt: '2026-11-23T10:00:00.000Z',
      expiresAt: 1795428900,
    });
    assert.deepEqual([q.pricedHash, q.expiresAt, 'orderId' in q], ['abc', new Date(1795428900 * 1000).toISOString(), false]);
  });
});
