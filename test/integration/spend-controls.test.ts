/**
 * Spend controls (issue 30, item 4) on the local stack: a key's monthly spend limit refuses a creation that would pass
 * it with 402 spend_limit_exceeded before any charge, also when creations race near it; POST /balance/alerts sets a
 * low-balance threshold, and balance.low reaches a real receiver once per crossing, verified by the standardwebhooks
 * package, again only after a top-up lifts the balance to the threshold and a charge crosses it again. Director-mode
 * orders stop at their review, so the balance moves only as the test moves it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { aws } from '../../functions/adapters/aws.ts';
import { services } from '../../functions/app/services.ts';
import { type Hit, receiver } from '../support/receiver.ts';
import { type ApiResponse, errorCode, useStack } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', LIMIT_ACTIVE_TASKS: '50', LIMIT_POSTS_PER_MINUTE: '1000' });
const accounts = () => services().stores.accounts;
const order = (key: string, topic = 'Green tea') => t.api('POST', '/videos', { key, body: { topic, director_mode: true } });
const month = () => new Date().toISOString().slice(0, 7);

async function until<T>(find: () => T | undefined, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const found = find();
    if (found !== undefined) return found;
  }
  throw new Error('timed out waiting');
}
const charges = async (key: string) =>
  ((await t.api('GET', '/balance/transactions?limit=100', { key })).body.data as { kind: string }[]).filter((e) => e.kind === 'charge').length;

describe('the monthly spend limit', () => {
  it('refuses a creation past it with 402 spend_limit_exceeded, nothing charged; a refund within the month makes room', async () => {
    const { userId, apiKey: key } = await t.user({ balance: 1000 });
    await accounts().setSpendLimit(userId, 250);
    const first = await order(key);
    const second = await order(key);
    assert.deepEqual([first.status, second.status], [201, 201]);
    const before = (await t.api('GET', '/balance', { key })).body;
    assert.deepEqual(before.spend, { month: month(), spent: 200, limit: 250 });
    const ledger = await charges(key);

    const refused = await order(key, 'Coffee');
    assert.equal(refused.status, 402, refused.text);
    assert.equal(errorCode(refused), 'spend_limit_exceeded');
    assert.match(refused.body.error.message, /spent 200 of its monthly spend limit of 250/);
    // A quote says the price; an order with it is refused alike.
    const quote = await t.api('POST', '/videos:quote', { key, body: { topic: 'Coffee', director_mode: true } });
    assert.equal(quote.status, 200, quote.text);
    const quoted = await t.api('POST', '/videos', { key, body: { topic: 'Coffee', director_mode: true, quote_id: quote.body.quote_id } });
    assert.equal(errorCode(quoted), 'spend_limit_exceeded');
    assert.deepEqual((await t.api('GET', '/balance', { key })).body, before, 'balance and spend unchanged');
    assert.equal(await charges(key), ledger, 'no ledger entry');

    // A cancel refunds within the month: the spend is given back, and the next order fits.
    assert.equal((await t.api('POST', `/videos/${first.body.id}/cancel`, { key })).status, 200);
    assert.equal((await t.api('GET', '/balance', { key })).body.spend.spent, 100);
    assert.equal((await order(key)).status, 201);
    // Removed, the limit no longer refuses.
    await accounts().setSpendLimit(userId, undefined);
    assert.equal((await order(key)).status, 201);
    assert.deepEqual((await t.api('GET', '/balance', { key })).body.spend, { month: month(), spent: 300 });
  });

  it('holds when creations race near it: never passed, every refusal charges nothing', async () => {
    const { userId, apiKey: key } = await t.user({ balance: 5000 });
    await accounts().setSpendLimit(userId, 550);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => order(key, `Tea ${i}`)));
    const created = answers.filter((a) => a.status === 201).length;
    for (const a of answers.filter((x) => x.status !== 201)) {
      // 503 when the account stayed busy past the creation's retries (it says to retry); never anything else.
      assert.ok(['spend_limit_exceeded', 'service_unavailable'].includes(errorCode(a)), a.text);
    }
    const balance = (await t.api('GET', '/balance', { key })).body;
    assert.ok(created <= 5 && created >= 1, `${created} created`);
    assert.ok(
      answers.some((a) => a.status === 402),
      'some were refused for the limit',
    );
    assert.deepEqual([balance.spend.spent, balance.balance, await charges(key)], [100 * created, 5000 - 100 * created, created]);
  });
});

describe('the low-balance alert', () => {
  it('sends balance.low once per crossing, signed; again only after a top-up lifts the balance to the threshold', async () => {
    const { userId, apiKey: key } = await t.user({ balance: 500 });
    const r = await receiver();
    const hook = (await t.api('POST', '/webhooks', { key, body: { url: r.url } })).body;
    const set = await t.api('POST', '/balance/alerts', { key, body: { below: 300 } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.low_balance_alert, { below: 300, sent: false });

    const lows = () => r.hits.filter((h) => h.headers['x-service-event'] === 'balance.low');
    const bodyOf = (h: Hit) =>
      new StandardWebhook(hook.secret).verify(h.raw.toString('utf8'), Object.fromEntries(Object.entries(h.headers).map(([k, v]) => [k, String(v)]))) as Record<
        string,
        unknown
      >;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await order(key)).body.id);
    // 400, 300 (not below), 200: the third crosses.
    const first = await until(() => lows()[0]);
    const body = bodyOf(first);
    assert.deepEqual(body, {
      id: `${userId}:balance.low:1`,
      object: 'event',
      type: 'balance.low',
      balance: 200,
      threshold: 300,
      order_id: ids[2],
      created_at: body.created_at,
      livemode: true,
    });
    assert.equal(first.headers['webhook-id'], body.id);
    assert.equal((await t.api('GET', '/balance', { key })).body.low_balance_alert.sent, true);

    // A further charge below it: no second event. A top-up short of the threshold does not re-arm it; one to it does.
    assert.equal((await order(key)).status, 201);
    await accounts().topUp(userId, 50, new Date());
    assert.equal((await order(key)).status, 201);
    await accounts().topUp(userId, 250, new Date());
    assert.deepEqual((await t.api('GET', '/balance', { key })).body.low_balance_alert, { below: 300, sent: false });
    const crossing = (await order(key)).body.id;
    const second = await until(() => lows()[1]);
    assert.deepEqual(((b) => [b.id, b.balance, b.order_id])(bodyOf(second)), [`${userId}:balance.low:2`, 200, crossing]);
    await new Promise((ok) => setTimeout(ok, 1500));
    assert.equal(lows().length, 2, 'once per crossing');

    // Listed among the deliveries (no order_id), and resendable by its id.
    const attempts = (await t.api('GET', `/webhooks/${hook.id}/deliveries`, { key })).body.data as Record<string, unknown>[];
    const listed = attempts.filter((a) => a.event === 'balance.low');
    assert.deepEqual(
      listed.map((a) => [a.event_id, a.outcome, 'order_id' in a]),
      [
        [`${userId}:balance.low:2`, 'delivered', false],
        [`${userId}:balance.low:1`, 'delivered', false],
      ],
    );
    const resend = await t.api('POST', `/webhooks/${hook.id}/resend`, { key, body: { event_id: `${userId}:balance.low:1` } });
    assert.equal(resend.status, 202, resend.text);
    const again = await until(() => lows()[2]);
    assert.deepEqual([again.headers['webhook-id'], bodyOf(again).balance], [`${userId}:balance.low:1`, 200]);

    // Removed: no alert shown, and no event on a charge below the old threshold.
    const removed = await t.api('POST', '/balance/alerts', { key, body: { below: null } });
    assert.deepEqual([removed.status, removed.body.low_balance_alert], [200, undefined]);
  });

  it('records balance.low once when the alert is set between a creation’s account read and its commit', async () => {
    const { userId, apiKey: key } = await t.user({ balance: 350 });
    const r = await receiver();
    await t.api('POST', '/webhooks', { key, body: { url: r.url } });
    // The creation read the account with no alert (so no crossing) when it sends its transaction: the alert is set
    // just before that transaction reaches DynamoDB, through the API, by a hook on the service's own client.
    const { ddb } = aws();
    const name = 'alert-between-read-and-commit';
    const commits: unknown[] = [];
    let set: ApiResponse | undefined;
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const items = (args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems;
        const creation = context.commandName === 'TransactWriteItemsCommand' && items?.[0]?.Put?.Item?.userId === userId;
        if (creation && commits.push(items) === 1) set = await t.api('POST', '/balance/alerts', { key, body: { below: 300 } });
        return next(args);
      },
      { step: 'initialize', name },
    );
    let created: ApiResponse;
    try {
      created = await order(key);
    } finally {
      ddb.middlewareStack.remove(name);
    }
    assert.deepEqual([set?.status, created.status], [200, 201]);
    // 350 - 100 = 250, below the threshold set meanwhile: the crossing recorded with the charge, once (one crossing
    // counted, no event beside the first: a crossing's id is its number), and delivered.
    const account = (await accounts().get(userId))!;
    assert.deepEqual([account.balance, account.lowAlertSent, account.lowAlerts], [250, true, 1]);
    assert.equal(await services().stores.events.get(userId, `${userId}:balance.low:2`), undefined);
    assert.equal(commits.length, 2, 'the stale commit refused, the order priced again');
    const low = await until(() => r.hits.find((h) => h.headers['x-service-event'] === 'balance.low'));
    assert.deepEqual(((b) => [b.id, b.balance, b.threshold, b.order_id])(JSON.parse(low.raw.toString('utf8'))), [
      `${userId}:balance.low:1`,
      250,
      300,
      created.body.id,
    ]);
  });

  it('refuses a bad threshold with 422 naming below, and another key cannot see the alert', async () => {
    const { apiKey: key } = await t.user({ balance: 100 });
    for (const body of [{}, { below: 0 }, { below: -5 }, { below: 1.5 }, { below: '100' }, { below: 1e12 }, { below: true }]) {
      const res = await t.api('POST', '/balance/alerts', { key, body });
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(errorCode(res), 'invalid_params');
      assert.match(res.body.error.message, /^below/, res.body.error.message);
    }
    assert.equal((await t.api('POST', '/balance/alerts', { key, rawBody: 'below=5', headers: { 'content-type': 'application/json' } })).status, 400);
    assert.equal((await t.api('POST', '/balance/alerts', { body: { below: 5 } })).status, 401);
    assert.equal((await t.api('GET', '/balance', { key })).body.low_balance_alert, undefined);
  });
});
