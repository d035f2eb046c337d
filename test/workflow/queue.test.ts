/**
 * The render queue on the local stack with one slot: five orders, three of them through one API key (its limit here;
 * the spec's 10 is tested in test/integration/api.test.ts) and two from the bot; every order is rendered, one at a
 * time, in the admission order, each charged once.
 * BOT_RUN_BEFORE_API=1 makes the starvation rule visible with few orders: after one bot admission a waiting API
 * order goes next, even while bot orders still wait. The first API order renders while the bot's arrive and two wait:
 * the bot's first goes before both, one of them between the bot's two. Videos of the shortest length, with no voice
 * or music: the order of the renders is tested, not what they show.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const LIMIT = 3;
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' };
const t = useStack({ RENDER_SLOTS: '1', BOT_RUN_BEFORE_API: '1', QUEUE_SNAPSHOT_MS: '0', LIMIT_ACTIVE_TASKS: String(LIMIT) });

describe('the render queue with one slot', () => {
  it('renders a later bot order before the waiting API orders, lets the API advance among bot orders, and fails none', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 100_000, trialVideos: 0 });
    const api: string[] = [];
    const etas: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const r = await t.api('POST', '/videos', { key, body: { topic: `Tea number ${i}`, ...VIDEO } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      api.push(r.body.id);
      etas.push(r.body.eta_seconds);
    }
    assert.ok(etas[LIMIT - 1]! > etas[0]!, `eta_seconds grows with the queue ahead: ${etas.join(', ')}`);
    const over = await t.api('POST', '/videos', { key, body: { topic: 'One too many', ...VIDEO } });
    assert.deepEqual([over.status, over.body.error.code], [429, 'active_tasks_exceeded'], 'the key keeps its limit');

    // The bot places two orders for the same account while the API orders wait.
    const { handler: placeOrder } = await import('../../functions/bot/place-order.ts');
    const { lambdaContext } = await import('../../local/gateway.ts');
    const bot: string[] = [];
    for (const topic of ['Bot tea one', 'Bot tea two']) {
      const placed = await placeOrder({ user_id: userId, topic, params: VIDEO }, lambdaContext('place-order'));
      assert.ok('id' in placed, JSON.stringify(placed));
      bot.push(placed.id);
    }
    const waitingWhenBotCame = [];
    for (const id of api) if ((await t.api('GET', `/videos/${id}`, { key })).body.status === 'queued') waitingWhenBotCame.push(id);
    // All but the one rendering; two at least, for the estimates below.
    assert.ok(waitingWhenBotCame.length >= 2, `API orders were waiting: ${waitingWhenBotCame.length}`);
    // A GET gives the queue's estimate now: the later an order waits in the queue, the later it is expected.
    const etaNow = async (id: string) => (await t.api('GET', `/videos/${id}`, { key })).body.eta_seconds as number;
    const [nearer, farther] = [await etaNow(waitingWhenBotCame[0]!), await etaNow(waitingWhenBotCame.at(-1)!)];
    assert.ok(farther > nearer, `eta of the last waiting order ${farther} s, of the first ${nearer} s`);

    const finished = new Map<string, number>();
    for (const id of [...api, ...bot]) {
      const order = await waitForStatus(t, key, id, ['done', 'error'], 240_000);
      assert.equal(order.status, 'done', JSON.stringify(order));
      finished.set(id, Date.parse(order.updated_at));
    }
    const ranked = [...finished].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    const place = (id: string) => ranked.indexOf(id);
    const firstWaiting = Math.min(...waitingWhenBotCame.map(place));
    assert.ok(place(bot[0]!) < firstWaiting, 'the first bot order went before every API order that was waiting');
    assert.ok(
      waitingWhenBotCame.some((id) => place(id) > place(bot[0]!) && place(id) < place(bot[1]!)),
      'an API order was admitted while the second bot order still waited',
    );
    const { services } = await import('../../functions/app/services.ts');
    const ledger = await services().accounts.ledger(userId);
    assert.equal(ledger.filter((l) => l.kind === 'charge').length, LIMIT + 2, 'one charge per order');
    assert.equal(ledger.filter((l) => l.kind === 'refund').length, 0, 'no refund: nothing failed');
    assert.equal((await services().accounts.get(userId))!.activeTasks, 0);
  });
});
