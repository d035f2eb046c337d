/** Order creation on in-memory ports: pricing, the charge, idempotency and a lost race, in milliseconds. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import type { CreateOrderInput, OrderCreation } from '../../functions/core/create-order.ts';
import { IDEMPOTENCY_TTL_MS } from '../../functions/core/expiry.ts';
import type { AppError } from '../../functions/core/errors.ts';
import { DEFAULT_LIMITS, DEFAULT_PRICES } from '../../functions/core/pricing.ts';
import { MemoryMetrics, MemoryTable, MemoryWorkflow, memoryAssets, memoryCreation, memoryQuoting, uploadedAsset } from './memory.ts';
import type { OrderQuoting } from '../../functions/core/quote-order.ts';

const now = new Date('2026-11-23T10:00:30Z');
let table: MemoryTable;
let workflow: MemoryWorkflow;
let metrics: MemoryMetrics;
let creation: OrderCreation;
let quoting: OrderQuoting;
const errors: string[] = [];

beforeEach(() => {
  table = new MemoryTable();
  workflow = new MemoryWorkflow();
  metrics = new MemoryMetrics();
  errors.length = 0;
  creation = memoryCreation(table, workflow, metrics, (m) => errors.push(m));
  quoting = memoryQuoting(table);
});

const explicit = (topic: string, extra: object = {}): CreateOrderInput['request'] => ({
  kind: 'explicit',
  params: createVideoBody.parse({ topic, ...extra }),
});
const input = (userId: string, request: CreateOrderInput['request'], more: Partial<CreateOrderInput> = {}): CreateOrderInput => ({
  account: table.account(userId),
  request,
  now,
  ...more,
});
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: AppError) => e.code,
  );

describe('order creation', () => {
  it('charges a quote its price even after the price list changed, and the plan allowance it counted on', async () => {
    table.addAccount({ userId: 'Q', balance: 1000, plan: { name: 'creator', heavyPerMonth: 1 } });
    const song = explicit('Tea', { music: 'song', placement: { product: 'Tea Co' } });
    const quoted = await quoting.quote({ account: table.account('Q'), request: song, now });
    // The plan's allowance covers the song; the placement is paid.
    assert.deepEqual([quoted.cost, quoted.breakdown], [150, { base: 100, extras: { placement: 50, song: 0 }, trial: false, plan_allowance: true }]);
    assert.equal(table.account('Q').balance, 1000, 'nothing charged by the quote');
    // Prices go up before the order is placed: the quote holds.
    const dearer = memoryCreation(table, workflow, metrics, () => undefined, undefined, { ...DEFAULT_PRICES, base: 300, placement: 90 });
    const later = new Date(now.getTime() + 60_000);
    const order = await dearer.create(input('Q', { ...song, quoteId: quoted.quote_id }, { now: later }));
    assert.equal(order.response.cost, 150);
    assert.equal(table.account('Q').balance, 850);
    // Without the quote the same order now costs the new prices (the allowance is used up: billed in doubloons).
    const unquoted = await dearer.create(
      input('Q', explicit('Tea', { music: 'song', placement: { product: 'Tea Co' }, billing: 'doubloons' }), { now: later }),
    );
    assert.equal(unquoted.response.cost, 300 + 90 + DEFAULT_PRICES.song);
    // A quote past its 15 minutes is gone.
    const old = await quoting.quote({ account: table.account('Q'), request: explicit('Coffee'), now });
    const expired = new Date(now.getTime() + 16 * 60_000);
    await assert.rejects(
      creation.create(input('Q', { ...explicit('Coffee'), quoteId: old.quote_id }, { now: expired })),
      (e: AppError) => e.code === 'quote_invalid',
    );
  });

  it('charges the price once, takes a slot, records the charge and starts the workflow', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    const r = await creation.create(input('U', explicit('Green tea', { music: 'song' })));
    assert.equal(r.kind, 'created');
    assert.deepEqual([r.response.status, r.response.cost], ['queued', DEFAULT_PRICES.base + DEFAULT_PRICES.song]);
    const account = table.account('U');
    assert.deepEqual([account.balance, account.activeTasks], [1000 - 170, 1]);
    assert.deepEqual(table.ledger, [
      { userId: 'U', amount: -170, kind: 'charge', orderId: r.response.id, balanceAfter: 830, seq: 1, createdAt: now.toISOString() },
    ]);
    assert.deepEqual(workflow.started, [r.response.id]);
    assert.equal(metrics.of('OrdersCreated'), 1);
    assert.equal(table.orders.get(r.response.id)!.params.language, 'en', 'language auto became the topic language');
  });

  it('prices a quick order from its prompt', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    const r = await creation.create(input('U', { kind: 'quick', prompt: 'Funny 20 second video about cats with a song' }));
    const order = table.orders.get(r.response.id)!;
    assert.deepEqual([order.kind, order.params.music, order.params.duration_seconds, r.response.cost], ['quick', 'song', 20, 170]);
  });

  it('answers a repeated Idempotency-Key with the original order and charges nothing more', async () => {
    table.addAccount({ userId: 'U', balance: 150 });
    const first = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    // The repeat is priced against a balance the first order spent: it is still the replay, not a 402.
    const again = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    assert.equal(again.kind, 'replayed');
    assert.deepEqual(again.response, first.response);
    assert.equal(table.account('U').balance, 50);
    assert.equal(table.orders.size, 1);
  });

  it('refuses the same key with another body or on the other route with 422 naming Idempotency-Key', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    await assert.rejects(
      creation.create(input('U', explicit('Coffee'), { idempotencyKey: 'k1' })),
      (e: AppError) => e.code === 'invalid_params' && e.message.startsWith('Idempotency-Key'),
    );
    await assert.rejects(creation.create(input('U', { kind: 'quick', prompt: 'Tea' }, { idempotencyKey: 'k1' })), (e: AppError) => e.code === 'invalid_params');
    assert.equal(table.account('U').balance, 900);
  });

  it('treats a key older than 24 hours as new: a new order, charged again', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    const first = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    const later = new Date(now.getTime() + IDEMPOTENCY_TTL_MS + 1000);
    const second = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1', now: later }));
    assert.notEqual(second.response.id, first.response.id);
    assert.equal(second.kind, 'created');
    assert.equal(table.account('U').balance, 800);
  });

  it('prices again when a concurrent order changed the account between the read and the commit', async () => {
    table.addAccount({ userId: 'U', balance: 1000, trialVideosLeft: 1 });
    const snapshot = table.account('U');
    // Another order took the last trial video after this request read the account.
    table.accounts.get('U')!.trialVideosLeft = 0;
    const r = await creation.create({ ...input('U', explicit('Tea')), account: snapshot });
    assert.equal(r.response.cost, DEFAULT_PRICES.base, 'priced without the trial it no longer has');
    assert.equal(table.orders.get(r.response.id)!.charge.trial, false);
    assert.equal(table.account('U').balance, 900);
  });

  it('refuses with the pricing errors and charges nothing', async () => {
    table.addAccount({ userId: 'Poor', balance: 50 });
    table.addAccount({ userId: 'Busy', balance: 1000, activeTasks: DEFAULT_LIMITS.activeTasks });
    table.addAccount({ userId: 'Plan', balance: 1000, plan: { name: 'creator', heavyPerMonth: 1 }, heavyMonth: '2026-11', heavyUsed: 1 });
    assert.equal(await codeOf(creation.create(input('Poor', explicit('Tea')))), 'insufficient_funds');
    assert.equal(await codeOf(creation.create(input('Busy', explicit('Tea')))), 'active_tasks_exceeded');
    assert.equal(await codeOf(creation.create(input('Plan', explicit('Tea', { ai_visual: true })))), 'fair_use_exceeded');
    assert.deepEqual([table.orders.size, table.ledger.length], [0, 0]);
  });

  it('refuses a paid extra the generator does not deliver, before any charge, naming the field', async () => {
    const plain = memoryCreation(table, workflow, metrics, () => undefined, { ai_visual: false, voice_clone: false });
    table.addAccount({ userId: 'U', balance: 1000 });
    await assert.rejects(
      plain.create(input('U', explicit('Tea', { ai_visual: true }))),
      (e: AppError) => e.code === 'invalid_params' && /^ai_visual:/.test(e.message),
    );
    await assert.rejects(plain.create(input('U', explicit('Tea', { voice: 'clone' }))), (e: AppError) => /^voice:/.test(e.message));
    await assert.rejects(plain.create(input('U', { kind: 'quick', prompt: 'Tea, with AI visuals' })), (e: AppError) =>
      /^ai_visual: the prompt asks/.test(e.message),
    );
    assert.deepEqual([table.orders.size, table.ledger.length, table.account('U').balance], [0, 0, 1000]);
    assert.equal((await plain.create(input('U', explicit('Tea', { music: 'song' })))).response.cost, DEFAULT_PRICES.base + DEFAULT_PRICES.song);
  });

  it('answers 429 rate_limited once the minute holds its 30 POSTs', async () => {
    table.addAccount({ userId: 'U', balance: 100_000 });
    table.posts.set(`U:${Date.parse('2026-11-23T10:00:00Z')}`, DEFAULT_LIMITS.postsPerMinute);
    await assert.rejects(creation.create(input('U', explicit('Tea'))), (e: AppError) => e.code === 'rate_limited' && e.retryAfterSeconds === 30);
    assert.equal(table.orders.size, 0);
  });

  it('keeps a charged order queued when its workflow cannot start, and a repeat of the key starts it', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    workflow.failStarts = true;
    const r = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    assert.deepEqual([r.response.status, workflow.started, errors], ['queued', [], ['workflow start failed']]);
    // A repeat while Step Functions is still away answers the order all the same (the sweep will start it).
    const meanwhile = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    assert.deepEqual([meanwhile.kind, meanwhile.response.id, errors.length], ['replayed', r.response.id, 2]);
    assert.equal(metrics.of('WorkflowStartsFailed'), 2, 'each failed start is counted for the alarm');
    workflow.failStarts = false;
    const again = await creation.create(input('U', explicit('Tea'), { idempotencyKey: 'k1' }));
    assert.deepEqual([again.kind, workflow.started], ['replayed', [r.response.id]]);
    assert.equal(table.account('U').balance, 900);
  });

  it("places the bot's orders for the same account and price, outside the key's limits", async () => {
    table.addAccount({ userId: 'U', balance: 1000, activeTasks: DEFAULT_LIMITS.activeTasks });
    table.posts.set(`U:${Date.parse('2026-11-23T10:00:00Z')}`, DEFAULT_LIMITS.postsPerMinute);
    assert.equal(await codeOf(creation.create(input('U', explicit('Tea')))), 'active_tasks_exceeded', 'the key is at its limits');
    const r = await creation.create({ ...input('U', explicit('Tea')), channel: 'bot', idempotencyKey: 'b1' });
    assert.deepEqual([r.response.status, r.response.cost], ['queued', DEFAULT_PRICES.base]);
    const order = table.orders.get(r.response.id)!;
    assert.equal(order.channel, 'bot');
    const account = table.account('U');
    assert.deepEqual([account.balance, account.activeTasks], [900, DEFAULT_LIMITS.activeTasks], 'charged alike, no active task of the key counted');
    // The same key with the same body on the API is another request: 422, not a replay of the bot's order.
    table.posts.clear();
    await assert.rejects(creation.create(input('U', explicit('Tea'), { idempotencyKey: 'b1' })), (e: AppError) => e.code === 'invalid_params');
  });
});

describe('assets an order names: checked before its charge, copied once it is committed', () => {
  let assets: ReturnType<typeof memoryAssets>;
  beforeEach(() => {
    assets = memoryAssets(table);
    creation = memoryCreation(table, workflow, metrics, (m) => errors.push(m), undefined, undefined, undefined, assets);
  });
  const withLogo = (logo: string, extra: object = {}) => explicit('Tea', { logo, ...extra });

  it('copies nothing for a refused (402, 409, 429) or replayed creation, and the created order’s assets as it starts', async () => {
    table.addAccount({ userId: 'Z', balance: 0 });
    const poor = await uploadedAsset(assets, 'Z', now);
    assert.equal(await codeOf(creation.create(input('Z', withLogo(poor)))), 'insufficient_funds');
    assert.equal((await assets.assets.get('Z', poor, now))?.check?.status, 'ready', 'checked all the same');
    table.addAccount({ userId: 'U', balance: 1000 });
    const logo = await uploadedAsset(assets, 'U', now);
    assert.equal(await codeOf(creation.create(input('U', { ...withLogo(logo), maxCost: 1 }))), 'max_cost_exceeded');
    table.posts.set(`U:${Date.parse('2026-11-23T10:00:00Z')}`, DEFAULT_LIMITS.postsPerMinute);
    assert.equal(await codeOf(creation.create(input('U', withLogo(logo)))), 'rate_limited');
    table.posts.clear();
    assert.deepEqual([...assets.files.copies.keys()], [], 'no copy for a refused request');

    const r = await creation.create(input('U', withLogo(logo), { idempotencyKey: 'k1' }));
    const order = table.orders.get(r.response.id)!;
    assert.deepEqual(order.assets, { [logo]: { contentType: 'image/png', width: 1, height: 1, etag: assets.files.objects.get(logo)!.etag } });
    assert.deepEqual([...assets.files.copies.keys()], [`${r.response.id}/${logo}`]);
    assert.deepEqual(workflow.started, [r.response.id]);
    const again = await creation.create(input('U', withLogo(logo), { idempotencyKey: 'k1' }));
    assert.deepEqual([again.kind, again.response.id, [...assets.files.copies.keys()]], ['replayed', r.response.id, [`${r.response.id}/${logo}`]]);
  });

  it('closes the order in error, refunded in full, when its asset went between its check and its copy', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    const logo = await uploadedAsset(assets, 'U', now);
    const real = assets.files.copyToOrder.bind(assets.files);
    // A DELETE landing between the check and the copy: the bytes go, replaced by the marker.
    assets.files.copyToOrder = async (asset, etag, orderId) => {
      await assets.files.delete(asset);
      return real(asset, etag, orderId);
    };
    const r = await creation.create(input('U', withLogo(logo)));
    assert.deepEqual([r.kind, r.response.status], ['created', 'queued']);
    const order = table.orders.get(r.response.id)!;
    assert.deepEqual([order.status, order.error?.code, order.refunded], ['error', 'asset_unavailable', true]);
    assert.deepEqual([table.account('U').balance, table.account('U').activeTasks], [1000, 0]);
    assert.deepEqual([workflow.started, [...assets.files.copies.keys()], table.unstarted.has(r.response.id)], [[], [], false]);
  });

  it('keeps an order whose copy the store failed queued and unstarted: a repeat of its key copies and starts it', async () => {
    table.addAccount({ userId: 'U', balance: 1000 });
    const logo = await uploadedAsset(assets, 'U', now);
    const real = assets.files.copyToOrder.bind(assets.files);
    assets.files.copyToOrder = async () => {
      throw Object.assign(new Error('Slow down'), { name: 'SlowDown' });
    };
    const r = await creation.create(input('U', withLogo(logo), { idempotencyKey: 'k1' }));
    assert.deepEqual([r.response.status, workflow.started, errors, table.unstarted.has(r.response.id)], ['queued', [], ['workflow start failed'], true]);
    assets.files.copyToOrder = real;
    const again = await creation.create(input('U', withLogo(logo), { idempotencyKey: 'k1' }));
    assert.deepEqual([again.kind, workflow.started, [...assets.files.copies.keys()]], ['replayed', [r.response.id], [`${r.response.id}/${logo}`]]);
  });
});
