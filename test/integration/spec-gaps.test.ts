/**
 * Spec rules the other API tests leave out, against the real local stack: the Idempotency-Key is remembered for 24
 * hours and no longer, and the limit of 30 POSTs a minute counts every POST route, not only creation.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys, TABLE_KEYS } from '../../functions/adapters/keys.ts';
import { errorCode, inOneWindow, retryAfterBounds, useStack, type ApiResponse } from '../support/stack.ts';

// The API alone: executions are held, so no video renders in the background.
const t = useStack({ LOCAL_SFN_HOLD: '1' });
const quick = { prompt: 'A short video about green tea' };
const DAY = 24 * 3600;

const nowSec = () => Math.floor(Date.now() / 1000);
const ddb = async () => (await import('../../functions/adapters/aws.ts')).aws().ddb;
const recordKey = (userId: string, idempotencyKey: string) => keys.idempotency(userId, createHash('sha256').update(idempotencyKey).digest('hex'));

async function idempotencyRecord(userId: string, idempotencyKey: string): Promise<Record<string, any> | undefined> {
  return (await (await ddb()).send(new GetCommand({ TableName: process.env.TABLE_NAME!, Key: recordKey(userId, idempotencyKey), ConsistentRead: true }))).Item;
}

/**
 * Moves the record's expiry (its TTL attribute, seconds) as if time had passed: the only way to let 24 hours pass in a
 * test, since the service reads the real clock. DynamoDB's own TTL deletion is lazy, so the service compares the
 * attribute with its clock itself; that comparison is what this exercises.
 */
async function setExpiry(userId: string, idempotencyKey: string, expiresAt: number): Promise<void> {
  await (await ddb()).send(
    new UpdateCommand({
      TableName: process.env.TABLE_NAME!,
      Key: recordKey(userId, idempotencyKey),
      UpdateExpression: 'SET #ttl = :e',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#ttl': TABLE_KEYS.ttl },
      ExpressionAttributeValues: { ':e': expiresAt },
    }),
  );
}

const balanceOf = async (key: string) => (await t.api('GET', '/balance', { key })).body.balance;

describe('Idempotency-Key memory of 24 hours', () => {
  it('replays until the record expires, then creates and charges a new order under the same key', async () => {
    const { userId, apiKey } = await t.user({ balance: 1000 });
    const idem = 'daily-order';
    const headers = { 'Idempotency-Key': idem };
    const before = nowSec();
    const first = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    const after = nowSec();
    assert.equal(first.status, 201);
    const stored = await idempotencyRecord(userId, idem);
    assert.equal(stored?.orderId, first.body.id);
    const expiresAt = Number(stored?.[TABLE_KEYS.ttl]);
    assert.ok(expiresAt >= before + DAY && expiresAt <= after + DAY, `expiresAt ${expiresAt - before} s after the request, not 24 h`);

    // A minute short of 24 hours after the first request: still the replay, charged once.
    await setExpiry(userId, idem, nowSec() + 60);
    const within = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(within.status, 200, within.text);
    assert.equal(within.headers.get('idempotent-replayed'), 'true');
    assert.equal(within.body.id, first.body.id);
    assert.equal(await balanceOf(apiKey), 900);

    // 24 hours on: the key is forgotten, so the same request is a new order and is charged again.
    await setExpiry(userId, idem, nowSec() - 1);
    const later = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(later.status, 201, later.text);
    assert.equal(later.headers.get('idempotent-replayed'), null);
    assert.notEqual(later.body.id, first.body.id);
    assert.equal(later.body.cost, 100);
    assert.equal(await balanceOf(apiKey), 800);
    assert.equal((await t.api('GET', `/videos/${first.body.id}`, { key: apiKey })).body.status, 'queued', 'the first order is untouched');

    // The key now stands for the new order, remembered for a fresh 24 hours.
    const renewed = await idempotencyRecord(userId, idem);
    assert.equal(renewed?.orderId, later.body.id);
    assert.ok(Number(renewed?.[TABLE_KEYS.ttl]) >= nowSec() + DAY - 60);
    const again = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, later.body.id);
    const { services } = await import('../../functions/app/services.ts');
    const charges = (await services().stores.accounts.ledger(userId)).filter((e) => e.amount < 0);
    assert.deepEqual(
      charges.map((e) => e.amount),
      [-100, -100],
      'two charges: one per order',
    );
  });

  it('does not answer an expired key with the old order even when a new one cannot be paid', async () => {
    // A repeat that a new order could not pay for is normally the replay (its first answer was lost); not once
    // 24 hours have passed.
    const { userId, apiKey } = await t.user({ balance: 100 });
    const idem = 'last-doubloons-yesterday';
    const body = { topic: 'Green tea' };
    const first = await t.api('POST', '/videos', { key: apiKey, body, headers: { 'Idempotency-Key': idem } });
    assert.equal(first.status, 201);
    assert.equal((await t.api('POST', '/videos', { key: apiKey, body, headers: { 'Idempotency-Key': idem } })).status, 200, 'within 24 h: the replay');
    await setExpiry(userId, idem, nowSec() - 1);
    const later = await t.api('POST', '/videos', { key: apiKey, body, headers: { 'Idempotency-Key': idem } });
    assert.equal(later.status, 402, later.text);
    assert.equal(errorCode(later), 'insufficient_funds');
    assert.equal(await balanceOf(apiKey), 0);
  });
});

