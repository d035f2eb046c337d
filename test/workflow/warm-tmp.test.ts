/**
 * A warm environment's /tmp stays flat: the local runtime runs every step in this one long-lived process, as a warm
 * Lambda environment runs invocation after invocation, with the process's temporary folder pointed at a folder of the
 * test's own. Orders are rendered in rounds, done and failed ones, and after each round nothing of a render is left;
 * a folder a killed render left behind (older than the longest render) is swept by the next render.
 * GENERATOR_FAIL picks the orders that fail by their ids (functions/app/faults.ts), so the test knows each order's
 * end from its id: each round makes orders until one will be rendered to its end, and by the last round one has
 * failed at its render (one failing at its script, made on the way, never reaches the render). Three rounds of one
 * video each cost half the renders of three rounds of four orders, and no round can miss a video by chance.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { failsAt } from '../../functions/app/faults.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const scratch = mkdtempSync(join(tmpdir(), 'warm-tmp-'));
const savedTmp = process.env.TMPDIR;
// Set before the stack starts: os.tmpdir() reads it at each call, so every render of this process writes here.
process.env.TMPDIR = scratch;
// Half the orders fail, half of those at the script and half at the render (GENERATOR_FAIL random:0.5).
const FAULT = { rate: 0.5 };
const t = useStack({ RENDER_SLOTS: '2', GENERATOR_FAIL: `random:${FAULT.rate}` });
/** Where an order fails, or 'done': GENERATOR_FAIL's choice, made from the order's id. */
const fateOf = (id: string) => (['script', 'render'] as const).find((stage) => failsAt(FAULT, id, stage)) ?? 'done';
after(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(scratch, { recursive: true, force: true });
});

/** Bytes and entries under the temporary folder, but the local stack's own data folders. */
function usage(): { bytes: number; entries: string[] } {
  const entries = readdirSync(scratch).filter((n) => !n.startsWith('video-service-test-'));
  let bytes = 0;
  for (const e of entries) {
    for (const f of readdirSync(join(scratch, e), { recursive: true }) as string[]) {
      const s = statSync(join(scratch, e, f));
      if (s.isFile()) bytes += s.size;
    }
  }
  return { bytes, entries };
}

describe("a warm environment's /tmp", () => {
  it('stays flat over rounds of renders, done or failed, and loses what a killed render left', async () => {
    const { apiKey: key } = await t.user({ balance: 100_000 });
    // A killed render's folder from an hour ago, and a young folder of another process's render in progress.
    const stale = join(scratch, 'order-killed');
    mkdirSync(stale);
    writeFileSync(join(stale, 'video.mp4'), Buffer.alloc(1 << 20));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    const young = join(scratch, 'order-other');
    mkdirSync(young);

    const rounds: { done: number; failed: number; bytes: number; entries: string[] }[] = [];
    const ROUNDS = 3;
    const made: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ids: string[] = [];
      const enough = () => ids.some((id) => fateOf(id) === 'done') && (round < ROUNDS - 1 || made.some((id) => fateOf(id) === 'render'));
      for (let i = 0; !enough(); i++) {
        assert.ok(i < 30, `30 orders, and not yet the ends the round needs: ${ids.map(fateOf).join(', ')}`);
        const res = await t.api('POST', '/videos', {
          key,
          body: { topic: `Green tea, round ${round}, order ${i}`, duration_seconds: 10, voice: 'none', music: 'none' },
        });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
        made.push(res.body.id);
      }
      const ends = await Promise.all(ids.map((id) => waitForStatus(t, key, id, ['done', 'error'], 120_000)));
      for (const o of ends) assert.equal(o.status, fateOf(o.id) === 'done' ? 'done' : 'error', `order ${o.id} (${fateOf(o.id)})`);
      rounds.push({ done: ends.filter((o) => o.status === 'done').length, failed: ends.filter((o) => o.status === 'error').length, ...usage() });
    }
    assert.ok(rounds.reduce((n, r) => n + r.done, 0) >= 3, `some orders were rendered: ${JSON.stringify(rounds)}`);
    assert.ok(rounds.reduce((n, r) => n + r.failed, 0) >= 1, `some orders failed: ${JSON.stringify(rounds)}`);
    // After every round: only the young folder of "another render" is there, empty; the killed one is gone.
    for (const r of rounds) assert.deepEqual([r.entries, r.bytes], [['order-other'], 0], JSON.stringify(rounds));
  });
});
