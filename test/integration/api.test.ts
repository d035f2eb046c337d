/**
 * The HTTP API against the real local stack: authentication, balance, creation rules, idempotency, limits, order
 * reads and the error envelope. Given / when / then, through HTTP to the local gateway.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { errorCode, inOneWindow, liveBalance, retryAfterBounds, useStack } from '../support/stack.ts';

// The API alone: executions are held, so no video renders in the background.
const t = useStack({ LOCAL_SFN_HOLD: '1' });
const quick = { prompt: 'A short video about green tea' };

async function scanAll(): Promise<Record<string, unknown>[]> {
  const { aws } = await import('../../functions/adapters/aws.ts');
  const out = await aws().ddb.send(new ScanCommand({ TableName: process.env.TABLE_NAME! }));
  return out.Items ?? [];
}

describe('authentication', () => {
  it('answers 401 unauthorized for a missing, malformed, unknown or revoked key, on every route', async () => {
    const { userId, apiKey } = await t.user({ balance: 500 });
    const unknown = apiKey.replace(/_[^_]{43}$/, `_${'A'.repeat(43)}`);
    const { services } = await import('../../functions/app/services.ts');
    await services().stores.accounts.revokeKey(userId);
    for (const key of [undefined, 'nonsense', 'vgk_', unknown, apiKey]) {
      for (const [method, path, body] of [
        ['GET', '/balance'],
        ['GET', '/videos/vid_01m837a36rwd3vvm20wnzfsswb'],
        ['POST', '/videos:quick', quick],
        ['POST', '/videos', { topic: 'x' }],
      ] as const) {
        const res = await t.api(method, path, { ...(key ? { key } : {}), ...(body ? { body } : {}) });
        assert.equal(res.status, 401, `${method} ${path} with ${key}`);
        assert.equal(errorCode(res), 'unauthorized');
      }
    }
  });

  it('stores keys only as hashes', async () => {
    const { userId, apiKey } = await t.user({ balance: 100 });
    const items = await scanAll();
    assert.ok(!JSON.stringify(items).includes(apiKey.slice(31)), 'the secret part of a key appears in the table');
    const profile = items.find((i) => i.PK === `USER#${userId}` && i.SK === 'PROFILE')!;
    assert.equal(profile.keyHash, createHash('sha256').update(apiKey).digest('hex'));
  });

  it('revokes a reissued key on its very next call', async () => {
    const { userId, apiKey } = await t.user({ balance: 100 });
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).status, 200);
    const { services } = await import('../../functions/app/services.ts');
    const fresh = await services().stores.accounts.issueKey(userId, new Date());
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).status, 401);
    assert.equal((await t.api('GET', '/balance', { key: fresh })).status, 200);
  });
});

describe('balance', () => {
  it('shows doubloons and trial videos, and the heavy allowance for a plan', async () => {
    const plain = await t.user({ balance: 250, trialVideos: 3 });
    assert.deepEqual((await t.api('GET', '/balance', { key: plain.apiKey })).body, liveBalance({ balance: 250, trial_videos_left: 3 }));
    const planned = await t.user({ balance: 0, plan: { name: 'creator', heavyPerMonth: 20 } });
    assert.deepEqual(
      (await t.api('GET', '/balance', { key: planned.apiKey })).body,
      liveBalance({ balance: 0, trial_videos_left: 0, plan: 'creator', heavy_videos_left: 20 }),
    );
  });
});

describe('creating orders', () => {
  it('answers 201 with id, queued, cost and eta_seconds, and the order reads back', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const res = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Morning routine', placement: { product: 'Tea' } } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['cost', 'eta_seconds', 'id', 'status']);
    assert.equal(res.body.status, 'queued');
    assert.equal(res.body.cost, 150);
    assert.ok(Number.isInteger(res.body.eta_seconds) && res.body.eta_seconds > 0);
    const got = await t.api('GET', `/videos/${res.body.id}`, { key: apiKey });
    assert.equal(got.status, 200);
    assert.equal(got.body.id, res.body.id);
    assert.equal(got.body.status, 'queued');
    assert.equal(got.body.cost, 150);
    assert.equal(got.body.trial, false);
    assert.equal(got.body.params.language, 'en');
    assert.equal(got.body.result_url, undefined);
    assert.deepEqual((await t.api('GET', '/balance', { key: apiKey })).body, liveBalance({ balance: 850, trial_videos_left: 0 }, 150));
  });

  it('prices a quick order from the extras its prompt asks for', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const res = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'Видео про кофе с песней' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.cost, 170);
    const got = await t.api('GET', `/videos/${res.body.id}`, { key: apiKey });
    assert.equal(got.body.params.music, 'song');
    assert.equal(got.body.params.language, 'ru');
  });

  it('makes a trial order free of the base price and marks it for the watermark', async () => {
    const { apiKey } = await t.user({ balance: 0, trialVideos: 1 });
    const res = await t.api('POST', '/videos:quick', { key: apiKey, body: quick });
    assert.equal(res.status, 201);
    assert.equal(res.body.cost, 0);
    const got = await t.api('GET', `/videos/${res.body.id}`, { key: apiKey });
    assert.equal(got.body.trial, true);
    assert.deepEqual((await t.api('GET', '/balance', { key: apiKey })).body, liveBalance({ balance: 0, trial_videos_left: 0 }));
    // The trial is used up: the next order is paid, and the balance is short.
    const next = await t.api('POST', '/videos:quick', { key: apiKey, body: quick });
    assert.equal(next.status, 402);
    assert.equal(errorCode(next), 'insufficient_funds');
  });

  it('takes heavy videos from a plan, then answers 409 fair_use_exceeded unless billing is doubloons', async () => {
    const { apiKey } = await t.user({ balance: 1000, plan: { name: 'creator', heavyPerMonth: 1 } });
    const first = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'x', music: 'song' } });
    assert.equal(first.status, 201);
    assert.equal(first.body.cost, 100);
    const second = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'x', music: 'song' } });
    assert.equal(second.status, 409);
    assert.equal(errorCode(second), 'fair_use_exceeded');
    const paid = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'x', music: 'song', billing: 'doubloons' } });
    assert.equal(paid.status, 201);
    assert.equal(paid.body.cost, 170);
    assert.deepEqual(
      (await t.api('GET', '/balance', { key: apiKey })).body,
      liveBalance({ balance: 730, trial_videos_left: 0, plan: 'creator', heavy_videos_left: 0 }, 270),
    );
  });
});

describe('paid extras this service cannot deliver', () => {
  it('refuses AI visuals and a cloned voice with 422 naming the field, on both creation routes, and charges nothing', async () => {
    const { apiKey } = await t.user({ balance: 1000, trialVideos: 1 });
    const visual = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', ai_visual: true } });
    assert.equal(visual.status, 422);
    assert.equal(errorCode(visual), 'invalid_params');
    assert.match(visual.body.error.message, /^ai_visual: .*no image generator/);
    const voice = await t.api('POST', '/videos', { key: apiKey, body: { topic: 'Tea', voice: 'clone' } });
    assert.equal(voice.status, 422);
    assert.match(voice.body.error.message, /^voice: .*cloned voice/);
    const quick = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'A video about tea in my own voice' } });
    assert.equal(quick.status, 422);
    assert.match(quick.body.error.message, /^voice: the prompt asks for a cloned voice/);
    assert.deepEqual((await t.api('GET', '/balance', { key: apiKey })).body, liveBalance({ balance: 1000, trial_videos_left: 1 }));
  });
});

describe('Idempotency-Key', () => {
  it('replays the original task with 200 and charges once', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const headers = { 'Idempotency-Key': 'order-42' };
    const first = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    const again = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(first.status, 201);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 900);
  });

  it('replays even when the first request spent what a new order would need (the balance, here)', async () => {
    // A client whose first answer was lost retries with the same key: the original order, not 402.
    const { apiKey } = await t.user({ balance: 100 });
    const headers = { 'Idempotency-Key': 'last-doubloons' };
    const first = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(first.status, 201);
    const again = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.id, first.body.id);
    assert.equal(
      errorCode(await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers: { 'Idempotency-Key': 'another' } })),
      'insufficient_funds',
    );
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 0);
  });

  it('answers 422 naming Idempotency-Key for a different body or the other route', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const headers = { 'Idempotency-Key': 'k1' };
    assert.equal((await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers })).status, 201);
    for (const res of [
      await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'Something else' }, headers }),
      await t.api('POST', '/videos', { key: apiKey, body: { topic: 'tea' }, headers }),
    ]) {
      assert.equal(res.status, 422);
      assert.equal(errorCode(res), 'invalid_params');
      assert.match(res.body.error.message, /Idempotency-Key/);
    }
    const tooLong = await t.api('POST', '/videos:quick', { key: apiKey, body: quick, headers: { 'Idempotency-Key': 'x'.repeat(256) } });
    assert.equal(tooLong.status, 422);
    assert.match(tooLong.body.error.message, /^Idempotency-Key: /);
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 900);
  });

  it('is scoped to the user: another user with the same key gets their own order', async () => {
    const a = await t.user({ balance: 100 });
    const b = await t.user({ balance: 100 });
    const headers = { 'Idempotency-Key': 'shared' };
    const ra = await t.api('POST', '/videos:quick', { key: a.apiKey, body: quick, headers });
    const rb = await t.api('POST', '/videos:quick', { key: b.apiKey, body: quick, headers });
    assert.deepEqual([ra.status, rb.status], [201, 201]);
    assert.notEqual(ra.body.id, rb.body.id);
  });
});

describe('limits', () => {
  it('answers the 11th active order with 429 active_tasks_exceeded and Retry-After', async () => {
    const { apiKey } = await t.user({ balance: 10_000 });
    for (let i = 0; i < 10; i++) assert.equal((await t.api('POST', '/videos:quick', { key: apiKey, body: quick })).status, 201);
    const res = await t.api('POST', '/videos:quick', { key: apiKey, body: quick });
    assert.equal(res.status, 429);
    assert.equal(errorCode(res), 'active_tasks_exceeded');
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 9000);
  });

  it('answers the 31st POST in a minute with 429 rate_limited and the seconds to the window end', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const { apiKey } = await t.user({ balance: 0 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await t.api('POST', '/videos:quick', { key: apiKey, body: i % 2 ? quick : { prompt: '' } })).status);
      const sent = Date.now();
      const last = await t.api('POST', '/videos:quick', { key: apiKey, body: quick });
      return { apiKey, statuses, last, sent, answered: Date.now() };
    });
    const { apiKey, statuses, last: res } = result;
    assert.deepEqual(new Set(statuses), new Set([402, 422]), 'every POST is counted, failed ones too');
    assert.equal(res.status, 429);
    assert.equal(errorCode(res), 'rate_limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    const [lo, hi] = retryAfterBounds(windowStart, result.sent, result.answered);
    assert.ok(retryAfter >= lo && retryAfter <= hi, `Retry-After ${retryAfter}, expected ${lo}..${hi}`);
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).status, 200, 'GET is not limited');
  });
});

describe('reading orders', () => {
  it('answers 404 for none and 403 for another user’s order', async () => {
    const owner = await t.user({ balance: 100 });
    const other = await t.user({ balance: 100 });
    const { id } = (await t.api('POST', '/videos:quick', { key: owner.apiKey, body: quick })).body;
    const foreign = await t.api('GET', `/videos/${id}`, { key: other.apiKey });
    assert.equal(foreign.status, 403);
    assert.equal(errorCode(foreign), 'forbidden');
    for (const bad of ['vid_01m837a36rwd3vvm20wnzfsswb', 'nope', '..%2F..%2Fbalance', `vid_${'z'.repeat(300)}`]) {
      const res = await t.api('GET', `/videos/${bad}`, { key: other.apiKey });
      assert.equal(res.status, 404, bad);
      assert.equal(errorCode(res), 'not_found');
    }
  });
});

describe('the error envelope', () => {
  it('answers malformed JSON, wrong content types and oversized bodies with 400 bad_request', async () => {
    const { apiKey } = await t.user({ balance: 100 });
    const cases = [
      { rawBody: '{"prompt":', headers: { 'content-type': 'application/json' } },
      { rawBody: '', headers: { 'content-type': 'application/json' } },
      { rawBody: 'prompt=tea', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { rawBody: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), headers: { 'content-type': 'application/json' } },
      { rawBody: JSON.stringify({ prompt: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' } },
    ];
    for (const c of cases) {
      const res = await t.api('POST', '/videos:quick', { key: apiKey, ...c });
      assert.equal(res.status, 400, String(c.rawBody).slice(0, 40));
      assert.equal(errorCode(res), 'bad_request');
    }
  });

  it('answers 422 invalid_params naming the field and the reason', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const cases: [unknown, RegExp][] = [
      [{}, /^topic: is required/],
      [{ topic: 'x', director_mode: 'yes' }, /^director_mode: /],
      [{ topic: 'x', surprise: true }, /^surprise: unknown field/],
      [{ topic: 'x', music: 'polka' }, /^music: /],
      [[], /^body: /],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('POST', '/videos', { key: apiKey, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(errorCode(res), 'invalid_params');
      assert.match(res.body.error.message, message);
    }
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, 1000, 'nothing charged');
  });

  it('answers unknown routes with 404 not_found, and carries a request id in the header and the envelope', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['DELETE', '/balance'],
      ['GET', '/videos:quick'],
    ] as const) {
      const res = await t.api(method, path);
      assert.equal(res.status, 404);
      assert.equal(errorCode(res), 'not_found');
      assert.ok(res.headers.get('x-request-id'));
      assert.equal(res.body.error.request_id, res.headers.get('x-request-id'));
    }
  });
});

describe('reviewing an order', () => {
  it('validates the decision, answers 404 and 403, and 409 not_awaiting_review for an order that does not wait', async () => {
    const owner = await t.user({ balance: 100 });
    const other = await t.user({ balance: 100 });
    const { id } = (await t.api('POST', '/videos:quick', { key: owner.apiKey, body: quick })).body;
    const cases: [unknown, RegExp][] = [
      [{ action: 'edit' }, /^text: is required/],
      [{ action: 'regen', note: ' ' }, /^note: must not be empty/],
      [{ action: 'publish' }, /^action: must be one of approve, edit, regen/],
      [{ action: 'approve', text: 'x' }, /^text: unknown field/],
    ];
    for (const [body, message] of cases) {
      const res = await t.api('POST', `/videos/${id}/review`, { key: owner.apiKey, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(res.body.error.message, message);
    }
    const waiting = await t.api('POST', `/videos/${id}/review`, { key: owner.apiKey, body: { action: 'approve' } });
    assert.equal(waiting.status, 409);
    assert.equal(errorCode(waiting), 'not_awaiting_review');
    assert.equal((await t.api('POST', `/videos/${id}/review`, { key: other.apiKey, body: { action: 'approve' } })).status, 403);
    const none = await t.api('POST', '/videos/vid_01m837a36rwd3vvm20wnzfsswb/review', { key: owner.apiKey, body: { action: 'approve' } });
    assert.equal(none.status, 404);
    assert.equal(errorCode(none), 'not_found');
  });
});

describe('webhooks', () => {
  it('registers one webhook per key, replaces it on a repeat, lists it without the secret and deletes it', async () => {
    const owner = await t.user();
    const other = await t.user();
    const first = await t.api('POST', '/webhooks', { key: owner.apiKey, body: { url: 'https://93.184.215.14/hook' } });
    assert.equal(first.status, 201);
    assert.deepEqual(Object.keys(first.body).sort(), ['active', 'created_at', 'id', 'secret', 'url']);
    assert.equal(first.body.active, true);
    assert.match(first.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const second = await t.api('POST', '/webhooks', { key: owner.apiKey, body: { url: 'https://93.184.215.15/other' } });
    assert.equal(second.status, 201);
    assert.equal(second.body.id, first.body.id);
    assert.notEqual(second.body.secret, first.body.secret);
    const list = await t.api('GET', '/webhooks', { key: owner.apiKey });
    assert.deepEqual(list.body, { data: [{ id: first.body.id, url: 'https://93.184.215.15/other', active: true, created_at: first.body.created_at }] });
    assert.deepEqual((await t.api('GET', '/webhooks', { key: other.apiKey })).body, { data: [] });

    const foreign = await t.api('DELETE', `/webhooks/${first.body.id}`, { key: other.apiKey });
    assert.equal(foreign.status, 403);
    assert.equal(errorCode(foreign), 'forbidden');
    const deleted = await t.api('DELETE', `/webhooks/${first.body.id}`, { key: owner.apiKey });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    const again = await t.api('DELETE', `/webhooks/${first.body.id}`, { key: owner.apiKey });
    assert.equal(again.status, 404);
    assert.equal(errorCode(again), 'not_found');
  });

  it('refuses non-public urls with 422 naming url', async () => {
    const { apiKey } = await t.user();
    for (const url of ['http://93.184.215.14/hook', 'https://127.0.0.1/hook', 'https://localhost/x', 'https://[::ffff:10.0.0.1]/']) {
      const res = await t.api('POST', '/webhooks', { key: apiKey, body: { url } });
      assert.equal(res.status, 422, url);
      assert.match(res.body.error.message, /^url: /);
    }
    assert.match((await t.api('POST', '/webhooks', { key: apiKey, body: {} })).body.error.message, /^url: is required/);
  });
});

describe('a burst with the default limits', () => {
  it('creates 10 of 50 concurrent orders, refuses the rest with 429, and the balance matches the ledger', async () => {
    const { result, windowStart } = await inOneWindow(async () => {
      const user = await t.user({ balance: 2000 });
      const sent = Date.now();
      const results = await Promise.all(Array.from({ length: 50 }, () => t.api('POST', '/videos:quick', { key: user.apiKey, body: quick })));
      return { ...user, results, sent, answered: Date.now() };
    });
    const { userId, apiKey, results } = result;
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 10, results.map((r) => r.status).join(','));
    assert.equal(results.filter((r) => r.status === 429).length, 40);
    assert.ok(results.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) > 0));
    const limited = results.filter((r) => r.status === 429 && errorCode(r) === 'rate_limited');
    assert.equal(limited.length, 20, 'exactly 30 POSTs pass the minute');
    const [lo, hi] = retryAfterBounds(windowStart, result.sent, result.answered);
    for (const r of limited)
      assert.ok(
        Number(r.headers.get('retry-after')) >= lo && Number(r.headers.get('retry-after')) <= hi,
        `Retry-After ${r.headers.get('retry-after')}, expected ${lo}..${hi}`,
      );
    const { services } = await import('../../functions/app/services.ts');
    const ledger = (await services().stores.accounts.ledger(userId)).reduce((s, e) => s + e.amount, 0);
    const balance = (await t.api('GET', '/balance', { key: apiKey })).body.balance;
    assert.equal(balance, 1000);
    assert.equal(ledger, balance);
  });
});
