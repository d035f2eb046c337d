/** The render queue on in-memory ports: bounded slots, bot first, no starvation, leases, waits that died. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { RenderQueue } from '../../functions/core/capacity.ts';
import type { Channel } from '../../functions/core/orders.ts';
import { MemoryCapacity } from './memory.ts';

let capacity: MemoryCapacity;
let clock: number;
let seq: number;
const queue = (slots: number, botRun = 3) =>
  new RenderQueue({ store: capacity, wakeup: capacity, slots, leaseSeconds: 60, botRun, now: () => new Date(clock) });

beforeEach(() => {
  capacity = new MemoryCapacity();
  clock = Date.parse('2026-11-23T10:00:00Z');
  seq = 0;
});

/** Order ids sort by creation, as ULIDs do. */
const order = (channel: Channel) => ({ id: `vid_${String(seq++).padStart(26, '0')}`, channel });
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
    assert.equal(await capacity.rate(), 0.5, 'the first order sets it: 10 s for 20 s of video');
    const b = order('api');
    await q.awaitSlot({ ...b, videoSeconds: 10 }, 't-b');
    clock += 10_000;
    await q.release(b.id, true);
    assert.equal(await capacity.rate(), 0.5 * 0.7 + 1 * 0.3, 'then a moving average');
    const c = order('api');
    await q.awaitSlot({ ...c, videoSeconds: 10 }, 't-c');
    await q.release(c.id);
    assert.equal(await capacity.rate(), 0.5 * 0.7 + 1 * 0.3, 'a failed order is not a measure');
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
