/**
 * The client's own metadata on an order (issue 30, item 2), on the local stack: sent on either creation route, stored
 * as sent, answered as `client_metadata` by GET, in GET /videos items and in the webhook body, found by
 * `GET /videos?metadata[KEY]=VALUE`; bad shapes are 422 naming the field, before any charge; a repeated Idempotency-Key
 * must send the same pairs. Quick orders fail at planning here (GENERATOR_FAIL=plan): a video.error event at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { receiver } from '../support/receiver.ts';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', GENERATOR_FAIL: 'plan' });
async function until(check: () => boolean, ms = 30_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('client metadata', () => {
  it('round-trips through create, GET, the list, the filter and the webhook body', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const hook = await receiver();
    assert.equal((await t.api('POST', '/webhooks', { key: apiKey, body: { url: hook.url } })).status, 201);
    const pairs = { crm_id: 'lead-4711', кампания: 'весна', 'utm.source': 'newsletter' };
    const quick = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea', metadata: pairs } });
    assert.equal(quick.status, 201, quick.text);
    const explicit = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', director_mode: true, metadata: { crm_id: 'lead-4712' } } });
    assert.equal(explicit.status, 201, explicit.text);
    const plain = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Coffee', director_mode: true } });

    assert.deepEqual((await t.api('GET', `/videos/${quick.body.id}`, { key: apiKey })).body.client_metadata, pairs);
    assert.deepEqual((await t.api('GET', `/videos/${explicit.body.id}`, { key: apiKey })).body.client_metadata, { crm_id: 'lead-4712' });
    assert.equal((await t.api('GET', `/videos/${plain.body.id}`, { key: apiKey })).body.client_metadata, undefined, 'none sent, none answered');

    const listed = (await t.api('GET', '/videos', { key: apiKey })).body.data as { id: string; client_metadata?: unknown }[];
    assert.deepEqual(listed.find((o) => o.id === quick.body.id)?.client_metadata, pairs);
    const filter = async (query: string) => ((await t.api('GET', `/videos?${query}`, { key: apiKey })).body.data as { id: string }[]).map((o) => o.id);
    assert.deepEqual(await filter('metadata[crm_id]=lead-4711'), [quick.body.id]);
    assert.deepEqual(await filter(`metadata[${encodeURIComponent('кампания')}]=${encodeURIComponent('весна')}`), [quick.body.id]);
    assert.deepEqual(
      await filter('metadata[crm_id]=lead-4712&status=awaiting_review'),
      (await waitForStatus(t, apiKey, explicit.body.id, ['awaiting_review'])) && [explicit.body.id],
    );
    assert.deepEqual(await filter('metadata[crm_id]=nobody'), []);

    await waitForStatus(t, apiKey, quick.body.id, ['error']);
    const bodies = () => hook.hits.map((h) => JSON.parse(h.raw.toString('utf8')) as Record<string, unknown>);
    await until(() => bodies().some((b) => b.id === quick.body.id && b.status === 'error'));
    assert.deepEqual(bodies().find((b) => b.id === quick.body.id)!.client_metadata, pairs);
  });

  it("round-trips keys named as Object.prototype's members, on both routes, in the filter and the webhook body", async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const hook = await receiver();
    assert.equal((await t.api('POST', '/webhooks', { key: apiKey, body: { url: hook.url } })).status, 201);
    // Those the key rule admits (the `__` ones begin with `_`: refused, as the test below shows for `__proto__`).
    const names = Object.getOwnPropertyNames(Object.prototype).filter((k) => /^[a-z]/i.test(k));
    assert.ok(names.includes('constructor') && names.length === 7, names.join());
    const pairs = Object.fromEntries(names.map((k) => [k, `${k}-value`]));
    const quick = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea', metadata: pairs } });
    assert.equal(quick.status, 201, quick.text);
    const explicit = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', director_mode: true, metadata: { constructor: 'c' } } });
    assert.equal(explicit.status, 201, explicit.text);

    assert.deepEqual((await t.api('GET', `/videos/${quick.body.id}`, { key: apiKey })).body.client_metadata, pairs);
    assert.deepEqual((await t.api('GET', `/videos/${explicit.body.id}`, { key: apiKey })).body.client_metadata, { constructor: 'c' });
    const filter = async (query: string) => {
      const res = await t.api('GET', `/videos?${query}`, { key: apiKey });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return (res.body.data as { id: string }[]).map((o) => o.id);
    };
    for (const k of names) assert.deepEqual(await filter(`metadata[${k}]=${k}-value`), [quick.body.id], k);
    assert.deepEqual(await filter('metadata[constructor]=c'), [explicit.body.id]);
    // An order without the pair does not match through its prototype.
    assert.deepEqual(await filter(`metadata[toString]=${encodeURIComponent(String(Object.prototype.toString))}`), []);

    // The order's events carry the pairs too (GENERATOR_FAIL=plan: video.error at once).
    await waitForStatus(t, apiKey, quick.body.id, ['error']);
    const bodies = () => hook.hits.map((h) => JSON.parse(h.raw.toString('utf8')) as Record<string, unknown>);
    await until(() => bodies().some((b) => b.id === quick.body.id && b.status === 'error'));
    assert.deepEqual(bodies().find((b) => b.id === quick.body.id)!.client_metadata, pairs);
  });

  it('refuses bad shapes with 422 naming the field, before any charge', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    for (const metadata of [
      many,
      { ['x'.repeat(41)]: 'v' },
      { '': 'v' },
      { 'a b': 'v' },
      { 'a[b]': 'v' },
      JSON.parse('{"__proto__": "v"}'),
      { _k: 'v' },
      { k: 'v'.repeat(501) },
      { k: 5 },
      ['k', 'v'],
      'k=v',
    ]) {
      for (const [path, body] of [
        ['/videos:quick', { prompt: 'tea', metadata }],
        ['/videos', { topic: 'Tea', metadata }],
      ] as const) {
        const res = await t.api('POST', path, { key: apiKey, body });
        assert.equal(res.status, 422, `${path} ${JSON.stringify(metadata).slice(0, 60)}`);
        assert.equal(errorCode(res), 'invalid_params');
        assert.match(res.body.error.message, /^metadata/, res.body.error.message);
      }
    }
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 1000, 'nothing charged');
    assert.equal(
      (
        await t.api('POST', '/videos:quick', {
          key: apiKey,
          body: { prompt: 'tea', metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'.repeat(500)])) },
        })
      ).status,
      201,
      '20 pairs of 500 characters pass',
    );
    for (const [query, field] of [
      ['metadata[a]=1&metadata[b]=2', 'metadata'],
      ['metadata[a%20b]=1', 'metadata'],
      ['metadata=1', 'metadata'],
      ['metadata[__proto__]=1', 'metadata.__proto__'],
      ['__proto__=1', '__proto__'],
    ]) {
      const res = await t.api('GET', `/videos?${query}`, { key: apiKey });
      assert.equal(res.status, 422, query);
      assert.ok(res.body.error.message.startsWith(field!), `${query}: ${res.body.error.message}`);
    }
  });

  it('holds a repeated Idempotency-Key to the same pairs, whatever their order', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const send = (metadata?: Record<string, string>) =>
      t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'tea', ...(metadata ? { metadata } : {}) }, headers: { 'Idempotency-Key': 'meta-1' } });
    const first = await send({ a: '1', b: '2' });
    assert.equal(first.status, 201);
    const again = await send({ b: '2', a: '1' });
    assert.equal(again.status, 200, 'the same pairs in another order are the same request');
    assert.equal(again.body.id, first.body.id);
    for (const other of [{ a: '1', b: '3' }, { a: '1' }, undefined] as (Record<string, string> | undefined)[]) {
      const res = await send(other);
      assert.equal(res.status, 422, JSON.stringify(other));
      assert.match(res.body.error.message, /^Idempotency-Key/);
    }
  });
});