/** Asserts a 429 rate_limited whose Retry-After counts the seconds to the end of its request's window. */
function assertRateLimited(res: ApiResponse, windowStart: number, sent: number, answered: number, what: string) {
  assert.equal(res.status, 429, `${what}: ${res.text}`);
  assert.equal(errorCode(res), 'rate_limited', what);
  const [lo, hi] = retryAfterBounds(windowStart, sent, answered);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(retryAfter >= lo && retryAfter <= hi, `${what}: Retry-After ${retryAfter}, expected ${lo}..${hi}`);
}

/** One request with the times it was sent and answered (ms), for the Retry-After bounds. */
async function timed(call: () => Promise<ApiResponse>) {
  const sent = Date.now();
  const res = await call();
  return { res, sent, answered: Date.now() };
}

describe('30 POSTs a minute, on every POST route', () => {
  it('answers the 31st POST /webhooks with 429 rate_limited and Retry-After, and leaves the webhook as the 30th set it', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const { apiKey } = await t.user();
      const statuses: number[] = [];
      for (let i = 1; i <= 30; i++) statuses.push((await t.api('POST', '/webhooks', { key: apiKey, body: { url: `https://93.184.215.14/hook-${i}` } })).status);
      const last = await timed(() => t.api('POST', '/webhooks', { key: apiKey, body: { url: 'https://93.184.215.14/hook-31' } }));
      return { apiKey, statuses, last };
    });
    assert.deepEqual(new Set(result.statuses), new Set([201]));
    assertRateLimited(result.last.res, windowStart, result.last.sent, result.last.answered, 'the 31st POST /webhooks');
    const listed = await t.api('GET', '/webhooks', { key: result.apiKey });
    assert.equal(listed.status, 200, 'GET is not limited');
    assert.deepEqual(
      listed.body.data.map((w: { url: string }) => w.url),
      ['https://93.184.215.14/hook-30'],
    );
  });

  it('answers the 31st POST /videos/{id}/review with 429 rate_limited, counting the other POST routes in the same minute', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const { apiKey } = await t.user({ balance: 200 });
      const created = await t.api('POST', '/videos:quick', { key: apiKey, body: quick });
      const webhook = await t.api('POST', '/webhooks', { key: apiKey, body: { url: 'https://93.184.215.14/hook' } });
      const reviews: number[] = [];
      // The order is queued, not awaiting review: each review is refused with 409, and still counted.
      for (let i = 0; i < 28; i++)
        reviews.push((await t.api('POST', `/videos/${created.body.id}/review`, { key: apiKey, body: { action: 'approve' } })).status);
      const review = await timed(() => t.api('POST', `/videos/${created.body.id}/review`, { key: apiKey, body: { action: 'approve' } }));
      const hook = await timed(() => t.api('POST', '/webhooks', { key: apiKey, body: { url: 'https://93.184.215.14/other' } }));
      const order = await timed(() => t.api('POST', '/videos:quick', { key: apiKey, body: quick }));
      return { apiKey, id: created.body.id, statuses: [created.status, webhook.status], reviews, review, hook, order };
    });
    assert.deepEqual(result.statuses, [201, 201]);
    assert.deepEqual(new Set(result.reviews), new Set([409]), 'POSTs 3..30: reviews of an order that does not wait');
    assertRateLimited(result.review.res, windowStart, result.review.sent, result.review.answered, 'the 31st POST, a review');
    assertRateLimited(result.hook.res, windowStart, result.hook.sent, result.hook.answered, 'a webhook after it');
    assertRateLimited(result.order.res, windowStart, result.order.sent, result.order.answered, 'a creation after it');
    assert.equal(await balanceOf(result.apiKey), 100, 'the refused creation charged nothing');
    assert.equal((await t.api('GET', `/videos/${result.id}`, { key: result.apiKey })).body.status, 'queued');
  });
});
