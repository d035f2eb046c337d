/**
 * Isolation: every keyed route is tried with another user's ids, and with a replaced (revoked), revoked, malformed
 * and missing key. No answer may carry the owner's data, nothing of the owner's may change, and a key that is not
 * current is 401 on every route.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUTES } from '../../functions/http/routes.ts';
import { useStack, waitForStatus, type ApiResponse } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on', WEBHOOK_RETRY_BASE_MS: '60000' });
const services = async () => (await import('../../functions/app/services.ts')).services();

/** The bodies the routes take; the creations name the owner's asset (`ids.asset`), which they must refuse. */
const bodies = (ids: { asset?: string }): Record<string, unknown> => ({
  'create-quick': { prompt: 'A 10 second video about secrets', ...(ids.asset ? { logo: ids.asset } : {}) },
  'create-video': { topic: 'Secrets', duration_seconds: 10, ...(ids.asset ? { placement: { product: 'Secret', image: ids.asset } } : {}) },
  'review-video': { action: 'edit', text: `Taken over${ids.asset ? `\nImage: ${ids.asset}` : ''}` },
  'create-webhook': { url: 'http://127.0.0.1:9/taken-over' },
  'quote-video': { topic: 'Secrets' },
  'resend-events': { since: '2026-01-01T00:00:00Z' },
  'create-asset': { kind: 'image', content_type: 'image/png', size_bytes: 68 },
  'set-balance-alert': { below: 999 },
  // rotate-webhook, test-webhook, cancel-video, delete-asset: no body (rotate's fields are all optional).
});

/** Every keyed route with its path filled with the owner's ids. */
function calls(ids: { order: string; webhook: string; asset?: string }) {
  const of = (path: string) => (path.startsWith('/webhooks') ? ids.webhook : path.startsWith('/assets') ? (ids.asset ?? ids.order) : ids.order);
  return ROUTES.filter((r) => r.auth).map((r) => ({
    route: r,
    path: r.path.replace('{id}', of(r.path)),
    body: bodies(ids)[r.handler],
  }));
}

/** The other key of the run: another user's, or the owner's own test-mode key (issue 30: test and live never mix). */
const others = {
  'another user': async () => (await t.user({ balance: 1000 })).apiKey,
  'the owner’s own test-mode key': async (ownerId: string) => (await (await services()).stores.accounts.issueTestKey(ownerId, new Date())).apiKey,
};

