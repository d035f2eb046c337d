/**
 * The IETF RateLimit headers on keyed POSTs: RateLimit-Policy names the key's POSTs per minute, RateLimit what is left
 * of the window and the seconds until it resets, counting every kind of POST (one counted before its handler, a
 * creation counted in its own transaction, a refused one); the 429 shows nothing left. Keyed GETs alike, in a window
 * of their own (set small through LIMIT_GETS_PER_MINUTE): past it a GET is 429 rate_limited in the envelope with
 * Retry-After; another key, the key's POSTs and the routes without a key are not affected (issue 25). A DELETE counts in
 * the POST window: the key's writes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ApiResponse, errorCode, inOneWindow, retryAfterBounds, useStack } from '../support/stack.ts';

const LIMIT = 5;
const GETS = 5;
const t = useStack({ LIMIT_POSTS_PER_MINUTE: String(LIMIT), LIMIT_GETS_PER_MINUTE: String(GETS), WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });

/** What the RateLimit header says is left of the window of `policy`. */
const parsed = (res: ApiResponse, policy: 'posts' | 'gets' = 'posts') => {
  const m = new RegExp(`^"${policy}";r=(\\d+);t=(\\d+)$`).exec(res.headers.get('ratelimit') ?? '');
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
    assert.match(answers[6]![1].headers.get('ratelimit-policy') ?? '', /^"gets";q=\d+;w=60$/);
  });
  it('counts every keyed GET, answers the one past the limit 429 with Retry-After and RateLimit headers, and no other key', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const { apiKey: key } = await t.user({ balance: 1000 });
      const { apiKey: other } = await t.user({ balance: 1000 });
      const out: [string, ApiResponse][] = [];
      for (const path of ['/balance', '/videos', '/balance/transactions', '/webhooks', '/videos/vid_01kbg000000000000000000000']) {
        out.push([path, await t.api('GET', path, { key })]);
      }
      const sent = Date.now();
      out.push(['over', await t.api('GET', '/balance', { key })]);
      const answered = Date.now();
      out.push(['over, bad query', await t.api('GET', '/videos?limit=0', { key })]);
      out.push(['another key', await t.api('GET', '/balance', { key: other })]);
      out.push(['a POST of the key', await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } })]);
      out.push(['no key', await t.api('GET', '/openapi.json')]);
      return { out, sent, answered };
    });
    const { out, sent, answered } = result;
    assert.deepEqual(
      out.map(([what, r]) => [what, r.status, parsed(r, 'gets')?.remaining ?? null]),
      [
        ['/balance', 200, 4],
        ['/videos', 200, 3],
        ['/balance/transactions', 200, 2],
        ['/webhooks', 200, 1],
        ['/videos/vid_01kbg000000000000000000000', 404, 0],
        ['over', 429, 0],
        ['over, bad query', 429, 0],
        ['another key', 200, GETS - 1],
        ['a POST of the key', 200, null],
        ['no key', 200, null],
      ],
    );
    for (const [what, r] of out.slice(0, 8)) assert.equal(r.headers.get('ratelimit-policy'), `"gets";q=${GETS};w=60`, what);
    const over = out[5]![1];
    assert.equal(errorCode(over), 'rate_limited');
    assert.match(over.body.error.message, new RegExp(`${GETS} GET requests per minute`));
    const retryAfter = Number(over.headers.get('retry-after'));
    const [low, high] = retryAfterBounds(windowStart, sent, answered);
    assert.ok(retryAfter >= low && retryAfter <= high, `Retry-After ${retryAfter} not in [${low}, ${high}]`);
    assert.equal(parsed(over, 'gets')!.reset, retryAfter);
    // The key's POSTs keep their own window and policy; a route without a key shows none.
    assert.match(out[8]![1].headers.get('ratelimit-policy') ?? '', /^"posts";/);
    assert.equal(out[9]![1].headers.get('ratelimit-policy'), null);
  });
  it('counts every keyed DELETE in the POST window with its headers; past the limit 429 with Retry-After, and nothing deleted', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const { apiKey: key } = await t.user({ balance: 1000 });
      const out: [string, ApiResponse][] = [];
      const asset = { kind: 'image', content_type: 'image/png', size_bytes: 100 };
      out.push(['webhook', await t.api('POST', '/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } })]);
      out.push(['asset', await t.api('POST', '/assets', { key, body: asset })]);
      out.push(['asset kept', await t.api('POST', '/assets', { key, body: asset })]);
      out.push(['delete asset', await t.api('DELETE', `/assets/${out[1]![1].body.id}`, { key })]);
      out.push(['delete no asset', await t.api('DELETE', '/assets/ast_01kbg000000000000000000000', { key })]);
      const sent = Date.now();
      out.push(['delete webhook', await t.api('DELETE', `/webhooks/${out[0]![1].body.id}`, { key })]);
      const answered = Date.now();
      out.push(['delete asset kept', await t.api('DELETE', `/assets/${out[2]![1].body.id}`, { key })]);
      out.push(['a POST', await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } })]);
      out.push(['webhooks', await t.api('GET', '/webhooks', { key })]);
      out.push(['asset kept read', await t.api('GET', `/assets/${out[2]![1].body.id}`, { key })]);
      return { out, sent, answered };
    });
    const { out, sent, answered } = result;
    assert.deepEqual(
      out.map(([what, r]) => [what, r.status, parsed(r)?.remaining ?? null]),
      [
        ['webhook', 201, 4],
        ['asset', 201, 3],
        ['asset kept', 201, 2],
        ['delete asset', 204, 1],
        ['delete no asset', 404, 0],
        ['delete webhook', 429, 0],
        ['delete asset kept', 429, 0],
        ['a POST', 429, 0],
        ['webhooks', 200, null],
        ['asset kept read', 200, null],
      ],
    );
    for (const [what, r] of out.slice(3, 8)) assert.equal(r.headers.get('ratelimit-policy'), `"posts";q=${LIMIT};w=60`, what);
    const over = out[5]![1];
    assert.equal(errorCode(over), 'rate_limited');
    assert.match(over.body.error.message, new RegExp(`${LIMIT} POST and DELETE requests per minute`));
    const retryAfter = Number(over.headers.get('retry-after'));
    const [low, high] = retryAfterBounds(windowStart, sent, answered);
    assert.ok(retryAfter >= low && retryAfter <= high, `Retry-After ${retryAfter} not in [${low}, ${high}]`);
    assert.equal(parsed(over)!.reset, retryAfter);
    // Nothing deleted past the limit: the webhook and the asset are still there.
    assert.equal(out[8]![1].body.data.length, 1);
    assert.equal(out[8]![1].body.data[0].id, out[0]![1].body.id);
    assert.equal(out[9]![1].body.id, out[2]![1].body.id);
  });
});
