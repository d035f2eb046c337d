/** The render queue on in-memory ports: bounded slots, bot first, no starvation, leases, waits that died. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { CHANNELS, CHOICES, emptyShardState, orderShard, queueOrder, RenderQueue, shardCount, waitingIn } from '../../functions/core/capacity.ts';
import type { Channel } from '../../functions/core/orders.ts';
import { MemoryCapacity } from './memory.ts';

let capacity: MemoryCapacity;
let clock: number;
let seq: number;
/** The random choices of other shards, seeded so that every run takes the same (QUEUE_SEED replays another). */
const SEED = Number(process.env.QUEUE_SEED ?? 1);
const queue = (slots: number, botRun = 3, shards?: number) =>
  new RenderQueue({
    store: capacity,
    wakeup: capacity,
    slots,
    ...(shards ? { shards } : {}),
    leaseSeconds: 60,
    botRun,
    now: () => new Date(clock),
    random: random(SEED),
  });

beforeEach(() => {
  capacity = new MemoryCapacity();
  clock = Date.parse('2026-11-23T10:00:00Z');
  seq = 0;
});

/** Order ids sort by creation, as ULIDs do; each order its own key's unless `key` is given. */
const order = (channel: Channel, key?: string) => {
  const id = `vid_${String(seq++).padStart(26, '0')}`;
  return { id, channel, userId: key ?? `key-${id}` };
};
const wokenOrders = (orders: { id: string }[]) => capacity.woken.map((w) => orders.find((o) => `t-${o.id}` === w.token)!.id);