describe('isolation between users', () => {
  for (const [who, otherKey] of Object.entries(others))
    it(`${who} reaches none of the owner’s orders, webhooks, deliveries or assets, and changes nothing`, async () => {
      const owner = await t.user({ balance: 1000 });
      const other = { apiKey: await otherKey(owner.userId) };
      const otherBalance = (await t.api('GET', '/balance', { key: other.apiKey })).body.balance;
      const hook = await t.api('POST', '/webhooks', { key: owner.apiKey, body: { url: 'http://127.0.0.1:9/owner-hook' } });
      assert.equal((await t.api('POST', '/balance/alerts', { key: owner.apiKey, body: { below: 300 } })).status, 200);
      const order = await t.api('POST', '/videos', {
        key: owner.apiKey,
        body: { topic: 'The owner’s private topic', duration_seconds: 10, director_mode: true, metadata: { crm: 'owner-secret-crm' } },
      });
      const waiting = await waitForStatus(t, owner.apiKey, order.body.id, ['awaiting_review']);
      // The owner's picture, uploaded and checked (an order of the owner's names it).
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64');
      const asset = await t.api('POST', '/assets', { key: owner.apiKey, body: { kind: 'image', content_type: 'image/png', size_bytes: png.length } });
      const { 'Content-Length': _, ...headers } = asset.body.upload.headers;
      const put = await fetch(asset.body.upload.url, { method: 'PUT', headers, body: new Uint8Array(png) });
      assert.equal(put.status, 200);
      const owned = await t.api('POST', '/videos', {
        key: owner.apiKey,
        body: { topic: 'Logo', duration_seconds: 10, director_mode: true, logo: asset.body.id },
      });
      assert.equal(owned.status, 201, owned.text);
      const secrets = [hook.body.secret, 'owner-hook', 'private topic', waiting.script.slice(0, 40), 'owner-secret-crm', asset.body.upload.url.split('?')[1]];
      const ids = { order: order.body.id, webhook: hook.body.id, asset: asset.body.id };

      const tried: string[] = [];
      for (const c of calls(ids)) {
        const res: ApiResponse = await t.api(c.route.method, c.path, { key: other.apiKey, ...(c.body ? { body: c.body } : {}) });
        tried.push(`${c.route.method} ${c.path} -> ${res.status}`);
        for (const s of secrets) assert.ok(!res.text.includes(s), `${c.route.method} ${c.path} leaks "${s}"`);
        if (c.path.includes(order.body.id) || c.path.includes(hook.body.id) || c.path.includes(asset.body.id)) {
          assert.ok([403, 404].includes(res.status), `${c.route.method} ${c.path}: ${res.status}`);
        }
        // An order naming the owner's picture is refused, naming the field, and charges nothing.
        if (c.route.handler === 'create-video' || c.route.handler === 'create-quick') {
          assert.equal(res.status, 422, `${c.route.method} ${c.path} with the owner's asset: ${res.text}`);
          assert.match(res.body.error.message, /^(placement\.image|logo): /);
        }
      }
      console.log(`# ${tried.join('; ')}`);
      // The other user's own lists and balance show only their own: the owner's metadata pair finds nothing of theirs.
      const found = await t.api('GET', '/videos?metadata[crm]=owner-secret-crm', { key: other.apiKey });
      assert.deepEqual([found.status, found.body.data], [200, []]);
      const hooks = await t.api('GET', '/webhooks', { key: other.apiKey });
      assert.ok(hooks.body.data.every((h: { id: string }) => h.id !== hook.body.id));
      // The owner's order, webhook and money are as they were (the other's creations were charged to the other).
      const after = await t.api('GET', `/videos/${order.body.id}`, { key: owner.apiKey });
      assert.equal(after.body.status, 'awaiting_review');
      assert.equal(after.body.script, waiting.script);
      const ownerHooks = await t.api('GET', '/webhooks', { key: owner.apiKey });
      assert.deepEqual(
        ownerHooks.body.data.map((h: { id: string; url: string }) => [h.id, h.url]),
        [[hook.body.id, 'http://127.0.0.1:9/owner-hook']],
      );
      const balance = (await t.api('GET', '/balance', { key: owner.apiKey })).body;
      assert.equal(balance.balance, 1000 - order.body.cost - owned.body.cost);
      // The other key's POST /balance/alerts set its own alert, not the owner's.
      assert.deepEqual([balance.low_balance_alert, balance.spend.spent], [{ below: 300, sent: false }, order.body.cost + owned.body.cost]);
      // The owner's picture is there, the other's list has none of it, and the other was charged for nothing.
      assert.equal((await t.api('GET', `/assets/${asset.body.id}`, { key: owner.apiKey })).body.status, 'ready');
      assert.ok((await t.api('GET', '/assets', { key: other.apiKey })).body.data.every((a: { id: string }) => a.id !== asset.body.id));
      assert.equal((await t.api('GET', '/balance', { key: other.apiKey })).body.balance, otherBalance);
    });

  it('a replaced, revoked, malformed or missing key is 401 on every keyed route, and nothing happens', async () => {
    const owner = await t.user({ balance: 1000 });
    const hook = await t.api('POST', '/webhooks', { key: owner.apiKey, body: { url: 'http://127.0.0.1:9/owner-hook' } });
    const order = await t.api('POST', '/videos', { key: owner.apiKey, body: { topic: 'Tea', duration_seconds: 10, director_mode: true } });
    await waitForStatus(t, owner.apiKey, order.body.id, ['awaiting_review']);
    const { accounts } = (await services()).stores;
    const replaced = owner.apiKey;
    const current = await accounts.issueKey(owner.userId, new Date());
    const revokedUser = await t.user({ balance: 1000 });
    await accounts.revokeKey(revokedUser.userId);
    const keys: [string, string | undefined][] = [
      ['replaced', replaced],
      ['revoked', revokedUser.apiKey],
      ['missing', undefined],
      ['empty', ''],
      ['truncated', current.slice(0, -1)],
      ['changed', current.slice(0, -1) + (current.endsWith('A') ? 'B' : 'A')],
      ['another prefix', current.replace('vgk_', 'sk_')],
      ['user id only', `vgk_${owner.userId}_`],
      ['oversized', `vgk_${'a'.repeat(4096)}`],
    ];
    let count = 0;
    for (const [name, key] of keys) {
      for (const c of calls({ order: order.body.id, webhook: hook.body.id })) {
        const res = await t.api(c.route.method, c.path, { ...(key !== undefined ? { key } : {}), ...(c.body ? { body: c.body } : {}) });
        assert.equal(res.status, 401, `${name} key: ${c.route.method} ${c.path}`);
        assert.equal(res.body.error.code, 'unauthorized');
        count++;
      }
    }
    assert.equal(count, keys.length * ROUTES.filter((r) => r.auth).length);
    const ledger = await accounts.ledger(owner.userId);
    assert.deepEqual(
      ledger.filter((e) => e.kind === 'charge').map((e) => e.orderId),
      [order.body.id],
      'only the first order was charged',
    );
    const now = await t.api('GET', `/videos/${order.body.id}`, { key: current });
    assert.equal(now.body.status, 'awaiting_review', 'the review sent with old keys did nothing');
    assert.equal((await t.api('GET', '/webhooks', { key: current })).body.data.length, 1);
  });
});
