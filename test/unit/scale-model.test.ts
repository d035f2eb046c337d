/**
 * The scale model's own arithmetic (bench/scale-model.ts): the quota buckets, the SDK's retries, DynamoDB's capacity
 * units and the per-partition, per-second counting. Moments are given, never read from a clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callWithRetries, EventQueue, PartitionLoad, quantile, readUnits, TokenBucket, writeUnits } from '../../bench/scale-model.ts';

describe('scale model arithmetic', () => {
  it('a token bucket gives its burst at once, then its refill a second, never more than its burst', () => {
    const b = new TokenBucket(250, 10);
    let taken = 0;
    while (b.take(0)) taken++;
    assert.equal(taken, 250, 'the burst at one moment');
    assert.equal(b.take(50), false, 'half a token refilled after 50 ms');
    assert.equal(b.take(100), true, 'one token after 100 ms');
    let later = 0;
    while (b.take(1100)) later++;
    assert.equal(later, 10, 'ten more in the next second');
    let full = 0;
    while (b.take(1_000_000)) full++;
    assert.equal(full, 250, 'an idle bucket holds its burst, no more');
    assert.equal(b.take(0), false, 'an earlier moment counts as the last one: no refill backwards');
  });

  it('the SDK retries a throttle twice, 100 ms then 200 ms later, and gives up after the third attempt', () => {
    const b = new TokenBucket(1, 10);
    assert.equal(callWithRetries(b, 0), 0);
    assert.equal(callWithRetries(b, 0), 100, 'the second attempt, after 100 ms, finds one token');
    assert.equal(callWithRetries(b, 100), 200, 'none at 100 ms (just taken), one refilled by 200');
    const slow = new TokenBucket(1, 1);
    slow.take(0);
    assert.equal(callWithRetries(slow, 0), undefined, 'a refill of 1 a second gives nothing within 300 ms');
  });

  it('counts capacity units as DynamoDB does: a KB a write unit, twice in a transaction; 4 KB a read unit, half eventually consistent', () => {
    assert.deepEqual([writeUnits(0.1), writeUnits(1), writeUnits(1.3), writeUnits(0.3, true), writeUnits(1.3, true)], [1, 1, 2, 2, 4]);
    assert.deepEqual([readUnits(0), readUnits(4), readUnits(4.1), readUnits(13, false)], [1, 1, 2, 2]);
  });

  it('gives the partition with the most units in one second, per second, and the item in the most transactions', () => {
    const load = new PartitionLoad();
    for (let i = 0; i < 10; i++) load.write('QUEUE#0', 2, 500 + i, { item: 'STATE' });
    for (let i = 0; i < 6; i++) load.write('QUEUE#1', 2, 1000 * i, { item: 'STATE' });
    load.write('QUEUE#0', 5, 1999);
    load.read('WAITING#api', 0.5, 3000);
    load.read('WAITING#api', 0.5, 3999);
    load.read('WAITING#api', 7, 4000);
    assert.deepEqual(load.busiestWrites(), { key: 'QUEUE#0', perSecond: 20, second: 0 }, '12 units a second over 6 seconds is less than 20 in one');
    assert.deepEqual(load.busiestReads(), { key: 'WAITING#api', perSecond: 7, second: 4 });
    assert.deepEqual(load.busiestTransactions(), { key: 'QUEUE#0 STATE', perSecond: 10, second: 0 }, 'a plain write is no transaction');
    assert.equal(load.busiestWrites((pk) => pk.replace(/\d+$/, '<k>')).key, 'QUEUE#<k>');
  });

  it('pops events by time, equal times in the order they came; quantiles by rank', () => {
    const q = new EventQueue<string>();
    for (const [at, item] of [
      [5, 'a'],
      [1, 'b'],
      [5, 'c'],
      [0, 'd'],
      [5, 'e'],
    ] as const)
      q.push(at, item);
    const out: string[] = [];
    for (let e = q.pop(); e; e = q.pop()) out.push(e.item);
    assert.deepEqual(out, ['d', 'b', 'a', 'c', 'e']);
    assert.equal(quantile([3, 1, 2, 4], 0.5), 3);
    assert.equal(quantile([3, 1, 2, 4], 0.9), 4);
    assert.ok(Number.isNaN(quantile([], 0.5)));
  });
});
