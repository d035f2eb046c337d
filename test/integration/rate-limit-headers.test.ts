/**
 * The IETF RateLimit headers on keyed POSTs: RateLimit-Policy names the key's POSTs per minute, RateLimit what is left
 * of the window and the seconds until it resets, counting every kind of POST (one counted before its handler, a
 * creation counted in its own transaction, a refused one); the 429 shows nothing left. GETs carry none.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ApiResponse, inOneWindow, useStack } from '../support/stack.ts';

const LIMIT = 5;
const t = useStack({ LIMIT_POSTS_PER_MINUTE: String(LIMIT), WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });

const parsed = (res: ApiResponse) => {
  const m = /^"posts";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
  return m ? { remaining: Number(m[1]), reset: Number(m[2]) } : undefined;
};

describe('RateLimit headers', () => {
  it('show the POST window of the key on every keyed POST, and the spent window on its 429', async () => {
    const { result: answers } = await inOneWindow(async () => {
      const { apiKey: key } = await t.user({ balance: 1000 });
      const out: [string, ApiResponse][] = [];
      out.push(['webhook', await t.api('POST', '/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } })]);
      out.push(['quote', await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } })]);
      out.push(['creation', await t.api('POST', '/videos', { key, body: { topic: 'Tea', director_mode: true } })]);
      out.push(['refused', await t.api('POST', '/videos', { key, body: { topic: 'Tea', tone: 'sarcastic' } })]);
      out.push(['fifth', await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } })]);
      out.push(['over', await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } })]);
      out.push(['get', await t.api('GET', '/balance', { key })]);
      return out;
    });
    assert.deepEqual(
      answers.map(([what, r]) => [what, r.status, parsed(r)?.remaining ?? null]),
      [
        ['webhook', 201, 4],
        ['quote', 200, 3],
        ['creation', 201, 2],
        ['refused', 422, 1],
        ['fifth', 200, 0],
        ['over', 429, 0],
        ['get', 200, null],
      ],
    );
    for (const [what, r] of answers.slice(0, 6)) {
      assert.equal(r.headers.get('ratelimit-policy'), `"posts";q=${LIMIT};w=60`, what);
      const reset = parsed(r)!.reset;
      assert.ok(reset >= 1 && reset <= 60, `${what}: t=${reset}`);
    }
    const over = answers[5]![1];
    assert.equal(parsed(over)!.reset, Number(over.headers.get('retry-after')));
    assert.equal(answers[6]![1].headers.get('ratelimit-policy'), null);
  });
});
