/**
 * A cancelled creation transaction is retried only when another transaction held one of its items. Any other reason
 * is thrown at the first attempt: a lasting one (ValidationError, an order id already taken) as the 500 the operators'
 * alarm sees, a throttle as the transient failure the API answers 503. DynamoDB Local cancels the real ones below; it
 * never throttles, so that one is answered by a middleware in front of it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { errorCode, useStack } from '../support/stack.ts';

// The API alone: executions are held, so no video renders in the background.
const t = useStack({ LOCAL_SFN_HOLD: '1', LIMIT_ACTIVE_TASKS: '20', LIMIT_POSTS_PER_MINUTE: '100' });
const BODY = { topic: 'Green tea', duration_seconds: 10 };

const adapters = async () => {
  const [{ aws }, { services }, { keys }] = await Promise.all([
    import('../../functions/adapters/aws.ts'),
    import('../../functions/app/services.ts'),
    import('../../functions/adapters/keys.ts'),
  ]);
  return { ddb: aws().ddb, services: services(), keys };
};

/**
 * Counts the TransactWriteItems calls the service sends, and notes the reasons of each cancellation, from now until
 * the returned function stops it.
 */
async function countTransactions(): Promise<{ calls: () => number; reasons: string[][]; stop: () => void }> {
  const { ddb } = await adapters();
  let calls = 0;
  const reasons: string[][] = [];
  const name = `count-transactions-${Math.random()}`;
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      calls++;
      try {
        return await next(args);
      } catch (err) {
        if (err instanceof TransactionCanceledException) reasons.push((err.CancellationReasons ?? []).map((r) => r.Code ?? ''));
        throw err;
      }
    },
    { step: 'initialize', name },
  );
  return { calls: () => calls, reasons, stop: () => void ddb.middlewareStack.remove(name) };
}

/**
 * Grows an item to the largest size DynamoDB stores: any update that adds to it is then cancelled with the reason
 * ValidationError (the item would exceed 400 KB), while the transaction's other items report None.
 */
async function fillToTheLimit(key: Record<string, string>): Promise<void> {
  const { ddb } = await adapters();
  const tableName = t.stack.env.TABLE_NAME;
  /** Whether an item padded with `length` bytes is stored: DynamoDB refuses a larger one with a ValidationException. */
  const grow = async (length: number) => {
    try {
      await ddb.send(
        new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: 'SET padding = :p', ExpressionAttributeValues: { ':p': 'x'.repeat(length) } }),
      );
      return true;
    } catch (err) {
      if ((err as Error).name === 'ValidationException') return false;
      throw err;
    }
  };
  let [fits, fitsNot] = [0, 410_000];
  assert.equal(await grow(fitsNot), false);
  while (fitsNot - fits > 1) {
    const mid = Math.floor((fits + fitsNot) / 2);
    if (await grow(mid)) fits = mid;
    else fitsNot = mid;
  }
  assert.equal(await grow(fits), true);
}

describe('a cancelled creation transaction', () => {
  it('with the reason ValidationError is thrown at the first attempt: 500, nothing charged, the quote unused', async () => {
    const { services, keys } = await adapters();
    const { userId, apiKey: key } = await t.user({ balance: 1000 });
    const quote = await t.api('POST', '/videos:quote', { key, body: BODY });
    assert.equal(quote.status, 200, quote.text);
    // The creation's update of the quote (SET orderId) then makes it too large.
    await fillToTheLimit(keys.quote(userId, quote.body.quote_id));

    const counter = await countTransactions();
    after(counter.stop);
    const res = await t.api('POST', '/videos', { key, body: { ...BODY, quote_id: quote.body.quote_id } });
    counter.stop();
    assert.deepEqual([res.status, errorCode(res), counter.calls()], [500, 'internal_error', 1]);
    // The quote is the creation's last item; every other one reports None.
    assert.deepEqual(counter.reasons, [['None', 'None', 'None', 'None', 'None', 'None', 'None', 'ValidationError']]);
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000);
    assert.equal((await services.stores.quotes.get(userId, quote.body.quote_id, new Date()))?.orderId, undefined);
  });

  it('on an order id that is taken is thrown, not retried with the same id', async () => {
    const { services } = await adapters();
    const { userId, apiKey: key } = await t.user({ balance: 1000 });
    const created = await t.api('POST', '/videos', { key, body: BODY });
    assert.equal(created.status, 201, created.text);
    const order = (await services.stores.orders.get(created.body.id))!;
    const account = (await services.stores.accounts.get(userId))!;
    // Everything but the order item would commit: the balance and the active-task count still allow a second order.
    const commit = { order, account, limits: services.config.limits, now: new Date() };
    const err = await services.stores.orders.create(commit).then(
      (outcome) => assert.fail(`answered ${JSON.stringify(outcome)}`),
      (e: TransactionCanceledException) => e,
    );
    assert.equal(err.name, 'TransactionCanceledException');
    assert.deepEqual(
      err.CancellationReasons?.map((r) => r.Code),
      ['ConditionalCheckFailed', 'None', 'None', 'None', 'None', 'None'],
    );
    assert.equal((await services.stores.accounts.get(userId))!.balance, 900);
  });

  it('by throttling is thrown at the first attempt as transient: 503 service_unavailable with Retry-After', async () => {
    const { ddb } = await adapters();
    const { apiKey: key } = await t.user({ balance: 1000 });
    const counter = await countTransactions();
    // DynamoDB Local never throttles: the cancellation DynamoDB answers an over-busy item with is made here.
    const name = 'throttle-transactions';
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        const reasons = ((args.input as { TransactItems: unknown[] }).TransactItems ?? []).map((_, i) => ({ Code: i === 2 ? 'ThrottlingError' : 'None' }));
        throw new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: { httpStatusCode: 400 }, CancellationReasons: reasons });
      },
      { step: 'initialize', name },
    );
    try {
      const res = await t.api('POST', '/videos', { key, body: BODY });
      assert.deepEqual([res.status, errorCode(res), counter.calls()], [503, 'service_unavailable', 1]);
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    } finally {
      counter.stop();
      ddb.middlewareStack.remove(name);
    }
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000);
  });
});
