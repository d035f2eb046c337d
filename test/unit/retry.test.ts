/** The one retry helper: bounded attempts per budget, jittered pauses below a doubling ceiling, errors not retried. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGAIN, pauseMs, retry, type RetryPolicy, untilDone } from '../../functions/core/retry.ts';

const quick: RetryPolicy = { attempts: 4, baseMs: 0 };

describe('retry', () => {
  it('returns the first result that is not retryable, trying no more', async () => {
    let calls = 0;
    const r = await retry({
      policy: quick,
      op: async (n) => {
        calls++;
        return n;
      },
      retryable: (n) => n < 2,
      exhausted: () => new Error('spent'),
    });
    assert.deepEqual([r, calls], [2, 3]);
  });

  it('throws the exhausted error after exactly `attempts` tries, with the last result', async () => {
    let calls = 0;
    const err = await retry({ policy: quick, op: async () => ++calls, retryable: () => true, exhausted: (last) => new Error(`spent at ${last}`) }).catch(
      (e: Error) => e,
    );
    assert.deepEqual([(err as Error).message, calls], ['spent at 4', 4]);
  });

  it('counts each budget apart', async () => {
    const moved: RetryPolicy = { attempts: 3, baseMs: 0 };
    const kinds = ['moved', 'conflict', 'moved', 'conflict', 'conflict', 'done'];
    let i = 0;
    const r = await retry({
      policy: quick,
      op: async () => kinds[i++]!,
      retryable: (k) => (k === 'moved' ? moved : k === 'conflict'),
      exhausted: (_k, p) => new Error(p === moved ? 'moved' : 'conflict'),
    });
    assert.deepEqual([r, i], ['done', 6], 'two moves and three conflicts fit budgets of three and four');
    i = 0;
    const third = ['moved', 'moved', 'moved'];
    await assert.rejects(
      retry({ policy: quick, op: async () => third[i++]!, retryable: () => moved, exhausted: (_k, p) => new Error(p === moved ? 'moved' : 'conflict') }),
      /moved/,
    );
  });

  it('never retries an error the attempt throws', async () => {
    let calls = 0;
    await assert.rejects(
      untilDone(
        quick,
        async () => {
          calls++;
          throw new Error('lasting');
        },
        () => new Error('spent'),
      ),
      /lasting/,
    );
    assert.equal(calls, 1);
    assert.equal(
      await untilDone(
        quick,
        async (n) => (n < 3 ? AGAIN : 'written'),
        () => new Error('spent'),
      ),
      'written',
    );
  });

  it('pauses below min(cap, base * 2^n), at random', () => {
    const policy: RetryPolicy = { attempts: 9, baseMs: 10, capMs: 400 };
    assert.deepEqual(
      [0, 1, 2, 5, 6, 8].map((n) => pauseMs(policy, n, () => 1)),
      [10, 20, 40, 320, 400, 400],
    );
    assert.equal(
      pauseMs(policy, 3, () => 0),
      0,
    );
    assert.equal(
      pauseMs({ attempts: 3, baseMs: 0 }, 7, () => 1),
      0,
    );
  });
});
