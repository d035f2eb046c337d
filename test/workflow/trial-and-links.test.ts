/**
 * Through the API on the local stack with real renders: a trial order's video carries the watermark `<service
 * address> (AI)`, read back from its frames with the real ffmpeg, and result_url lives 7 days from its issue.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REGIONS, watermarkFilter } from '../../functions/generator/render.ts';
import { framesAt, meanAbsDiff, probe } from '../support/media.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack();
const dir = mkdtempSync(join(tmpdir(), 'trial-links-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// The render step leaves its work folder (the order's mp4 and cover) in the temporary folder: keep them in ours.
process.env.TMPDIR = join(dir, 'tmp');
mkdirSync(process.env.TMPDIR);

const WEEK = 7 * 24 * 3600;
// Both orders ask for the same video, so their frames differ only where the trial's watermark is drawn.
const params = { topic: 'Green tea', duration_seconds: 10 };
const order = { trial: { id: '', key: '', file: '' }, paid: { id: '', key: '', file: '' } };

async function download(url: string, file: string): Promise<void> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `download ${url}`);
  assert.equal(res.headers.get('content-type'), 'video/mp4');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
}

/** Renders one trial and one paid order of the same parameters and downloads both through result_url. */
async function renderBoth(): Promise<void> {
  const trial = await t.user({ balance: 0, trialVideos: 1 });
  const paid = await t.user({ balance: 500 });
  const a = await t.api('POST', '/videos', { key: trial.apiKey, body: params });
  const b = await t.api('POST', '/videos', { key: paid.apiKey, body: params });
  assert.deepEqual([a.status, a.body.cost, b.status, b.body.cost], [201, 0, 201, 100]);
  order.trial = { id: a.body.id, key: trial.apiKey, file: join(dir, 'trial.mp4') };
  order.paid = { id: b.body.id, key: paid.apiKey, file: join(dir, 'paid.mp4') };
  for (const o of [order.trial, order.paid]) {
    const done = await waitForStatus(t, o.key, o.id, ['done', 'error'], 120_000);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    await download(done.result_url, o.file);
  }
}

let texts = 0;

/** The drawtext of `text` as the renderer draws the watermark (functions/generator/render.ts). */
function watermarkOf(text: string): string {
  const textFile = join(dir, `text-${texts++}.txt`);
  writeFileSync(textFile, text);
  return watermarkFilter(textFile);
}

/** A link to `name` of `orderId` by the scheme of functions/core/links.ts, signed with the stack's link key. */
function signedLink(orderId: string, name: string, expires: number): string {
  const sig = createHmac('sha256', t.stack.env.LINK_SIGNING_KEY!).update(`${orderId}/${name}/${expires}`).digest('base64url');
  return `${t.baseUrl}/files/${orderId}/${name}?expires=${expires}&sig=${sig}`;
}

/** GET /videos/{id} with the seconds it was sent and answered in, which bound the moment its links were issued. */
async function issue(o: { id: string; key: string }) {
  const sent = Math.floor(Date.now() / 1000);
  const res = await t.api('GET', `/videos/${o.id}`, { key: o.key });
  return { url: new URL(res.body.result_url), sent, answered: Math.floor(Date.now() / 1000) };
}

