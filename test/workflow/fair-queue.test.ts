/**
 * Fair shares of the render queue on the local stack with one slot: a key that queued eight orders does not hold
 * back another key's one. The other key's order is second in line (behind the first key's next, as the rotation
 * stands when it arrives), its creation's eta and its GET say so, and it renders before the first key's third
 * order. The first key's orders still waiting are then canceled (refunded), so the test renders three videos.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' };
const t = useStack({ RENDER_SLOTS: '1', QUEUE_SNAPSHOT_MS: '0' });

describe('the render queue shared between keys', () => {
  it("puts a key's one order second in line after another key's eight, and renders it before that key's third", async () => {
    const heavy = await t.user({ balance: 100_000, trialVideos: 0 });
    const light = await t.user({ balance: 100_000, trialVideos: 0 });
    const many: { id: string; eta: number }[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await t.api('POST', '/videos', { key: heavy.apiKey, body: { topic: `Oolong number ${i}`, ...VIDEO } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      many.push({ id: r.body.id, eta: r.body.eta_seconds });
    }
    const one = await t.api('POST', '/videos', { key: light.apiKey, body: { topic: 'Sencha', ...VIDEO } });
    assert.equal(one.status, 201, JSON.stringify(one.body));
    const read = await t.api('GET', `/videos/${one.body.id}`, { key: light.apiKey });
    const position = read.body.status === 'queued' ? read.body.queue_position : 0;
    assert.ok(position >= 1 && position <= 2, `the light key's order is ${position} in line (${read.body.status})`);
    console.log(`light key's order: queue_position ${position}, eta ${one.body.eta_seconds} s; heavy key's eighth: ${many.at(-1)!.eta} s`);
    const last = await t.api('GET', `/videos/${many.at(-1)!.id}`, { key: heavy.apiKey });
    assert.ok(last.body.queue_position >= 7, `the heavy key's eighth is ${last.body.queue_position} in line`);
    assert.ok(one.body.eta_seconds < many.at(-1)!.eta, `created with eta ${one.body.eta_seconds} s, the heavy key's eighth ${many.at(-1)!.eta} s`);

    const done = await waitForStatus(t, light.apiKey, one.body.id, ['done', 'error'], 240_000);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const before = [];
    for (const o of many) {
      const r = await t.api('GET', `/videos/${o.id}`, { key: heavy.apiKey });
      if (r.body.status === 'done' || r.body.status === 'running') before.push(o.id);
    }
    // The one rendering when it arrived, the heavy key's head then, and at most the next that started after it.
    assert.ok(before.length <= 3, `${before.length} of the heavy key's orders rendered or started before it was done`);
    const third = await t.api('GET', `/videos/${many[2]!.id}`, { key: heavy.apiKey });
    assert.ok(Date.parse(third.body.updated_at) >= Date.parse(done.updated_at) || third.body.status !== 'done', 'its third finished after');

    for (const o of many) {
      const r = await t.api('POST', `/videos/${o.id}/cancel`, { key: heavy.apiKey });
      assert.ok(r.status === 200 || r.status === 409, JSON.stringify(r.body));
    }
    for (const o of many) assert.ok(['done', 'error'].includes((await waitForStatus(t, heavy.apiKey, o.id, ['done', 'error'], 240_000)).status));
  });
});
