/**
 * POST /videos:quote on the local stack: the price of an order item by item, nothing charged; the same request with
 * its quote_id is charged exactly that, once; a quote for another request, a used or unknown one, or one that counted
 * on a trial video since used is 409 quote_invalid; max_cost refuses a dearer order before any charge.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, useStack } from '../support/stack.ts';

const t = useStack({ LIMIT_ACTIVE_TASKS: '20', LIMIT_POSTS_PER_MINUTE: '100' });
const SONG = { topic: 'Green tea', duration_seconds: 10, music: 'song', placement: { product: 'Tea Co' }, director_mode: true };
const balanceOf = async (key: string) => (await t.api('GET', '/balance', { key })).body.balance as number;

describe('quotes', () => {
  it('price an order item by item and charge nothing; the same request with the quote is charged exactly that, once', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const q = await t.api('POST', '/videos:quote', { key, body: SONG });
    assert.equal(q.status, 200, q.text);
    assert.deepEqual([q.body.cost, q.body.breakdown], [220, { base: 100, extras: { placement: 50, song: 70 }, trial: false, plan_allowance: false }]);
    assert.match(q.body.quote_id, /^quo_/);
    assert.equal(Date.parse(q.body.expires_at) - Date.now() > 14 * 60_000, true);
    assert.equal(q.body.params.music, 'song');
    assert.ok(q.body.eta_seconds > 0);
    assert.equal(await balanceOf(key), 1000, 'a quote charges nothing');

    const created = await t.api('POST', '/videos', { key, body: { ...SONG, quote_id: q.body.quote_id } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.cost, 220);
    assert.equal(await balanceOf(key), 780);
    // A quote prices one order.
    const again = await t.api('POST', '/videos', { key, body: { ...SONG, quote_id: q.body.quote_id } });
    assert.deepEqual([again.status, errorCode(again)], [409, 'quote_invalid']);
    assert.match(again.body.error.message, /was used by order vid_/);
    // A repeat with the creation's Idempotency-Key is the order's replay, not a used quote.
    const q2 = (await t.api('POST', '/videos:quote', { key, body: SONG })).body.quote_id;
    const keyed = { key, body: { ...SONG, quote_id: q2 }, headers: { 'idempotency-key': 'quote-1' } };
    const first = await t.api('POST', '/videos', keyed);
    const replay = await t.api('POST', '/videos', keyed);
    assert.deepEqual([first.status, replay.status, replay.body.id], [201, 200, first.body.id]);
    assert.equal(await balanceOf(key), 560);
  });

  it('refuses a quote made for another request, an unknown one, and one whose trial video was used meanwhile', async () => {
    const { apiKey: key } = await t.user({ balance: 1000, trialVideos: 1 });
    const quick = await t.api('POST', '/videos:quote', { key, body: { prompt: 'A 10 second video about oolong, with a song' } });
    assert.equal(quick.status, 200, quick.text);
    assert.deepEqual(quick.body.breakdown, { base: 0, extras: { song: 70 }, trial: true, plan_allowance: false });
    const other = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about puerh', quote_id: quick.body.quote_id } });
    assert.deepEqual([other.status, errorCode(other)], [409, 'quote_invalid']);
    assert.match(other.body.error.message, /different request/);
    const unknown = await t.api('POST', '/videos', { key, body: { ...SONG, quote_id: 'quo_01m8000000000000000000000a' } });
    assert.deepEqual([unknown.status, errorCode(unknown)], [409, 'quote_invalid']);
    // Another order takes the trial video: the quote counted on it.
    assert.equal((await t.api('POST', '/videos', { key, body: { topic: 'Tea', director_mode: true } })).status, 201);
    const late = await t.api('POST', '/videos:quick', { key, body: { prompt: 'A 10 second video about oolong, with a song', quote_id: quick.body.quote_id } });
    assert.deepEqual([late.status, errorCode(late)], [409, 'quote_invalid']);
    assert.match(late.body.error.message, /trial video/);
    assert.equal(await balanceOf(key), 1000, 'the refused orders charged nothing');
  });

  it('refuses with max_cost an order that would cost more, before any charge', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const over = await t.api('POST', '/videos', { key, body: { ...SONG, max_cost: 219 } });
    assert.deepEqual([over.status, errorCode(over)], [409, 'max_cost_exceeded']);
    assert.match(over.body.error.message, /costs 220 doubloons, more than max_cost 219/);
    assert.equal(await balanceOf(key), 1000);
    assert.equal((await t.api('POST', '/videos', { key, body: { ...SONG, max_cost: 220 } })).status, 201);
    assert.equal(await balanceOf(key), 780);
  });

  it('refuses what the creation would refuse, naming the field', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const ai = await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea', ai_visual: true } });
    assert.deepEqual([ai.status, ai.body.error.message.split(':')[0]], [422, 'ai_visual']);
    const tone = await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea', tone: 'sarcastic' } });
    assert.deepEqual([tone.status, tone.body.error.message.split(':')[0]], [422, 'tone']);
    const neither = await t.api('POST', '/videos:quote', { key, body: { colour: 'green' } });
    assert.equal(neither.status, 422);
    assert.equal((await t.api('POST', '/videos:quote', { body: { topic: 'Tea' } })).status, 401);
  });
});