describe('the render queue', () => {
  it('admits at most the slots, and the next order only when one is released', async () => {
    const q = queue(2);
    const orders = [order('api'), order('api'), order('api')];
    for (const o of orders) await q.awaitSlot(o, `t-${o.id}`);
    assert.deepEqual(wokenOrders(orders), [orders[0]!.id, orders[1]!.id]);
    assert.equal(await capacity.waitingCount('api'), 1);
    await q.release(orders[0]!.id);
    assert.deepEqual(
      wokenOrders(orders),
      orders.map((o) => o.id),
    );
    assert.deepEqual(capacity.holders().sort(), [orders[1]!.id, orders[2]!.id].sort());
    await q.release(orders[0]!.id);
    assert.equal(capacity.woken.length, 3, 'releasing a slot it no longer holds admits nobody twice');
  });

  it('admits a bot order created after waiting API orders before them, oldest first within each channel', async () => {
    const q = queue(1);
    const running = order('api');
    await q.awaitSlot(running, `t-${running.id}`);
    const api = [order('api'), order('api')];
    for (const o of api) await q.awaitSlot(o, `t-${o.id}`);
    const bots = [order('bot'), order('bot')];
    for (const o of bots) await q.awaitSlot(o, `t-${o.id}`);
    const all = [running, ...api, ...bots];
    for (let i = 0; i < all.length; i++) await q.release(capacity.holders()[0]!);
    assert.deepEqual(wokenOrders(all), [running.id, bots[0]!.id, bots[1]!.id, api[0]!.id, api[1]!.id]);
  });

  it("shares a channel round robin across keys: one key's order after another's eight is second in line", async () => {
    const q = queue(1);
    const heavy = Array.from({ length: 8 }, () => order('api', 'heavy'));
    for (const o of heavy) await q.awaitSlot(o, `t-${o.id}`);
    clock += 1000;
    const light = order('api', 'light');
    await q.awaitSlot(light, `t-${light.id}`);
    const lineup = [...capacity.waiting.values()].sort(queueOrder).map((w) => w.orderId);
    assert.equal(lineup.indexOf(light.id), 1, "second in line: behind the heavy key's head only");
    for (let i = 0; i < 8; i++) {
      clock += 1000;
      await q.release(capacity.holders()[0]!, true);
    }
    assert.deepEqual(wokenOrders([...heavy, light]).slice(0, 4), [heavy[0]!.id, heavy[1]!.id, light.id, heavy[2]!.id]);
  });

  it('turns the rotation one order of each key at a time, whatever the order the keys queued theirs in', async () => {
    const q = queue(1);
    const holder = order('api', 'X');
    await q.awaitSlot(holder, `t-${holder.id}`);
    const of = (key: string) => [order('api', key), order('api', key), order('api', key)];
    const [a, b, c] = [of('A'), of('B'), of('C')];
    for (const o of [...a!, ...b!, ...c!]) await q.awaitSlot(o, `t-${o.id}`);
    for (let i = 0; i < 9; i++) {
      clock += 1000;
      await q.release(capacity.holders()[0]!, true);
    }
    const ids = (list: { id: string }[]) => list.map((o) => o.id);
    assert.deepEqual(wokenOrders([holder, ...a!, ...b!, ...c!]), [
      holder.id,
      ...ids([a![0]!, b![0]!, c![0]!]),
      ...ids([a![1]!, b![1]!, c![1]!]),
      ...ids([a![2]!, b![2]!, c![2]!]),
    ]);
  });

  it('lets the oldest API order go after three bot admissions in a row under steady bot traffic', async () => {
    const q = queue(1, 3);
    const first = order('bot');
    await q.awaitSlot(first, `t-${first.id}`);
    const api = order('api');
    await q.awaitSlot(api, `t-${api.id}`);
    const all = [first, api];
    // A new bot order arrives before every release: bots always wait, yet the API order gets its turn.
    for (let i = 0; i < 8; i++) {
      const bot = order('bot');
      all.push(bot);
      await q.awaitSlot(bot, `t-${bot.id}`);
      await q.release(capacity.holders()[0]!);
    }
    const admitted = wokenOrders(all);
    assert.ok(admitted.includes(api.id), 'the API order was admitted');
    assert.equal(admitted.indexOf(api.id), 4, 'after the first order and three bot orders in a row');
  });

  it('gives a resumed order its own slot again at once, and a dead holder loses its slot when the lease ends', async () => {
    const q = queue(1);
    const a = order('api');
    const b = order('api');
    await q.awaitSlot(a, 't-a1');
    await q.awaitSlot(b, 't-b');
    await q.awaitSlot(a, 't-a2');
    assert.deepEqual(
      capacity.woken.map((w) => w.token),
      ['t-a1', 't-a2'],
      'the same order resumes in its slot',
    );
    clock += 61_000;
    // A's holder died: nothing released it. Once its lease ended, an admission pass gives the slot to B.
    assert.equal(await q.admit(), 1);
    assert.deepEqual(capacity.holders(), [b.id]);
  });

  it('hands the slot on when the wait it was meant for has died with its execution', async () => {
    const q = queue(1);
    const [a, b, c] = [order('api'), order('api'), order('api')];
    for (const o of [a, b, c]) await q.awaitSlot(o, `t-${o.id}`);
    capacity.deadTokens.add(`t-${b.id}`);
    await q.release(a.id);
    assert.deepEqual(capacity.holders(), [c.id], 'B could not be woken: C got the slot');
    assert.equal(await capacity.waitingCount('api'), 0);
  });

  it('measures the generation time per video second from the orders that finish', async () => {
    const q = queue(1);
    const a = order('api');
    await q.awaitSlot({ ...a, videoSeconds: 20 }, 't-a');
    clock += 10_000;
    await q.release(a.id, true);
    assert.equal(capacity.shardStates.get(0)?.rate, 0.5, 'the first order sets it: 10 s for 20 s of video');
    const b = order('api');
    await q.awaitSlot({ ...b, videoSeconds: 10 }, 't-b');
    clock += 10_000;
    await q.release(b.id, true);
    assert.equal(capacity.shardStates.get(0)?.rate, 0.5 * 0.7 + 1 * 0.3, 'then a moving average');
    const c = order('api');
    await q.awaitSlot({ ...c, videoSeconds: 10 }, 't-c');
    await q.release(c.id);
    assert.equal(capacity.shardStates.get(0)?.rate, 0.5 * 0.7 + 1 * 0.3, 'a failed order is not a measure');
  });

  it('undoes an admission whose wake-up could not be sent, so that a later admission completes the wait', async () => {
    const q = queue(1);
    const [a, b] = [order('api'), order('api')];
    await q.awaitSlot(a, `t-${a.id}`);
    await q.awaitSlot(b, `t-${b.id}`);
    capacity.unreachable = true;
    await assert.rejects(q.release(a.id), /ECONNREFUSED/);
    assert.deepEqual([capacity.holders(), await capacity.waitingCount('api')], [[], 1], 'B waits again and the slot is free');
    capacity.unreachable = false;
    assert.equal(await q.admit(), 1);
    assert.deepEqual(capacity.holders(), [b.id]);
    assert.deepEqual(wokenOrders([a, b]), [a.id, b.id]);
  });
});

/** A seeded random source (mulberry32), so a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The queue's counters agree with its items, and no slot is free while an order waits anywhere. */
/**
 * The counters agree with the items, and no slot idles while an order waits. With more shards than a wait or a release
 * reads (CHOICES other shards, at random), a slot may idle until a sweep run's admission: `admit` is that run.
 */
