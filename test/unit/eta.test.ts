/** eta_seconds from the queue: position by the admission rule, slots freeing, the measured rate. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type QueueView, QueueViews, queuedEta, runningEta } from '../../functions/core/eta.ts';

const now = Date.parse('2026-11-23T10:00:00Z');
const view = (v: Partial<QueueView> = {}): QueueView => ({
  slots: 2,
  busy: [],
  waiting: { api: [], bot: [] },
  secondsPerVideoSecond: 0.5,
  botRun: 3,
  ...v,
});

describe('eta_seconds', () => {
  it('is the own generation when a slot is free', () => {
    assert.equal(queuedEta(view(), { id: 'vid_new', channel: 'api', videoSeconds: 30 }, now), 15);
  });

  it('waits for the first slot to free when all are busy', () => {
    const busy = [
      { holder: 'vid_x', since: now - 10_000, videoSeconds: 30 },
      { holder: 'vid_y', since: now - 2_000, videoSeconds: 30 },
    ];
    // The older render has 5 s left; then this order's 15 s.
    assert.equal(queuedEta(view({ busy }), { id: 'vid_new', channel: 'api', videoSeconds: 30 }, now), 20);
  });

  it('counts the orders ahead by the admission rule, spread over the slots', () => {
    const waiting = { api: ['vid_a1', 'vid_a2'], bot: ['vid_b1', 'vid_b2', 'vid_b3', 'vid_b4'] };
    // An API order waits for both API orders before it and every waiting bot order (3 per API admission, 4 here).
    const api = queuedEta(view({ waiting }), { id: 'vid_new', channel: 'api', videoSeconds: 20 }, now);
    // 6 orders of 10 s on 2 slots: it starts at 30 s and takes 10 s.
    assert.equal(api, 40);
    // A bot order goes after the bot orders only, plus one API order let through after three bots.
    const bot = queuedEta(view({ waiting }), { id: 'vid_newbot', channel: 'bot', videoSeconds: 20 }, now);
    assert.equal(bot, 30);
    // A waiting order counts only those before it.
    assert.equal(queuedEta(view({ waiting }), { id: 'vid_b1', channel: 'bot', videoSeconds: 20 }, now), 10);
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
    let waitingNow: string[] = [];
    const views = new QueueViews(
      async () => {
        reads++;
        return view({ slots: 1, waiting: { api: [...waitingNow], bot: [] } });
      },
      2000,
      10_000,
      () => clock,
    );
    // Ten creations at once: each sees the others before it, though one read serves them all.
    const ids = Array.from({ length: 10 }, (_, i) => `vid_${String(i).padStart(2, '0')}`);
    const etas = await Promise.all(ids.map(async (id) => queuedEta(await views.view({ id, channel: 'api' }), { id, channel: 'api', videoSeconds: 10 }, clock)));
    assert.equal(reads, 1);
    assert.deepEqual(etas, [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
    // A creation that did not commit leaves the view; a bot order goes ahead of the waiting API orders (botRun 3).
    views.drop('vid_09');
    assert.equal((await views.view()).waiting.api.length, 9);
    const bot = await views.view({ id: 'vid_10', channel: 'bot' });
    assert.equal(queuedEta(bot, { id: 'vid_10', channel: 'bot', videoSeconds: 10 }, clock), 5);
    // The next read shows three of them waiting: counted once, from the read.
    clock += 3000;
    waitingNow = ['vid_00', 'vid_01', 'vid_02'];
    assert.deepEqual((await views.view()).waiting.api, ids.slice(0, 9));
    assert.equal(reads, 2);
    // Those the reads never showed (done already, or late) are expected no longer than 10 s.
    clock += 10_001;
    waitingNow = ['vid_02'];
    assert.deepEqual((await views.view()).waiting, { api: ['vid_02'], bot: [] });
  });
});
