/**
 * The lifecycle's random operations against the local stack (the in-memory model's twin: test/domain/lifecycle-model):
 * LIFECYCLE_STACK_OPS operations (100 in npm test, 1,000 at full scale) drawn by fast-check from a seed (LIFECYCLE_STACK_SEED replays one)
 * by three keys through the API, the operator's top-ups and plan changes, the sweep, deadlines brought forward, the
 * webhook receiver going away and back, with half the orders failing in the generator. After every operation
 * the answer must be the contract's (no 5xx, the envelope on errors) and the key's money must add up; every 20th, and
 * at rest, every invariant of the model is read back from the stores. At rest every order has ended and every event
 * has settled, and no event got more requests than its attempts allow.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Capacity } from '../../functions/adapters/capacity.ts';
import { aws } from '../../functions/adapters/aws.ts';
import { config } from '../../functions/adapters/config.ts';
import { waitingIn } from '../../functions/core/capacity.ts';
import { MAX_ATTEMPTS } from '../../functions/core/deliveries.ts';
import { awaitsApproval, countsAgainstKey, isActiveTask, MAX_REGENS, type Order } from '../../functions/core/orders.ts';
import { type ApiResponse, useStack } from '../support/stack.ts';

const SLOTS = 2;
const LIMITS = { active: 2, reviews: 2 };
const t = useStack({
  RENDER_SLOTS: String(SLOTS),
  // A shard per slot: admissions across the shards (steals) on the real stack.
  RENDER_QUEUE_SHARDS: '2',
  LIMIT_ACTIVE_TASKS: String(LIMITS.active),
  LIMIT_REVIEWS_PENDING: String(LIMITS.reviews),
  // The POST limit is tested on its own; here it would refuse most of a run that posts many times a second.
  LIMIT_POSTS_PER_MINUTE: '1000',
  GENERATOR_FAIL: 'random:0.5',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
  WEBHOOK_RETRY_BASE_MS: '100',
  REVIEW_DEADLINE_SECONDS: '30',
  SWEEP_SECONDS: '3600',
  SWEEP_GRACE_SECONDS: '0',
});
const services = async () => (await import('../../functions/app/services.ts')).services();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * 100 operations in npm test: each kind of operation a few times on every run (about 4 of the rarest), against the
 * real stack, the answers checked after each and every invariant read back 5 times and at rest; a new seed each run,
 * so runs add up. 1,000 in the full reliability run (npm run test:reliability): one long sequence, in which the
 * limits, the review bound, the regen cap, deadlines and resends meet each other many times over.
 */
const OPS = Number(process.env.LIFECYCLE_STACK_OPS ?? (process.env.RELIABILITY_SCALE === 'full' ? 1000 : 100));
const SEED = Number(process.env.LIFECYCLE_STACK_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** A webhook receiver on loopback that counts requests by event id, and can be down (503). */
const received = new Map<string, number>();
let receiverUp = true;
let receiver: Server | undefined;
after(() => receiver?.close());

type Op =
  | {
      op: 'create';
      user: number;
      route: 'quick' | 'explicit' | 'director';
      topic: number;
      deadline: boolean;
      maxCost?: number | undefined;
      quote?: number | undefined;
      key?: string | undefined;
    }
  | { op: 'quote'; user: number; route: 'explicit' | 'director'; topic: number }
  | { op: 'review'; user: number; order: number; action: 'approve' | 'edit' | 'regen' }
  | { op: 'cancel'; user: number; order: number }
  | { op: 'topUp'; user: number; amount: number }
  | { op: 'plan'; user: number; heavy?: number }
  | { op: 'sweep' }
  | { op: 'pause'; ms: number }
  | { op: 'deadline'; user: number; order: number }
  | { op: 'get'; user: number; order: number }
  | { op: 'receiver'; up: boolean }
  | { op: 'webhook'; user: number; action: 'register' | 'rotate' | 'delete' | 'test' | 'resendSince' | 'resendOne'; n: number };

const u = fc.nat(2);
/** A value one time in five. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          op: fc.constant('create' as const),
          user: u,
          route: fc.constantFrom('quick' as const, 'explicit' as const, 'director' as const),
          topic: fc.nat(4),
          deadline: fc.boolean(),
          maxCost: sometimes(fc.constantFrom(50, 100, 300)),
          quote: sometimes(fc.nat(5)),
          key: sometimes(fc.constantFrom('k1', 'k2', 'k3')),
        },
        { requiredKeys: ['op', 'user', 'route', 'topic', 'deadline'] },
      )
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as typeof o),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('quote' as const), user: u, route: fc.constantFrom('explicit' as const, 'director' as const), topic: fc.nat(4) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('review' as const),
      user: u,
      order: fc.nat(30),
      action: fc.constantFrom('approve' as const, 'edit' as const, 'regen' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('cancel' as const), user: u, order: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('topUp' as const), user: u, amount: fc.constantFrom(100, 300) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('plan' as const), user: u, heavy: fc.constantFrom(0, 2) }, { requiredKeys: ['op', 'user'] }) },
  { weight: 1, arbitrary: fc.constant({ op: 'sweep' as const }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.constantFrom(50, 200, 500) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('deadline' as const), user: u, order: fc.nat(30) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('get' as const), user: u, order: fc.nat(30) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('receiver' as const), up: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('webhook' as const),
      user: u,
      action: fc.constantFrom('register' as const, 'rotate' as const, 'delete' as const, 'test' as const, 'resendSince' as const, 'resendOne' as const),
      n: fc.nat(20),
    }),
  },
);

const TOPICS = ['Green tea', 'Кофейня у дома', 'Solar panels', 'Cat care', 'Morning run'];

interface Client {
  userId: string;
  key: string;
  orders: string[];
  /** Its director-mode orders, which reviews mostly go to (one time in four, any of its orders). */
  director: string[];
  topUps: number;
}