async function checkShards(slots: number, shards: number, admit: () => Promise<unknown>) {
  if (shards > CHOICES + 1) await admit();
  const waiters = [...capacity.waiting.values()];
  for (let k = 0; k < shards; k++) {
    const state = capacity.shardStates.get(k) ?? emptyShardState();
    for (const channel of CHANNELS) assert.equal(waitingIn(state, channel), waiters.filter((w) => w.shard === k && w.channel === channel).length);
    const held = [...capacity.held.values()].filter((s) => s.n % shards === k);
    assert.equal(state.busy, held.length, `shard ${k} busy`);
    assert.equal(
      state.busyVideoSeconds,
      held.reduce((n, s) => n + (s.videoSeconds ?? 0), 0),
    );
    assert.equal(
      state.busySinceMs,
      held.reduce((n, s) => n + Date.parse(s.since!), 0),
    );
  }
  const holders = capacity.holders();
  assert.equal(new Set(holders).size, holders.length, 'an order holds one slot at most');
  for (const s of capacity.held.values()) assert.equal(capacity.holds.get(s.holder!), s.n, 'the hold names the slot');
  assert.ok(!(holders.length < slots && waiters.length), `${slots - holders.length} slot(s) free while ${waiters.length} wait`);
}

describe('the render queue in shards', () => {
  it('splits the slots into one shard per 8, or as set', () => {
    assert.deepEqual(
      [1, 4, 8, 9, 16, 600].map((n) => shardCount(n)),
      [1, 1, 1, 2, 2, 75],
    );
    assert.deepEqual([shardCount(4, 2), shardCount(2, 5)], [2, 2]);
  });

  it('writes no item in every admission: 400 orders through 16 slots in 4 shards', async () => {
    const q = queue(16, 3, 4);
    const rnd = random(7);
    const orders = Array.from({ length: 400 }, () => order(rnd() < 0.3 ? 'bot' : 'api'));
    for (const o of orders) {
      await q.awaitSlot({ ...o, videoSeconds: 10 }, `t-${o.id}`);
      // Renders end in their own time: a random holder finishes now and then, as often as orders arrive.
      if (capacity.holders().length === 16 && rnd() < 0.9) await q.release(capacity.holders()[Math.floor(rnd() * 16)]!, true);
    }
    while (capacity.holders().length) await q.release(capacity.holders()[0]!, true);
    assert.equal(capacity.claims.length, 400, 'every order admitted once');
    const byItem = new Map<string, number>();
    for (const items of capacity.claims) for (const item of items) byItem.set(item, (byItem.get(item) ?? 0) + 1);
    const [busiest, most] = [...byItem].sort((a, b) => b[1] - a[1])[0]!;
    // Today's single queue wrote its one admission item in all 400; a shard's state is written by its own quarter.
    assert.ok(most < 400 * 0.4, `${busiest} written by ${most} of 400 admissions`);
    const writes = Math.max(...capacity.writes.values());
    assert.ok(writes < 400, `the busiest item took ${writes} writes of all the queue's operations`);
  });

  it('keeps its counters true and leaves no slot free while an order waits in any shard (random operations)', async () => {
    for (const [slots, shards] of [
      [5, 3],
      [4, 4],
      [9, 2],
    ] as const) {
      capacity = new MemoryCapacity();
      const q = queue(slots, 3, shards);
      const rnd = random(slots * 31 + shards);
      const waiting = new Map<string, ReturnType<typeof order>>();
      for (let step = 0; step < 600; step++) {
        const r = rnd();
        const holders = capacity.holders();
        const waiters = [...capacity.waiting.values()];
        if (r < 0.45) {
          // Four keys, so that heads and parked waits both come and go.
          const o = order(rnd() < 0.4 ? 'bot' : 'api', `k${Math.floor(rnd() * 4)}`);
          waiting.set(o.id, o);
          if (rnd() < 0.1) capacity.deadTokens.add(`t-${o.id}`);
          await q.awaitSlot({ ...o, videoSeconds: 5 + Math.floor(rnd() * 30) }, `t-${o.id}`);
        } else if (r < 0.8 && holders.length) {
          await q.release(holders[Math.floor(rnd() * holders.length)]!, rnd() < 0.7);
        } else if (r < 0.9 && waiters.length) {
          const w = waiters[Math.floor(rnd() * waiters.length)]!;
          await q.release(w.orderId, false, { channel: w.channel, key: w.key });
        } else if (holders.length) {
          // A resumed workflow of an order holding a slot gets the same slot at once, whichever shard it is in.
          const id = holders[Math.floor(rnd() * holders.length)]!;
          const n = [...capacity.held.values()].find((s) => s.holder === id)!.n;
          await q.awaitSlot(waiting.get(id) ?? { id, channel: 'api', userId: 'k0' }, `t-again-${id}-${step}`);
          assert.deepEqual(capacity.woken.at(-1), { token: `t-again-${id}-${step}`, slot: n });
        }
        await checkShards(slots, shards, () => q.admit());
      }
    }
  });

  it('reads a bounded number of shards in each operation however many there are: 100 shards of 8 slots', async () => {
    const q = queue(800, 3, 100);
    const read = () => ({ ...capacity.reads });
    const since = (before: typeof capacity.reads) => ({
      slot: capacity.reads.slot - before.slot,
      state: capacity.reads.state - before.state,
      waiting: capacity.reads.waiting - before.waiting,
    });
    // Every slot held: a new order waits, its shard full, and looks at two other shards only.
    for (let n = 0; n < 800; n++) {
      const o = order('api');
      capacity.held.set(n, { n, holder: o.id, channel: 'api', leaseUntil: clock + 600_000, since: new Date(clock).toISOString(), videoSeconds: 10 });
      capacity.holds.set(o.id, n);
      const state = capacity.shardStates.get(n % 100) ?? emptyShardState();
      state.busy++;
      capacity.shardStates.set(n % 100, state);
    }
    let before = read();
    const waiting = order('api');
    await q.awaitSlot(waiting, `t-${waiting.id}`);
    assert.deepEqual(since(before), { slot: 8, state: CHOICES, waiting: 0 }, "its shard's slots, two other shards' states");
    // A release in another shard with nobody waiting there: its own shard's state (the rate, its heads), two other
    // shards' states, and the heads (and state) of each of those it tries.
    const elsewhere = [...capacity.held.values()].find((s) => s.n % 100 !== orderShard(waiting.id, 100))!;
    before = read();
    await q.release(elsewhere.holder!, true);
    assert.ok(since(before).state <= 2 + 2 * CHOICES, `a release read ${since(before).state} shard states`);
    // A sweep run's turn: eight shards' slots and heads, and every state item (one batch per 100) to match free slots
    // with waits the random choices missed; the gauges read them too.
    before = read();
    await q.reclaim(async () => false, 5);
    await q.admit(5);
    assert.ok(since(before).slot <= 2 * 8 * 8 + 8 * 8 && since(before).state <= 100 + 8 * (1 + CHOICES), JSON.stringify(since(before)));
    before = read();
    await q.stats(5);
    assert.deepEqual([since(before).slot, since(before).state], [0, 100]);
    assert.ok(since(before).waiting <= 16, `${since(before).waiting} heads read`);
  });

  it('gives a free slot to a waiting order of another shard past a shard that counts a wait that is not there', async () => {
    // Three shards of one slot, each held. Shard 0 counts two API waits that are not there (a process died between
    // each one's ticket and its wait); shard 1 has one real wait; then shard 2's slot frees.
    const q = queue(3, 3, 3);
    const inShard = (k: number) => {
      for (;;) {
        const o = order('api');
        if (orderShard(o.id, 3) === k) return o;
      }
    };
    const holders = [inShard(0), inShard(1), inShard(2)];
    for (const h of holders) await q.awaitSlot(h, `t-${h.id}`);
    capacity.shardStates.get(0)!.issued.api += 2;
    const waiter = inShard(1);
    await q.awaitSlot(waiter, `t-${waiter.id}`);
    assert.equal(capacity.holders().length, 3);
    await q.release(holders[2]!.id);
    assert.ok(capacity.holders().includes(waiter.id), "shard 2's freed slot went to shard 1's waiting order, past shard 0's count");
  });

  it('holds the admission rule within a shard: bot first, and the API head after three bot admissions in a row', async () => {
    // Two shards of one slot; every order here hashes to shard 0, so shard 1's slot takes them by stealing.
    const q = queue(2, 3, 2);
    const inShard0 = (channel: Channel) => {
      for (;;) {
        const o = order(channel);
        if (orderShard(o.id, 2) === 0) return o;
      }
    };
    const first = [inShard0('bot'), inShard0('bot')];
    for (const o of first) await q.awaitSlot(o, `t-${o.id}`);
    const api = inShard0('api');
    await q.awaitSlot(api, `t-${api.id}`);
    const all = [...first, api];
    for (let i = 0; i < 8; i++) {
      const bot = inShard0('bot');
      all.push(bot);
      await q.awaitSlot(bot, `t-${bot.id}`);
      await q.release(capacity.holders()[i % 2]!);
    }
    const admitted = wokenOrders(all);
    assert.equal(admitted.indexOf(api.id), 5, 'the two first, then three bot admissions in a row, then the API order');
    assert.ok(
      capacity.woken.some((w) => w.slot === 1),
      'the slot of shard 1 served shard 0',
    );
  });
});
