/**
 * Where an order stands, on the local stack with one render slot: queued, its queue_position and a Retry-After hint;
 * running, its progress (0-100), started_at and a shorter hint; done, finished_at and the links' expires_at, no hint.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ RENDER_SLOTS: '1', QUEUE_SNAPSHOT_MS: '0' });

describe('an order’s standing', () => {
  it('shows queue_position while queued, progress while running, and the times and link expiry when done', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const first = await t.api('POST', '/videos', { key, body: { topic: 'Green tea', duration_seconds: 10 } });
    const second = await t.api('POST', '/videos', { key, body: { topic: 'Black tea', duration_seconds: 10 } });
    const third = await t.api('POST', '/videos', { key, body: { topic: 'White tea', duration_seconds: 10 } });
    const progress: number[] = [];
    let sawQueued = false;
    for (let end = Date.now() + 90_000; Date.now() < end; ) {
      const [a, c] = await Promise.all([t.api('GET', `/videos/${first.body.id}`, { key }), t.api('GET', `/videos/${third.body.id}`, { key })]);
      if (a.body.status === 'running') {
        assert.ok(Number.isInteger(a.body.progress) && a.body.progress >= 0 && a.body.progress <= 100, JSON.stringify(a.body));
        assert.ok(a.body.started_at >= a.body.created_at);
        assert.ok(Number(a.headers.get('retry-after')) >= 2 && Number(a.headers.get('retry-after')) <= 15);
        progress.push(a.body.progress);
      }
      if (c.body.status === 'queued' && a.body.status === 'running') {
        // The second order waits ahead of it.
        assert.equal(c.body.queue_position, 2, JSON.stringify(c.body));
        assert.equal(c.body.progress, undefined);
        assert.ok(Number(c.headers.get('retry-after')) >= 5);
        // Seen: the two behind the first are not rendered. Canceled while queued, they leave the queue.
        if (!sawQueued) for (const o of [second, third]) assert.equal((await t.api('POST', `/videos/${o.body.id}/cancel`, { key })).status, 200);
        sawQueued = true;
      }
      if (a.body.status === 'done') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.ok(sawQueued, 'the third order was seen queued behind the second');
    assert.ok(progress.length >= 2, `progress seen ${progress.length} times`);
    assert.ok(
      progress.every((p, i) => i === 0 || p >= progress[i - 1]!),
      `progress only grows: ${progress.join(', ')}`,
    );
    assert.ok(progress.at(-1)! > progress[0]!, `progress moved: ${progress.join(', ')}`);
    const done = await waitForStatus(t, key, first.body.id, ['done']);
    const read = await t.api('GET', `/videos/${done.id}`, { key });
    assert.equal(read.headers.get('retry-after'), null);
    assert.equal(read.body.progress, undefined);
    assert.ok(read.body.finished_at >= read.body.started_at);
    const expires = Date.parse(read.body.expires_at);
    assert.ok(Math.abs(expires - (Date.now() + 7 * 24 * 3600_000)) < 60_000);
    assert.equal(new URL(read.body.result_url).searchParams.get('expires'), String(expires / 1000));
  });
});
