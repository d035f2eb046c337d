/**
 * The audit and a queue on the local stack: one render slot, four orders at once, a grace of 2 s and the audit every
 * second. Three orders wait for the slot well past the grace with no execution, as designed (their execution starts at
 * admission): the audit leaves them to the queue, counts no recovery (the SweepRecovered alarm's metric), and every
 * order reaches done. The metrics are read from the functions' embedded metric format lines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { captureEmf } from '../support/emf.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const GRACE_SECONDS = 2;
const t = useStack({
  RENDER_SLOTS: '1',
  SWEEP_SECONDS: '1',
  SWEEP_GRACE_SECONDS: String(GRACE_SECONDS),
  QUEUE_SNAPSHOT_MS: '0',
  POWERTOOLS_METRICS_DISABLED: 'false',
});
const emf = captureEmf();
/** The shortest video, with no voice or music: the queue is tested, not what the videos show. */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

describe('the audit and the render queue', () => {
  it('leaves orders waiting for a slot past the grace to the queue: no recovery counted, all four done', async () => {
    const { apiKey: key } = await t.user({ balance: 10_000, trialVideos: 0 });
    const from = emf.mark();
    const created = await Promise.all([1, 2, 3, 4].map((i) => t.api('POST', '/videos', { key, body: { topic: `Tea number ${i}`, ...VIDEO } })));
    for (const c of created) assert.equal(c.status, 201, c.text);
    const ids = created.map((c) => c.body.id as string);
    const start = Date.now();
    // Queued the longest: how long the last order waited for its slot, seen by polling.
    let longestQueued = 0;
    const done = await Promise.all(
      ids.map(async (id) => {
        for (;;) {
          const o = (await t.api('GET', `/videos/${id}`, { key })).body;
          if (o.status === 'queued') longestQueued = Math.max(longestQueued, Date.now() - start);
          if (o.status !== 'queued') return waitForStatus(t, key, id, ['done', 'error'], 120_000);
          await new Promise((r) => setTimeout(r, 250));
        }
      }),
    );
    assert.deepEqual(
      done.map((o) => o.status),
      ['done', 'done', 'done', 'done'],
    );
    // Orders waited past the grace and several audit runs: the audit had them to look at.
    assert.ok(longestQueued > (GRACE_SECONDS + 3) * 1000, `the last order waited ${longestQueued} ms`);
    const sums = emf.sums(from);
    assert.equal(sums.OrdersRecovered ?? 0, 0, `the audit counted recoveries: ${JSON.stringify(sums)}`);
    assert.equal(sums.OrdersDone, 4);
  });
});
