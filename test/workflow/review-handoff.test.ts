/**
 * The review's hand-off to the workflow when Step Functions is not kind: SendTaskSuccess throttled (injected at the
 * local endpoint, which answers as AWS does), a review racing its deadline, and the answers for a token whose wait has
 * closed (TaskTimedOut) or that was never handed out (InvalidToken).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';
import { sfnFaults } from '../support/sfn-faults.ts';

const DEADLINE_SECONDS = 8;
const t = useStack({ REVIEW_DEADLINE_SECONDS: String(DEADLINE_SECONDS) });
const services = async () => (await import('../../functions/app/services.ts')).services();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const director = { topic: 'Morning coffee', duration_seconds: 10, director_mode: true };

/** A director-mode order of a new user, at its review; `since`: when it went there (its wait began just before). */
async function atReview(): Promise<{ id: string; key: string; waiting: any; since: number }> {
  const { apiKey } = await t.user({ balance: 500 });
  const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
  const waiting = await waitForStatus(t, apiKey, id, ['awaiting_review']);
  return { id, key: apiKey, waiting, since: Date.parse(waiting.updated_at) };
}

async function sendTaskSuccess(taskToken: string): Promise<string> {
  const { aws } = await import('../../functions/adapters/aws.ts');
  const { SendTaskSuccessCommand } = await import('@aws-sdk/client-sfn');
  try {
    await (await aws().sfn()).send(new SendTaskSuccessCommand({ taskToken, output: '{"action":"approve"}' }));
    return 'accepted';
  } catch (err) {
    return (err as Error).name;
  }
}

describe('the review hand-off', () => {
  it('leaves the order reviewable when Step Functions throttles SendTaskSuccess, and a repeated review finishes it', async () => {
    const { id, key, waiting } = await atReview();
    const text = 'Caption: Written by the client\nVoice: The client wrote this line.';
    // Every attempt the SDK makes (3) is throttled.
    sfnFaults(t.stack.sfn).failNext('SendTaskSuccess', 'ThrottlingException', 400, 3);
    const refused = await t.api('POST', `/videos/${id}/review`, { key, body: { action: 'edit', text } });
    assert.equal(refused.status, 503);
    assert.equal(errorCode(refused), 'service_unavailable');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const after = (await t.api('GET', `/videos/${id}`, { key })).body;
    assert.equal(after.status, 'awaiting_review');
    assert.equal(after.script, waiting.script, 'the edit was undone with the failed hand-off');

    const again = await t.api('POST', `/videos/${id}/review`, { key, body: { action: 'edit', text } });
    assert.equal(again.status, 200);
    const done = await waitForStatus(t, key, id, ['done', 'error']);
    assert.equal(done.status, 'done');
    assert.match(done.script, /Written by the client/);
    assert.equal((await (await services()).stores.orders.get(id))?.reviewToken, undefined, 'the spent token is forgotten');
  });

  it('answers a review racing its deadline 200 (and renders) or 409 (review_expired), never 500', async () => {
    // Reviews sent around the deadline, one order each, all at once; the last one after its wait has lapsed (the
    // order seen in error), not at a fixed time past the deadline a loaded machine's timers could still be short of.
    const offsets = [-400, -150, 0, 150, 400, Number.POSITIVE_INFINITY];
    const orders = await Promise.all(offsets.map(() => atReview()));
    const late = orders.at(-1)!;
    const lateToken = (await (await services()).stores.orders.get(late.id))?.reviewToken;
    assert.ok(lateToken, 'the waiting order holds its wait’s token');
    const answers = await Promise.all(
      orders.map(async (o, i) => {
        if (o === late) await waitForStatus(t, o.key, o.id, ['error'], 60_000);
        else await sleep(Math.max(0, o.since + DEADLINE_SECONDS * 1000 + offsets[i]! - Date.now()));
        return (await t.api('POST', `/videos/${o.id}/review`, { key: o.key, body: { action: 'approve' } })).status;
      }),
    );
    const ends = await Promise.all(orders.map((o) => waitForStatus(t, o.key, o.id, ['done', 'error'], 120_000)));
    for (const [i, status] of answers.entries()) {
      const end = ends[i];
      assert.ok(status === 200 || status === 409, `offset ${offsets[i]} ms answered ${status}`);
      if (status === 200) assert.equal(end.status, 'done', `offset ${offsets[i]} ms: reviewed, then ${end.status}`);
      else assert.deepEqual([end.status, end.error?.code], ['error', 'review_expired']);
    }
    assert.equal(answers.at(-1), 409, 'after the wait lapsed');
    // The lapsed wait's own token is TaskTimedOut now, as on AWS; a token never handed out is InvalidToken.
    assert.equal(await sendTaskSuccess(lateToken), 'TaskTimedOut');
    assert.equal(await sendTaskSuccess('a-token-no-one-handed-out'), 'InvalidToken');
  });

  it('goes on from a review recorded before the deadline whose SendTaskSuccess arrives after it', async () => {
    const { id, key, since } = await atReview();
    await sleep(Math.max(0, since + DEADLINE_SECONDS * 1000 - 1500 - Date.now()));
    // The decision is written 1.5 s before the deadline; the hand-off reaches Step Functions 3 s later, after the wait
    // timed out: the lapse step finds the order reviewed, and the review, answered TaskTimedOut, starts the rest.
    sfnFaults(t.stack.sfn).delayNext('SendTaskSuccess', 3000);
    const review = await t.api('POST', `/videos/${id}/review`, { key, body: { action: 'approve' } });
    assert.equal(review.status, 200);
    const done = await waitForStatus(t, key, id, ['done', 'error']);
    assert.equal(done.status, 'done');
    const order = await (await services()).stores.orders.get(id);
    assert.match(order?.execution ?? '', new RegExp(`^${id}-r\\d+$`), 'a new execution carried the decision on');
    assert.equal(order?.reviewToken, undefined);
    const { accounts } = (await services()).stores;
    assert.deepEqual(
      (await accounts.ledger(order!.userId)).map((e) => e.kind).filter((kind) => kind !== 'top_up'),
      ['charge'],
      'charged once, never refunded',
    );
  });
});