describe('orders rendered through the API', () => {
  before(renderBoth);

  describe('a trial order made through the API', () => {
    it('is marked trial, and its video carries the watermark `<service address> (AI)` on every scene', async () => {
      const got = await t.api('GET', `/videos/${order.trial.id}`, { key: order.trial.key });
      assert.equal(got.body.trial, true);
      assert.equal((await t.api('GET', `/videos/${order.paid.id}`, { key: order.paid.key })).body.trial, false);
      for (const file of [order.trial.file, order.paid.file]) assert.ok(Math.abs(probe(file).duration - 10) <= 0.5);

      const host = new URL(t.baseUrl).host;
      const expected = `${host} (AI)`;
      const wm = REGIONS.watermark;
      const times = [0.5, 5, 9.5];
      const [trialAt, paidAt] = [framesAt(order.trial.file, times), framesAt(order.paid.file, times)];
      for (const s of times) {
        const trial = trialAt.region(s, wm);
        const paid = paidAt.region(s, wm);
        // Something is drawn there on the trial video only; the captions of the two agree.
        assert.ok(meanAbsDiff(trial, paid) > 3, `watermark region differs by ${meanAbsDiff(trial, paid).toFixed(2)} at ${s}s`);
        const caption = meanAbsDiff(trialAt.region(s, REGIONS.caption), paidAt.region(s, REGIONS.caption));
        assert.ok(caption < 2, `captions differ by ${caption.toFixed(2)} at ${s}s`);
      }
      // And it is the expected text: the paid frame with that text drawn on it matches the trial frame (up to the
      // encoder's blur of the drawn text), several times better than with another address or without "(AI)".
      const s = 5;
      const trial = trialAt.region(s, wm);
      const right = meanAbsDiff(trial, paidAt.drawn(s, wm, watermarkOf(expected)));
      const wrong = meanAbsDiff(trial, paidAt.drawn(s, wm, watermarkOf(`${host.replace(/\d/g, '8')} (AI)`)));
      const noAi = meanAbsDiff(trial, paidAt.drawn(s, wm, watermarkOf(host)));
      assert.ok(
        right < 6 && right * 3 < wrong && right * 3 < noAi,
        `${right.toFixed(2)} from "${expected}", ${wrong.toFixed(2)} from another address, ${noAi.toFixed(2)} without (AI)`,
      );
    });
  });

  describe('result_url', () => {
    // The download route reads the real clock, so this test cannot wait 7 days. It proves the rule in two halves: a
    // link the service issues at T carries expires = T + 7 days under the link scheme, and the route refuses a link of
    // that scheme once its expires has passed (while one still ahead, signed the same way, is served): so the link of T
    // works until T + 7 days and answers 403 forbidden after. A fresh GET then issues a new working link.
    it('is valid 7 days from its issue: afterwards 403 forbidden in the envelope, and a fresh GET /videos/{id} gives a working one', async () => {
      const first = await issue(order.paid);
      const [, orderId, name] = /\/files\/([^/]+)\/([^/]+)$/.exec(first.url.pathname) ?? [];
      assert.equal(orderId, order.paid.id);
      const expires = Number(first.url.searchParams.get('expires'));
      assert.ok(expires >= first.sent + WEEK && expires <= first.answered + WEEK, `expires ${expires - first.sent} s after the issue, not ${WEEK}`);
      assert.equal(first.url.toString(), signedLink(orderId!, name!, expires), 'the service signs by the scheme reproduced here');

      const works = await fetch(first.url, { redirect: 'manual' });
      assert.equal(works.status, 302, 'at T the link works');
      await works.body?.cancel();
      const now = Math.floor(Date.now() / 1000);
      const ahead = await fetch(signedLink(orderId!, name!, now + 60), { redirect: 'manual' });
      assert.equal(ahead.status, 302, 'a link whose expires is still ahead is served');
      await ahead.body?.cancel();
      // The link as issued 7 days and 1 s ago: its expires has just passed.
      const issuedAWeekAgo = now - WEEK - 1;
      const expired = await t.api('GET', signedLink(orderId!, name!, issuedAWeekAgo + WEEK).slice(t.baseUrl.length));
      assert.equal(expired.status, 403);
      assert.equal(errorCode(expired), 'forbidden');
      assert.match(expired.body.error.message, /expired/);

      const fresh = await issue(order.paid);
      const freshExpires = Number(fresh.url.searchParams.get('expires'));
      assert.ok(freshExpires >= fresh.sent + WEEK && freshExpires <= fresh.answered + WEEK);
      const downloaded = await fetch(fresh.url);
      assert.equal(downloaded.status, 200);
      assert.equal(downloaded.headers.get('content-type'), 'video/mp4');
      assert.ok((await downloaded.arrayBuffer()).byteLength > 10_000);
    });
  });
});
