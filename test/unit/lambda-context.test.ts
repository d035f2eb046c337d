/**
 * The local Lambda context gives a handler its function's time: middy ends a handler just before the remaining time
 * runs out, so a context that always said 29 s cut renders short on a busy machine (found by running the suite two
 * files at a time: a restarted render ended in error with TimeoutError).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import middy from '@middy/core';
import { lambdaContext } from '../../local/gateway.ts';

const slow = middy(async () => {
  await new Promise((r) => setTimeout(r, 400));
  return 'finished';
});

describe('the local Lambda context', () => {
  it('counts down from the timeout it is given', async () => {
    const context = lambdaContext('f', 'r', 900_000);
    const before = context.getRemainingTimeInMillis();
    assert.ok(before > 899_000 && before <= 900_000);
    const started = Date.now();
    // Wait until the clock itself has moved 50 ms (a timer may fire a millisecond early by Date.now()).
    while (Date.now() - started < 50) await new Promise((r) => setTimeout(r, 10));
    assert.ok(before - context.getRemainingTimeInMillis() >= 50);
  });

  it('lets a handler run for its function’s time, and ends it when that time is up', async () => {
    assert.equal(await slow({}, lambdaContext('render', 'r1', 2_000)), 'finished');
    await assert.rejects(slow({}, lambdaContext('render', 'r2', 100)), (err: Error) => err.name === 'TimeoutError');
  });
});