/** Every answer is the contract's: no 5xx, and an error is the envelope. */
function answered(op: Op, res: ApiResponse): ApiResponse {
  assert.ok(res.status < 500, `${JSON.stringify(op)}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400) assert.equal(typeof res.body?.error?.code, 'string', `${JSON.stringify(op)}: an error in the envelope`);
  return res;
}

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);

describe('the order lifecycle under random operations (local stack)', () => {
  it(`keeps money, limits and capacity over ${OPS} operations`, async () => {
    const ops = fc.sample(fc.array(opArb, { minLength: OPS, maxLength: OPS }), { seed: SEED, numRuns: 1 })[0]!;
    console.log(`lifecycle on the local stack: seed ${SEED} (LIFECYCLE_STACK_SEED replays it)`);
    receiver = createServer((req, res) => {
      const id = String(req.headers['x-service-event-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      req.resume();
      req.on('end', () => res.writeHead(receiverUp ? 204 : 503).end());
    });
    await new Promise<void>((ok) => receiver!.listen(0, '127.0.0.1', ok));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const svc = await services();
    const capacity = new Capacity(aws().ddb, config().tableName);
    const clients: Client[] = [];
    for (const [balance, trialVideos] of [
      [1500, 0],
      [400, 1],
      [800, 0],
    ] as const) {
      const { userId, apiKey } = await t.user({ balance, trialVideos });
      clients.push({ userId, key: apiKey, orders: [], director: [], topUps: balance });
    }
    const charged = new Map<string, number>();
    const quotedCost = new Map<string, number>();
    const quotes: { id: string; cost: number; user: number }[] = [];
    const keys = new Map<string, { orderId: string; body: string }>();
    const resends = new Map<string, number>();
    const counts = new Map<string, number>();
    const tally = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);

    /**
     * The key's account, ledger and orders as of one moment, while the workflows go on: read between two reads of the
     * account that agree (every change of a counter or of the ledger changes the account in the same transaction).
     */
    async function snapshot(c: Client, withOrders: boolean) {
      for (let i = 0; ; i++) {
        const before = await svc.stores.accounts.get(c.userId);
        const [ledger, mine] = await Promise.all([
          svc.stores.accounts.ledger(c.userId),
          withOrders ? Promise.all(c.orders.map((id) => svc.stores.orders.get(id))) : [],
        ]);
        const account = await svc.stores.accounts.get(c.userId);
        if (JSON.stringify(before) === JSON.stringify(account)) return { account: account!, ledger, mine: mine as Order[] };
        assert.ok(i < 50, 'the account kept changing');
      }
    }

    /** The key's money: the balance is the ledger's sum and top-ups - charges + refunds. */
    async function money(c: Client, withOrders = false) {
      const { account, ledger, mine } = await snapshot(c, withOrders);
      const sum = ledger.reduce((a, l) => a + l.amount, 0);
      assert.equal(account!.balance, sum, 'the balance is the ledger sum');
      assert.ok(account!.balance >= 0);
      let spent = 0;
      for (const l of ledger) if (l.kind !== 'top_up') spent -= l.amount;
      assert.equal(account!.balance, c.topUps - spent, 'top-ups - charges + refunds');
      return { account, ledger, mine };
    }

    /** Every invariant of the model, read back from the stores. */
    async function everything() {
      const open = new Set<string>();
      for (let from: string | undefined, first = true; first || from !== undefined; first = false) {
        const page = await svc.stores.orders.openPage(new Date(Date.now() + 3600_000), from, 500);
        for (const { ref } of page.items) open.add(ref.id);
        from = page.next;
      }
      const all: Order[] = [];
      for (const c of clients) {
        const { account, ledger, mine } = await money(c, true);
        all.push(...mine);
        const active = mine.filter((o) => countsAgainstKey(o) && isActiveTask(o.status)).length;
        assert.ok(active <= LIMITS.active, `${active} active orders, over ${LIMITS.active}`);
        assert.equal(account.activeTasks, active, 'the active-task counter');
        const pending = mine.filter((o) => awaitsApproval(o)).length;
        assert.ok(pending <= LIMITS.reviews, `${pending} orders awaiting approval, over ${LIMITS.reviews}`);
        assert.equal(account.reviewsPending ?? 0, pending, 'the awaiting-approval counter');
        for (const o of mine) {
          const lines = ledger.filter((l) => l.orderId === o.id);
          assert.equal(lines.filter((l) => l.kind === 'charge').length, 1, `${o.id} charged once`);
          assert.equal(0 - lines.find((l) => l.kind === 'charge')!.amount || 0, charged.get(o.id), `${o.id} charged what its creation answered`);
          if (quotedCost.has(o.id)) assert.equal(o.charge.cost, quotedCost.get(o.id), `${o.id} charged its quote`);
          const refunds = lines.filter((l) => l.kind === 'refund');
          assert.equal(refunds.length, o.refunded ? 1 : 0, `${o.id} refunded at most once, exactly when marked`);
          assert.ok((o.regens ?? 0) <= MAX_REGENS);
          if (o.refunded) {
            assert.equal(o.status, 'error');
            assert.equal(await svc.stores.files.exists(o.id, 'video'), false, `${o.id} refunded, yet its video is stored`);
          }
          if (o.status === 'done') assert.ok(!o.refunded && (await svc.stores.files.exists(o.id, 'video')), `${o.id} done with its video`);
          if (o.status !== 'done' && o.status !== 'error') assert.ok(open.has(o.id), `${o.id} open without the sweep's marker`);
        }
      }
      const byId = new Map(all.map((o) => [o.id, o]));
      const now = Date.now();
      const held = (await capacity.slots(Array.from({ length: SLOTS }, (_, n) => n))).filter((s) => s.holder && (s.leaseUntil ?? 0) >= now);
      assert.ok(held.length <= SLOTS);
      for (const s of held) {
        const holder = byId.get(s.holder!);
        if (holder)
          assert.ok(isActiveTask(holder.status) || holder.status === 'done' || holder.status === 'error', `slot ${s.n} held by a ${holder.status} order`);
      }
      return all;
    }

    const started = Date.now();
    let checking = 0;
    const spentOn = new Map<string, number>();
    for (const [i, op] of ops.entries()) {
      tally(op.op);
      const opStart = Date.now();
      const c = 'user' in op ? clients[op.user]! : undefined;
      switch (op.op) {
        case 'create': {
          const topic = TOPICS[op.topic]!;
          const quote = op.quote !== undefined ? pick(quotes, op.quote) : undefined;
          const body =
            op.route === 'quick'
              ? { prompt: `Calm 10 second video about ${topic}` }
              : { topic, duration_seconds: 10, ...(op.route === 'director' ? { director_mode: true } : {}) };
          const full = {
            ...body,
            ...(op.deadline ? { deadline_seconds: 600 } : {}),
            ...(op.maxCost !== undefined ? { max_cost: op.maxCost } : {}),
            ...(quote ? { quote_id: quote.id } : {}),
          };
          const before = (await svc.stores.accounts.get(c!.userId))!;
          const res = answered(
            op,
            await t.api('POST', op.route === 'quick' ? '/videos:quick' : '/videos', {
              key: c!.key,
              body: full,
              ...(op.key ? { headers: { 'idempotency-key': `${c!.userId}-${op.key}` } } : {}),
            }),
          );
          tally(`create ${res.status}${res.body?.error ? ` ${res.body.error.code}` : ''}`);
          const held = op.key ? keys.get(`${op.user}:${op.key}`) : undefined;
          // A full minute of POSTs is 429 whatever the request (the key's limit comes first).
          if (held && res.status !== 429) {
            if (held.body === JSON.stringify([op.route, full])) assert.deepEqual([res.status, res.body.id], [200, held.orderId], 'a repeat is the same order');
            else assert.equal(res.status, 422, 'a key reused for another request');
          } else if (res.status === 201) {
            // An order of this user may end between the snapshot and the creation, freeing a place or
            // refunding: judge by the account after, and by the snapshot when nothing ended in between.
            const after = (await svc.stores.accounts.get(c!.userId))!;
            assert.ok(after.activeTasks <= LIMITS.active, 'created under the active limit');
            assert.ok(after.balance >= 0, 'charged within the balance');
            if (after.activeTasks === before.activeTasks + 1 && after.balance === before.balance - res.body.cost) {
              assert.ok(before.activeTasks < LIMITS.active, 'created under the active limit');
              assert.ok(res.body.cost <= before.balance, 'charged within the balance');
            }
            if (op.maxCost !== undefined) assert.ok(res.body.cost <= op.maxCost);
            charged.set(res.body.id, res.body.cost);
            if (quote) quotedCost.set(res.body.id, quote.cost);
            c!.orders.push(res.body.id);
            if (op.route === 'director') c!.director.push(res.body.id);
            if (op.key) keys.set(`${op.user}:${op.key}`, { orderId: res.body.id, body: JSON.stringify([op.route, full]) });
          }
          break;
        }
        case 'quote': {
          const res = answered(
            op,
            await t.api('POST', '/videos:quote', {
              key: c!.key,
              body: { topic: TOPICS[op.topic], duration_seconds: 10, ...(op.route === 'director' ? { director_mode: true } : {}) },
            }),
          );
          if (res.status === 200) quotes.push({ id: res.body.quote_id, cost: res.body.cost, user: op.user });
          break;
        }
        case 'review': {
          const id = pick(op.order % 4 === 0 ? c!.orders : c!.director, op.order);
          if (!id) break;
          const body =
            op.action === 'edit'
              ? { action: 'edit', text: 'Caption: Tea\nVoice: Tea time.' }
              : op.action === 'regen'
                ? { action: 'regen', note: 'shorter' }
                : { action: 'approve' };
          const res = answered(op, await t.api('POST', `/videos/${id}/review`, { key: c!.key, body }));
          tally(`review ${res.status}${res.body?.error ? ` ${res.body.error.code}` : ''}`);
          break;
        }
        case 'cancel': {
          const id = pick(c!.orders, op.order);
          if (id) tally(`cancel ${answered(op, await t.api('POST', `/videos/${id}/cancel`, { key: c!.key })).status}`);
          break;
        }
        case 'topUp':
          await svc.stores.accounts.topUp(c!.userId, op.amount, new Date());
          c!.topUps += op.amount;
          break;
        case 'plan':
          await svc.stores.accounts.setPlan(c!.userId, op.heavy === undefined ? undefined : { name: `plan-${op.heavy}`, heavyPerMonth: op.heavy });
          break;
        case 'sweep':
          await svc.sweep(0);
          break;
        case 'pause':
          await sleep(op.ms);
          break;
        case 'deadline': {
          // Time passing for a deadline: brought forward in the store, as the other deadline tests do.
          const id = pick(c!.orders, op.order);
          const o = id ? await svc.stores.orders.get(id) : undefined;
          if (o?.deadlineAt && o.status !== 'done' && o.status !== 'error') {
            await svc.stores.orders.patch(o.id, { status: o.status, set: { deadlineAt: new Date(Date.now() - 1000).toISOString() } }, new Date());
          }
          break;
        }
        case 'get': {
          const id = pick(c!.orders, op.order);
          if (id) answered(op, await t.api('GET', `/videos/${id}`, { key: c!.key }));
          break;
        }
        case 'receiver':
          receiverUp = op.up;
          break;
        case 'webhook': {
          const hook = (await svc.stores.webhooks.ofUser(c!.userId))?.id;
          const path = `/webhooks/${hook ?? 'wh_00000000000000000000000000'}`;
          let res: ApiResponse;
          if (op.action === 'register') res = await t.api('POST', '/webhooks', { key: c!.key, body: { url: hookUrl } });
          else if (op.action === 'delete') res = await t.api('DELETE', path, { key: c!.key });
          else if (op.action === 'rotate') res = await t.api('POST', `${path}/rotate`, { key: c!.key });
          else if (op.action === 'test') res = await t.api('POST', `${path}/test`, { key: c!.key });
          else if (op.action === 'resendSince')
            res = await t.api('POST', `${path}/resend`, { key: c!.key, body: { since: new Date(Date.now() - 3600_000).toISOString() } });
          else {
            const events = (await Promise.all(c!.orders.map((id) => svc.stores.orders.events(id)))).flat();
            const event = pick(events, op.n);
            if (!event) break;
            res = await t.api('POST', `${path}/resend`, { key: c!.key, body: { event_id: event.id } });
          }
          answered(op, res);
          tally(`webhook ${op.action} ${res.status}`);
          for (const id of res.status === 202 ? (res.body.resent as string[]) : []) resends.set(id, (resends.get(id) ?? 0) + 1);
          break;
        }
      }
      spentOn.set(op.op, (spentOn.get(op.op) ?? 0) + Date.now() - opStart);
      const moneyStart = Date.now();
      if (c && ['create', 'review', 'cancel', 'topUp'].includes(op.op)) await money(c);
      spentOn.set('money', (spentOn.get('money') ?? 0) + Date.now() - moneyStart);
      if (i % 20 === 19) {
        const at = Date.now();
        await everything();
        checking += Date.now() - at;
      }
    }
    const operated = Date.now();
    console.log(`time by operation (ms): ${JSON.stringify(Object.fromEntries(spentOn))}`);

    // At rest: the receiver back, reviews decided (approved, else canceled), everything run to its end.
    receiverUp = true;
    const end = Date.now() + 240_000;
    for (;;) {
      await svc.sweep(0);
      const all = await everything();
      const open = all.filter((o) => o.status !== 'done' && o.status !== 'error');
      if (!open.length) break;
      assert.ok(Date.now() < end, `still open at rest: ${open.map((o) => `${o.id} ${o.status}`).join(', ')}`);
      for (const o of open.filter((x) => x.status === 'awaiting_review')) {
        const c = clients.find((x) => x.userId === o.userId)!;
        const res = answered(
          { op: 'review', user: 0, order: 0, action: 'approve' },
          await t.api('POST', `/videos/${o.id}/review`, { key: c.key, body: { action: 'approve' } }),
        );
        if (res.status === 429) answered({ op: 'cancel', user: 0, order: 0 }, await t.api('POST', `/videos/${o.id}/cancel`, { key: c.key }));
      }
      await sleep(1000);
    }
    for (let round = 0; ; round++) {
      await svc.sweep(0);
      const events = (await Promise.all(clients.flatMap((c) => c.orders.map((id) => svc.stores.orders.events(id))))).flat();
      const stored = await Promise.all(events.map((e) => svc.stores.events.get(e.orderId, e.id)));
      const unsettled = stored.filter((e) => !e?.delivery || e.delivery === 'pending');
      for (const e of stored) {
        const allowed = MAX_ATTEMPTS + (resends.get(e!.id) ?? 0);
        assert.ok((received.get(e!.id) ?? 0) <= allowed, `event ${e!.id}: ${received.get(e!.id)} requests, more than ${allowed}`);
      }
      if (!unsettled.length) break;
      assert.ok(round < 60, `events not settled at rest: ${unsettled.map((e) => e!.id).join(', ')}`);
      await sleep(1000);
    }
    // The render queue's two shards count no wait and no held slot once every order has ended (and the sweep ran).
    await svc.sweep(0);
    const states = await capacity.states([0, 1]);
    assert.deepEqual(
      states.map((q) => [q.busy, waitingIn(q, 'api'), waitingIn(q, 'bot')]),
      [
        [0, 0, 0],
        [0, 0, 0],
      ],
      'at rest the shards count no wait and no held slot',
    );
    const all = await everything();
    console.log(
      `lifecycle on the local stack: ${OPS} operations in ${((operated - started) / 1000).toFixed(0)} s (checks ${(checking / 1000).toFixed(0)} s), at rest after ${((Date.now() - operated) / 1000).toFixed(0)} s, ${all.length} orders (${all.filter((o) => o.status === 'done').length} done, ${
        all.filter((o) => o.status === 'error').length
      } in error), 0 violations; ${[...counts]
        .sort()
        .map(([k, v]) => `${k} x${v}`)
        .join(', ')}`,
    );
  });
});
