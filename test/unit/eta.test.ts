/** eta_seconds from the shards' counters: position by ticket and the admission rule, slots freeing, the measured rate. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyShardState, orderShard, type ShardState } from '../../functions/core/capacity.ts';
import { type QueueView, QueueViews, queuedEta, runningEta, waitingOf } from '../../functions/core/eta.ts';

const now = Date.parse('2026-11-23T10:00:00Z');
/** A shard whose state item says this. */
const shard = (s: Partial<ShardState> & { slots?: number } = {}) => ({ ...emptyShardState(), slots: 2, ...s });
const view = (v: Partial<QueueView> = {}): QueueView => ({ shards: [shard()], secondsPerVideoSecond: 0.5, botRun: 3, ...v });

describe('eta_seconds', () => {
  it('is the own generation when a slot is free', () => {
    assert.equal(queuedEta(view(), { id: 'vid_new', channel: 'api', videoSeconds: 30 }, now), 15);
  });

  it('waits for the busy slots to free, from their summed counts', () => {
    // Two 30-second renders admitted 10 s and 2 s ago: on average 9 s left each (15 s jobs, 6 s in); then 15 s.
    const busy = shard({ busy: 2, busyVideoSeconds: 60, busySinceMs: now - 10_000 + now - 2_000 });
    assert.equal(queuedEta(view({ shards: [busy] }), { id: 'vid_new', channel: 'api', videoSeconds: 30 }, now), 24);
  });

  it('counts the orders ahead from the tickets and the admission rule, spread over the slots', () => {
    // Two API and four bot orders wait (tickets handed out minus those served).
    const s = shard({ issued: { api: 7, bot: 4 }, served: { api: 5, bot: 0 } });
    const v = view({ shards: [s] });
    // A new API order waits for both API orders and every waiting bot order (3 per API admission, 4 here).
    // 6 orders of 10 s on 2 slots: it starts at 30 s and takes 10 s.
    assert.equal(queuedEta(v, { id: 'vid_new', channel: 'api', videoSeconds: 20 }, now), 40);
    // A new bot order goes after the bot orders only, plus one API order let through after three bots.
    assert.equal(queuedEta(v, { id: 'vid_newbot', channel: 'bot', videoSeconds: 20 }, now), 30);
    // A waiting order counts those whose tickets come before its own.
    assert.equal(queuedEta(v, { id: 'vid_b1', channel: 'bot', videoSeconds: 20, place: { shard: 0, ticket: 1 } }, now), 10);
    assert.equal(queuedEta(v, { id: 'vid_a2', channel: 'api', videoSeconds: 20, place: { shard: 0, ticket: 7 } }, now), 30);
    // A ticket newer than the read (its wait began after it) counts every waiting one; an old one, none.
    assert.equal(queuedEta(v, { id: 'vid_a9', channel: 'api', videoSeconds: 20, place: { shard: 0, ticket: 9 } }, now), 40);
    assert.equal(queuedEta(v, { id: 'vid_a0', channel: 'api', videoSeconds: 20, place: { shard: 0, ticket: 2 } }, now), 20);
  });

  it('reads the order in its own shard: a long queue elsewhere is not ahead of it', () => {
    const long = shard({ issued: { api: 40, bot: 0 }, served: { api: 0, bot: 0 } });
    const id = 'vid_0001';
    const mine = orderShard(id, 2);
    const shards = mine === 0 ? [shard(), long] : [long, shard()];
    assert.equal(queuedEta(view({ shards }), { id, channel: 'api', videoSeconds: 20 }, now), 10);
    assert.equal(waitingOf(view({ shards }), 'api'), 40);
  });

  it('is the rest of the generation of a running order, at least one second', () => {
    assert.equal(runningEta(view(), { videoSeconds: 30, since: now - 6_000 }, now), 9);
    assert.equal(runningEta(view(), { videoSeconds: 30, since: now - 60_000 }, now), 1);
  });
});

describe("a process's view of the queue", () => {
  it('reads the queue once per period, and counts each new order of a burst behind the ones before it', async () => {
    let reads = 0;
    let clock = now;
    let state = shard({ slots: 1 });
    const views = new QueueViews(
      async (ks) => {
        reads++;
        return ks.map(() => state);
      },
      { shards: 1, botRun: 3, defaultSecondsPerVideoSecond: 0.5 },
      2000,
      10_000,
      () => clock,
    );
    // Ten creations at once: each counts the others before it, though one read serves them all.
    const ids = Array.from({ length: 10 }, (_, i) => `vid_${String(i).padStart(2, '0')}`);
    const etas = await Promise.all(
      ids.map(async (id) => queuedEta(await views.view([], { id, channel: 'api' }), { id, channel: 'api', videoSeconds: 10 }, clock)),
    );
    assert.equal(reads, 1);
    assert.deepEqual(etas, [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
    // A creation that did not commit leaves the view; a bot order goes ahead of the waiting API orders (botRun 3).
    views.drop('vid_09');
    assert.equal(waitingOf(await views.view(), 'api'), 9);
    const bot = await views.view([], { id: 'vid_10', channel: 'bot' });
    assert.equal(queuedEta(bot, { id: 'vid_10', channel: 'bot', videoSeconds: 10 }, clock), 5);
    // The next read shows three new tickets: the first three are counted once, from the read.
    clock += 3000;
    state = shard({ slots: 1, issued: { api: 3, bot: 0 } });
    assert.equal(waitingOf(await views.view(), 'api'), 9);
    assert.equal(reads, 2);
    // Those the reads never counted (done already, or late) are expected no longer than 10 s.
    clock += 10_001;
    state = shard({ slots: 1, issued: { api: 3, bot: 0 }, served: { api: 2, bot: 0 } });
    const last = await views.view();
    assert.deepEqual([waitingOf(last, 'api'), waitingOf(last, 'bot')], [1, 0]);
  });
});
