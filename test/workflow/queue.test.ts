/**
 * The render queue on the local stack with one slot: five orders, three of them through one API key (its limit here;
 * the spec's 10 is tested in test/integration/api.test.ts) and two from the bot; every order is rendered, one at a
 * time, in the admission order, each charged once.
 * BOT_RUN_BEFORE_API=1 makes the starvation rule visible with few orders: after one bot admission a waiting API
 * order goes next, even while bot orders still wait. The first API order renders while the bot's arrive and two wait:
 * the bot's first goes before both, one of them between the bot's two. Videos of the shortest length, with no voice
 * or music: the order of the renders is tested, not what they show.
 * Then the sharded queue's adapter on the same DynamoDB Local (a table of its own): 16 slots in 4 shards, admissions in
 * different shards at once with no transaction conflict, steals across shards, and the eta read of the shards' state
 * items only (no query of a wait's partition).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/adapters/keys.ts';
import { orderShard, RenderQueue, waitingIn } from '../../functions/core/capacity.ts';
import { QueueViews, waitingOf } from '../../functions/core/eta.ts';
import { ensureTable } from '../../local/dynamodb.ts';
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
    const ledger = await services().stores.accounts.ledger(userId);
    assert.equal(ledger.filter((l) => l.kind === 'charge').length, LIMIT + 2, 'one charge per order');
    assert.equal(ledger.filter((l) => l.kind === 'refund').length, 0, 'no refund: nothing failed');
    assert.equal((await services().stores.accounts.get(userId))!.activeTasks, 0);
  });

  it('admits in parallel in different shards with no conflict, steals across shards, and reads eta from the shard states only', async () => {
    // The adapters read the stack's settings: imported once it runs.
    const [{ config }, { Capacity, shardReader }] = await Promise.all([
      import('../../functions/adapters/config.ts'),
      import('../../functions/adapters/capacity.ts'),
    ]);
    // A table of its own on the stack's DynamoDB Local: the stack's sweep keeps to its one slot of the other.
    const TABLE = 'queue-shards';
    const { region, endpoints } = config();
    const raw = new DynamoDBClient({ region, ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb } : {}) });
    await ensureTable(raw, TABLE);
    const sent: { command: string; input: any }[] = [];
    const cancellations: string[] = [];
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push({ command: context.commandName!, input: args.input });
        try {
          return await next(args);
        } catch (err) {
          const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
          cancellations.push(...reasons.map((r) => r.Code ?? 'None').filter((c) => c !== 'None'));
          throw err;
        }
      },
      { step: 'initialize', name: 'recordQueueCalls' },
    );
    const store = new Capacity(DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }), TABLE);
    const SLOTS = 16;
    const SHARDS = 4;
    const woken = new Map<string, number>();
    const wakeup = { wake: async (token: string, slot: number) => Boolean(woken.set(token, slot)) };
    const q = new RenderQueue({ store, wakeup, slots: SLOTS, shards: SHARDS, leaseSeconds: 600, botRun: 3, now: () => new Date() });
    // Order ids (as ULIDs sort) by the shard they hash to.
    let seq = 0;
    const idIn = (shard: number) => {
      for (;;) {
        const id = `vid_01k${String(seq++).padStart(23, '0')}`;
        if (orderShard(id, SHARDS) === shard) return id;
      }
    };
    const shards = [0, 1, 2, 3];
    const awaitOne = (id: string) => q.awaitSlot({ id, channel: 'api', userId: id, videoSeconds: 10 }, `t-${id}`);

    // Six rounds of one order per shard at once: four fill each shard's four slots, two wait in each.
    const rounds = Array.from({ length: 6 }, () => shards.map(idIn));
    for (const round of rounds) await Promise.all(round.map(awaitOne));
    assert.deepEqual(cancellations, [], 'no admission met another: each shard writes only its own items');
    const admitted = rounds.slice(0, 4).flat();
    assert.deepEqual(
      admitted.map((id) => woken.get(`t-${id}`)! % SHARDS),
      admitted.map((id) => orderShard(id, SHARDS)),
      'each order got a slot of its own shard',
    );
    const states = await store.states(shards);
    assert.deepEqual(
      states.map((s) => [s.busy, waitingIn(s, 'api')]),
      shards.map(() => [4, 2]),
    );

    // eta_seconds of an order: one batch read of its own shard's state item, no query of a wait's partition.
    sent.length = 0;
    const views = new QueueViews(shardReader(store, { slots: SLOTS, shards: SHARDS }), { shards: SHARDS, botRun: 3, defaultSecondsPerVideoSecond: 0.5 }, 2000);
    const waiting = rounds[5]![2]!;
    const view = await views.view([{ id: waiting }]);
    assert.equal(waitingOf(view, 'api'), 2, 'its own shard only');
    assert.deepEqual(
      sent.map((c) => c.command),
      ['BatchGetItemCommand'],
    );
    assert.deepEqual(
      (Object.values(sent[0]!.input.RequestItems)[0] as { Keys: { PK: unknown }[] }).Keys.map((k) => k.PK),
      [keys.queueState(orderShard(waiting, SHARDS)).PK],
    );

    // One release per shard at once: each hands its slot to its own shard's next order, again with no conflict.
    await Promise.all(shards.map((k) => q.release(rounds[0]![k]!, true)));
    assert.deepEqual(cancellations, []);
    assert.deepEqual(
      rounds[4]!.map((id) => woken.get(`t-${id}`)! % SHARDS),
      shards,
    );

    // Shard 1 runs dry and frees its slots while the others' orders still wait: two of them take shard 1's slots
    // (steals), each release reading two of the three other shards at random and taking the one with more waiting.
    for (const id of rounds.slice(1, 4).map((r) => r[1]!)) await q.release(id, true);
    const slotShard = (k: number) => {
      const slot = woken.get(`t-${rounds[5]![k]!}`);
      return slot === undefined ? undefined : slot % SHARDS;
    };
    assert.equal(slotShard(1), 1, 'shard 1 served its own last order first');
    const stolen = [0, 2, 3].filter((k) => slotShard(k) === 1);
    assert.equal(stolen.length, 2, `then two other shards' orders: ${[0, 2, 3].map(slotShard).join(', ')}`);
    assert.ok(
      [0, 2, 3].every((k) => slotShard(k) === 1 || slotShard(k) === undefined),
      'none taken by a slot of a shard that was full',
    );
    const after = await store.states(shards);
    assert.deepEqual(
      after.map((s) => waitingIn(s, 'api')),
      shards.map((k) => (k === 1 || stolen.includes(k) ? 0 : 1)),
    );
    assert.equal(
      after.reduce((n, s) => n + s.busy, 0),
      (await store.slots(Array.from({ length: SLOTS }, (_, n) => n))).filter((s) => s.holder).length,
      'the busy counters count the held slots',
    );
  });
});
