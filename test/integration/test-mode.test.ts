/**
 * Test-mode keys (issue 30, item 1), on the local stack: a `vgk_test_` key beside a user's live key; its order reaches
 * done at cost 0 with a short real mp4 marked TEST, the live balance and ledger untouched, a `livemode: false` event
 * at the test key's own webhook that standardwebhooks verifies; test and live data never mix.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { TEST_CLIP_SECONDS, TEST_MARK } from '../../functions/generator/test-clip.ts';
import { foldForOcr, ocrMissing, probe, readText } from '../support/media.ts';
import { receiver } from '../support/receiver.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });
const accounts = async () => (await import('../../functions/app/services.ts')).services().stores.accounts;

async function until<T>(find: () => T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('test-mode keys', () => {
  it('run an order to done at cost 0, moving no money, with a livemode:false event at their own webhook', async () => {
    const { userId, apiKey: live } = await t.user({ balance: 1000, trialVideos: 1 });
    const { apiKey: test, testAccountId } = await (await accounts()).issueTestKey(userId, new Date());
    assert.match(test, new RegExp(`^vgk_test_${testAccountId}_`));
    const [liveHook, testHook] = [await receiver(), await receiver()];
    await t.api('POST', '/webhooks', { key: live, body: { url: liveHook.url } });
    const testWebhook = (await t.api('POST', '/webhooks', { key: test, body: { url: testHook.url } })).body;
    const secret = testWebhook.secret as string;
    const liveBefore = [(await t.api('GET', '/balance', { key: live })).body, (await t.api('GET', '/balance/transactions', { key: live })).body];

    const quoted = await t.api('POST', '/videos:quote', { key: test, body: { topic: 'Green tea', placement: { product: 'Tea set' } } });
    assert.equal(quoted.status, 200, quoted.text);
    assert.deepEqual([quoted.body.cost, quoted.body.breakdown.base, quoted.body.breakdown.extras.placement], [0, 0, 0]);
    const created = await t.api('POST', '/videos:quick', { key: test, body: { prompt: 'A calm video about green tea' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.cost, 0);
    const done = await waitForStatus(t, test, created.body.id, ['done', 'error']);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.deepEqual([done.livemode, done.cost, done.trial, done.charge], [false, 0, false, { amount: 0, trial: false, plan_allowance: false }]);

    // A real mp4, short, marked TEST at its first and last frame.
    const file = join(mkdtempSync(join(tmpdir(), 'test-mode-')), 'video.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(done.result_url)).arrayBuffer()));
    const p = probe(file);
    assert.deepEqual([p.video.width, p.video.height, Math.round(p.duration)], [1080, 1920, TEST_CLIP_SECONDS]);
    if (!ocrMissing) {
      for (const at of [0, TEST_CLIP_SECONDS - 0.2]) assert.match(foldForOcr(readText(file, at, TEST_MARK.band, 'light')), /test/, `TEST at ${at} s`);
    }

    // The live account: balance, trial and ledger as they were; the test account: no money, no entries.
    assert.deepEqual([(await t.api('GET', '/balance', { key: live })).body, (await t.api('GET', '/balance/transactions', { key: live })).body], liveBefore);
    const testBalance = (await t.api('GET', '/balance', { key: test })).body;
    assert.deepEqual([testBalance.balance, testBalance.trial_videos_left, testBalance.livemode, testBalance.spend.spent], [0, 0, false, 0]);
    assert.deepEqual((await t.api('GET', '/balance/transactions', { key: test })).body.data, []);

    const hit = await until(() => testHook.hits.find((h) => h.headers['x-service-event'] === 'video.done'));
    const headers = Object.fromEntries(Object.entries(hit.headers).map(([k, v]) => [k, String(v)]));
    const body = new StandardWebhook(secret).verify(hit.raw.toString('utf8'), headers) as { id: string; livemode: boolean; cost: number };
    assert.deepEqual([body.id, body.livemode, body.cost], [created.body.id, false, 0]);
    assert.equal((await t.api('POST', `/webhooks/${testWebhook.id}/test`, { key: test })).body.delivered, true);
    const ping = JSON.parse(testHook.hits.at(-1)!.raw.toString('utf8'));
    assert.deepEqual([ping.type, ping.livemode], ['webhook.test', false]);
    assert.equal(liveHook.hits.length, 0, 'nothing at the live webhook');
  });

  it('keep test and live orders, webhooks and reads apart', async () => {
    const { userId, apiKey: live } = await t.user({ balance: 1000 });
    const { apiKey: test } = await (await accounts()).issueTestKey(userId, new Date());
    const liveOrder = (await t.api('POST', '/videos', { key: live, body: { topic: 'Live tea', director_mode: true } })).body;
    const testOrder = (await t.api('POST', '/videos', { key: test, body: { topic: 'Test tea', director_mode: true } })).body;
    assert.equal(liveOrder.cost, 100);
    assert.equal(testOrder.cost, 0);
    const ids = async (key: string) =>
      ((await t.api('GET', '/videos', { key })).body.data as { id: string; livemode: boolean }[]).map((o) => [o.id, o.livemode]);
    assert.deepEqual(await ids(live), [[liveOrder.id, true]]);
    assert.deepEqual(await ids(test), [[testOrder.id, false]]);
    for (const [key, id] of [
      [test, liveOrder.id],
      [live, testOrder.id],
    ] as const) {
      for (const [method, path] of [
        ['GET', `/videos/${id}`],
        ['POST', `/videos/${id}/cancel`],
      ] as const) {
        const res = await t.api(method, path, { key });
        assert.equal(res.status, 403, `${method} ${path} with the other mode's key`);
      }
    }
    const liveHook = (await t.api('POST', '/webhooks', { key: live, body: { url: 'http://127.0.0.1:9/live' } })).body;
    assert.deepEqual((await t.api('GET', '/webhooks', { key: test })).body.data, [], "the live key's webhook is not the test key's");
    assert.equal((await t.api('DELETE', `/webhooks/${liveHook.id}`, { key: test })).status, 403);
    assert.equal((await t.api('GET', '/balance', { key: live })).body.balance, 900, 'only the live order was charged');
  });

  it('show an order in error a refund of 0 with its reason and time, in GET and in video.error, moving no money', async () => {
    const { userId, apiKey: live } = await t.user({ balance: 1000 });
    const { apiKey: test } = await (await accounts()).issueTestKey(userId, new Date());
    const hook = await receiver();
    const secret = (await t.api('POST', '/webhooks', { key: test, body: { url: hook.url } })).body.secret as string;
    const liveBefore = (await t.api('GET', '/balance/transactions', { key: live })).body;
    const created = await t.api('POST', '/videos', { key: test, body: { topic: 'Test tea', director_mode: true } });
    assert.equal(created.status, 201, created.text);
    await waitForStatus(t, test, created.body.id, ['awaiting_review']);
    const canceled = await t.api('POST', `/videos/${created.body.id}/cancel`, { key: test });
    assert.equal(canceled.status, 200, canceled.text);
    const order = (await t.api('GET', `/videos/${created.body.id}`, { key: test })).body;
    assert.deepEqual([order.status, order.livemode, order.charge.amount], ['error', false, 0]);
    assert.deepEqual(order.refund, { amount: 0, reason: 'canceled', at: order.finished_at });
    assert.deepEqual(canceled.body.refund, order.refund, "the cancel's answer shows it too");
    const hit = await until(() => hook.hits.find((h) => h.headers['x-service-event'] === 'video.error'));
    const headers = Object.fromEntries(Object.entries(hit.headers).map(([k, v]) => [k, String(v)]));
    const body = new StandardWebhook(secret).verify(hit.raw.toString('utf8'), headers) as { id: string; refund: unknown };
    assert.deepEqual([body.id, body.refund], [order.id, order.refund]);
    // Nothing moved: no transaction in either account.
    assert.deepEqual((await t.api('GET', '/balance/transactions', { key: test })).body.data, []);
    assert.deepEqual((await t.api('GET', '/balance/transactions', { key: live })).body, liveBefore);
  });

  it('are issued beside the live key, each reissue replacing only the test key, and never for a test-mode account', async () => {
    const store = await accounts();
    const { userId, apiKey: live } = await t.user({ balance: 50 });
    const first = await store.issueTestKey(userId, new Date());
    const second = await store.issueTestKey(userId, new Date());
    assert.equal(second.testAccountId, first.testAccountId, 'one test-mode account per user');
    assert.equal((await t.api('GET', '/balance', { key: first.apiKey })).status, 401, 'the reissued test key replaced the first');
    assert.equal((await t.api('GET', '/balance', { key: second.apiKey })).status, 200);
    assert.equal((await t.api('GET', '/balance', { key: live })).status, 200, 'the live key still works');
    // A live-looking key for the test-mode account, or a test key named after the live one, opens nothing.
    const forged = second.apiKey.replace('vgk_test_', 'vgk_');
    assert.equal((await t.api('GET', '/balance', { key: forged })).status, 401);
    await assert.rejects(store.issueKey(first.testAccountId, new Date()), /test-mode account/);
    await assert.rejects(store.issueTestKey(first.testAccountId, new Date()), /test-mode account/);
    await assert.rejects(store.topUp(first.testAccountId, 100, new Date()), /no balance to top up/);
    // Limits apply as for live keys: a test order costs nothing, but a malformed one is still refused.
    const bad = await t.api('POST', '/videos', { key: second.apiKey, body: { topic: '' } });
    assert.deepEqual([bad.status, errorCode(bad)], [422, 'invalid_params']);
    // A deletion cut short after the test-mode account went: a new test key makes a new one, and the deletion runs again.
    await store.deletePartition(second.testAccountId);
    const third = await store.issueTestKey(userId, new Date());
    assert.notEqual(third.testAccountId, second.testAccountId);
    assert.equal((await t.api('GET', '/balance', { key: third.apiKey })).body.livemode, false);
    await store.deletePartition(third.testAccountId);
    const { deleteUser } = await import('../../functions/core/admin.ts');
    const { services } = await import('../../functions/app/services.ts');
    assert.deepEqual(await deleteUser(services().stores, userId), { orders: 0, files: 0 });
    assert.equal(await store.get(userId), undefined, 'the live account went too');
  });
});
