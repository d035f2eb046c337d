/**
 * The scale model's own arithmetic and machinery (bench/scale-model.ts): the quota buckets, DynamoDB's capacity
 * units, the load per partition and per table, the simulated clock's interleaving, the saturation multiple. Moments
 * are given or simulated, never read from a clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventQueue, InFlight, Meter, PerSecond, peakWindow, quantile, readUnits, saturatesAt, Sim, TokenBucket, writeUnits } from '../../bench/scale-model.ts';

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
    const sampled = new TokenBucket(100, 10);
    assert.equal(sampled.take(0, 60), true, 'a call standing for 60 takes 60 tokens');
    assert.equal(sampled.take(0, 60), false, 'and only 40 are left');
  });

  it('counts capacity units as DynamoDB does: a KB a write unit, twice in a transaction; 4 KB a read unit, half eventually consistent', () => {
    assert.deepEqual([writeUnits(0.1), writeUnits(1), writeUnits(1.3), writeUnits(0.3, true), writeUnits(1.3, true)], [1, 1, 2, 2, 4]);
    assert.deepEqual([readUnits(0), readUnits(4), readUnits(4.1), readUnits(13, false)], [1, 1, 2, 2]);
  });

  it("gives the whole table's units a second, and the busiest partition's: its busiest second, or 10 seconds when a sample weighted it", () => {
    const m = new Meter(1000, 31_000, (pk) => pk.startsWith('ORDER#'));
    for (let i = 0; i < 10; i++) m.add('writes', 'QUEUE#0', 2, 1500 + i);
    for (let i = 0; i < 6; i++) m.add('writes', 'QUEUE#1', 2, 1000 + 1000 * i);
    m.add('writes', 'ORDER#x', 50, 2000);
    m.add('writes', 'QUEUE#0', 99, 500);
    m.add('reads', 'START#3', 10, 5000, 10, 10);
    assert.deepEqual(m.busiest('writes'), { pk: 'QUEUE#0', units: 20 }, '12 units a second over 6 seconds is less than 20 in one; before the window, none');
    assert.deepEqual(m.busiest('reads'), { pk: 'START#3', units: 10 }, "a weighted partition's 100 units over its busiest 10 seconds");
    assert.equal(m.table.writes.sum(), 20 + 12 + 50, 'the table counts every partition, an untracked one too');
    assert.equal(m.table.reads.peak(), 100, "the table counts a sample's request its table weight times");
  });

  it('finds the busiest window of per-second counts, and the peak of things in flight within the window', () => {
    assert.equal(peakWindow([1, 5, 2, 8, 1], 1), 8);
    assert.equal(peakWindow([1, 5, 2, 8, 1], 2), 5);
    assert.equal(peakWindow([3, 1], 10), 2, 'a shorter list: its mean');
    const p = new PerSecond(0, 3000);
    p.add(100, 2);
    p.add(2999);
    p.add(3000, 50);
    assert.deepEqual([...p.counts], [2, 0, 1]);
    const f = new InFlight(1000, 2000);
    f.change(5, 500);
    f.change(1, 1500);
    f.change(-3, 1600);
    f.change(10, 2500);
    assert.deepEqual([f.n, f.peak], [13, 6], 'in flight counted always, its peak only within the window');
  });

  it('finds the multiple at which a load reaches its limit: between two measured scales, or in proportion past the last', () => {
    assert.deepEqual(
      saturatesAt([
        { scale: 100, share: 0.5 },
        { scale: 300, share: 1.5 },
        { scale: 10, share: 0.05 },
      ]),
      { multiple: 200, extrapolated: false },
    );
    assert.deepEqual(
      saturatesAt([
        { scale: 1, share: 0.1 },
        { scale: 1000, share: 0.5 },
      ]),
      { multiple: 2000, extrapolated: true },
    );
    assert.deepEqual(saturatesAt([{ scale: 10, share: 2 }]), { multiple: 5, extrapolated: false }, 'past its limit at the first: in proportion below it');
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
    assert.ok(Number.isNaN(quantile([], 0.5)));
  });

  it('interleaves operations in flight at their simulated moments, setTimeout on its clock, Math.random its own', async () => {
    const sim = new Sim(() => 0.25);
    const log: string[] = [];
    const op = async (name: string, steps: number[]) => {
      for (const ms of steps) {
        await sim.sleep(ms);
        // A chain of awaits inside one step runs before the next event.
        await Promise.resolve();
        await Promise.resolve();
        log.push(`${name}@${sim.now}`);
      }
    };
    sim.at(0, () => void op('a', [10, 10]));
    sim.at(5, () => void op('b', [3, 20]));
    sim.at(1, () => setTimeout(() => log.push(`timer@${sim.now} ${Math.random()}`), 7));
    const random = Math.random;
    await sim.run(25);
    assert.deepEqual(log, ['timer@8 0.25', 'b@8', 'a@10', 'a@20'], 'equal moments in the order they were set; past the end, none');
    assert.equal(Math.random, random, 'restored after the run');
  });
});
