/** The workflow's steps and the review on in-memory ports: each step may run twice, a failure refunds once. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import type { AppError } from '../../functions/core/errors.ts';
import { OrderClosed, OrderSteps, RenderInFlight, type StepPorts } from '../../functions/core/order-steps.ts';
import { ORDER_MOVED } from '../../functions/core/orders.ts';
import { isTransient } from '../../functions/adapters/transient.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import type { VideoEvent } from '../../functions/core/ports.ts';
import { reviewOrder } from '../../functions/core/review.ts';
import { RenderLanes, RenderQueue } from '../../functions/core/capacity.ts';
import { DEFAULT_LIMITS } from '../../functions/core/pricing.ts';
import {
  MemoryCapacity,
  memoryCreation,
  MemoryFiles,
  MemoryGenerator,
  memoryLinks,
  MemoryMetrics,
  MemoryOrders,
  MemoryTable,
  MemoryWorkflow,
  memoryAssets,
  uploadedAsset,
} from './memory.ts';

/** The review's limits: the defaults. */
const atLimits = { limits: DEFAULT_LIMITS, throughput: { orderSeconds: 20 } };
const work = mkdtempSync(join(tmpdir(), 'domain-steps-'));
after(() => rmSync(work, { recursive: true, force: true }));

let table: MemoryTable;
let orders: MemoryOrders;
let workflow: MemoryWorkflow;
let generator: MemoryGenerator;
let testModeGenerator: MemoryGenerator;
let files: MemoryFiles;
let metrics: MemoryMetrics;
let announced: VideoEvent[];
let steps: OrderSteps;
let capacity: MemoryCapacity;
/** The test lane's queue (test-mode orders): its own slot. */
let testCapacity: MemoryCapacity;
let clock: number;
const now = () => new Date(clock);

beforeEach(() => {
  table = new MemoryTable();
  orders = new MemoryOrders(table);
  workflow = new MemoryWorkflow();
  generator = new MemoryGenerator();
  testModeGenerator = new MemoryGenerator();
  files = new MemoryFiles();
  metrics = new MemoryMetrics();
  announced = [];
  capacity = new MemoryCapacity();
  testCapacity = new MemoryCapacity();
  clock = Date.parse('2026-11-23T10:00:00Z');
  steps = new OrderSteps(stepPorts());
});

/** The steps' ports on this test's stores. */
function stepPorts(): StepPorts {
  return {
    orders,
    accounts: { get: async (userId) => table.account(userId) },
    generator,
    testModeGenerator,
    files,
    links: memoryLinks,
    metrics,
    serviceAddress: 'video.example',
    scratch: { make: () => mkdtempSync(join(work, 'order-')), remove: (dir) => rm(dir, { recursive: true }) },
    capacity: new RenderLanes({
      live: new RenderQueue({ store: capacity, wakeup: capacity, slots: 1, leaseSeconds: 600, botRun: 3, now }),
      test: new RenderQueue({ store: testCapacity, wakeup: testCapacity, slots: 1, leaseSeconds: 600, botRun: 3, now }),
    }),
    renderSeconds: 990,
    announce: async (e) => void announced.push(e as VideoEvent),
    now,
  };
}

async function order(userId: string, request: { prompt: string } | { topic: string; director_mode?: boolean }, account = { balance: 1000 }) {
  if (!table.accounts.has(userId)) table.addAccount({ userId, ...account });
  const r = await memoryCreation(table, workflow, metrics).create({
    account: table.account(userId),
    request: 'prompt' in request ? { kind: 'quick', prompt: request.prompt } : { kind: 'explicit', params: createVideoBody.parse(request) },
    now: now(),
  });
  return r.response.id;
}

/** A director-mode order of U waiting for its review with `token`. */
async function atReview(topic: string, token: string) {
  const id = await order('U', { topic, director_mode: true });
  await steps.start(id);
  await steps.write(id);
  await steps.awaitReview(id, token);
  return id;
}
/** Runs a step twice, as Step Functions may after a lost answer; the second run must change nothing. */
async function twice<R>(step: () => Promise<R>): Promise<R> {
  const snapshot = () =>
    JSON.stringify([[...table.orders], [...table.accounts], table.ledger, [...table.events.keys()], files.puts, generator.renders.length, generator.writes]);
  const first = await step();
  const before = snapshot();
  clock += 1000;
  const second = await step();
  const afterward = snapshot();
  // updatedAt may not move either: a repeat writes nothing.
  assert.equal(afterward, before, 'the second run changed nothing');
  assert.deepEqual(second, first);
  return first;
}

describe('order steps', () => {
  it('carry a quick order to done, each step run twice being a no-op', async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    assert.deepEqual(await steps.start(id), { orderId: id, plan: true, directorMode: false, reviewed: false, regen: false });
    await twice(() => steps.start(id));
    await twice(() => steps.plan(id));
    await twice(() => steps.write(id));
    await twice(() => steps.render(id));
    assert.equal(generator.renders.length, 1, 'rendered once');
    assert.equal(generator.renders[0]!.orderId, id);
    assert.equal(existsSync(generator.renders[0]!.outDir), false, 'the render folder is removed once stored');
    await steps.publish(id);
    await assert.rejects(steps.publish(id), OrderClosed, 'a second publish finds the order closed');
    const done = table.orders.get(id)!;
    assert.equal(done.status, 'done');
    assert.deepEqual([...files.stored.keys()].sort(), [`${id}/cover`, `${id}/pack`, `${id}/video`]);
    assert.deepEqual(
      announced.map((e) => e.type),
      ['video.done'],
    );
    assert.match(announced[0]!.record.result_url!, new RegExp(`/files/${id}/video.mp4\\?expires=`));
    assert.deepEqual([table.account('U').activeTasks, metrics.of('OrdersDone')], [0, 1]);
  });

  it('record the start of each render, so the recovery waits out the latest render, not the first', async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    await steps.prepare(id);
    const render = generator.renderer.render;
    generator.renderer.render = async () => {
      throw new Error('the render Lambda failed');
    };
    const first = now().toISOString();
    await assert.rejects(steps.render(id), /the render Lambda failed/);
    assert.equal(table.orders.get(id)!.renderStartedAt, first);
    generator.renderer.render = render;
    clock += 500_000;
    await steps.render(id);
    assert.equal(table.orders.get(id)!.renderStartedAt, now().toISOString(), 'the render run again wrote its start');
  });

  it("renew the slot's lease at each render's start, a retry's too, so a crash retried keeps the slot", async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    await steps.awaitSlot(id, 't1');
    await steps.prepare(id);
    const render = generator.renderer.render;
    generator.renderer.render = async () => {
      throw Object.assign(new Error('Runtime exited with error: signal: killed'), { name: 'Runtime.ExitError' });
    };
    clock += 400_000;
    await assert.rejects(steps.render(id, id), { name: 'Runtime.ExitError' });
    assert.equal(capacity.held.get(0)!.leaseUntil, clock + 600_000, 'the crashed render renewed the lease at its start');
    // The workflow's Retry, past the admission's lease (600 s) though not the renewed one: the same execution goes on at once.
    generator.renderer.render = render;
    clock += 400_000;
    await steps.render(id, id);
    assert.deepEqual([generator.renders.length, capacity.holders(), capacity.held.get(0)!.leaseUntil], [1, [id], clock + 600_000]);
    assert.equal(table.orders.get(id)!.rendered, true);
  });

  it("wait out another execution's render that may still run: its files are taken, or it is rendered once that render must have ended", {
    timeout: 10_000,
  }, async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    await steps.prepare(id);
    // The first execution's render begins, and hangs (its execution is stopped from outside meanwhile).
    let finish!: () => void;
    const render = generator.renderer.render;
    generator.renderer.render = async (req) => {
      await new Promise<void>((r) => (finish = r));
      return render(req);
    };
    const hanging = steps.render(id, id);
    await new Promise((r) => setImmediate(r));
    const started = table.orders.get(id)!.renderStartedAt;
    // The recovery's new execution, named on the order.
    assert.ok(await orders.patch(id, { status: 'running', set: { execution: `${id}-e1` } }, now()));
    clock += 990_000;
    await assert.rejects(steps.render(id, `${id}-e1`), RenderInFlight, 'through the last second the old render may run');
    assert.equal(table.orders.get(id)!.renderStartedAt, started, 'no render of its own began');
    finish();
    await hanging;
    assert.equal(generator.renders.length, 1);
    await steps.render(id, `${id}-e1`);
    assert.deepEqual([generator.renders.length, table.orders.get(id)!.renderExecution], [1, id], 'the files the old render stored are taken');

    // An old render that died (out of memory: nothing written) is waited out until its invocation must have ended.
    const other = await order('U', { prompt: 'Calm 12 seconds video about black tea' });
    await steps.prepare(other);
    generator.renderer.render = async () => {
      throw Object.assign(new Error('Runtime exited with error: signal: killed'), { name: 'Runtime.ExitError' });
    };
    await assert.rejects(steps.render(other, other), { name: 'Runtime.ExitError' });
    generator.renderer.render = render;
    assert.ok(await orders.patch(other, { status: 'running', set: { execution: `${other}-e1` } }, now()));
    await assert.rejects(steps.render(other, `${other}-e1`), RenderInFlight);
    clock += 990_001;
    await steps.render(other, `${other}-e1`);
    assert.deepEqual([generator.renders.length, table.orders.get(other)!.renderExecution], [2, `${other}-e1`]);
  });

  it('measure each render in seconds per second of video, the figure the render slots are sized with', async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    await steps.start(id);
    await steps.plan(id);
    await steps.write(id);
    const render = generator.renderer.render;
    // The render takes 30 s of the clock for a 12-second video: 2.5 s per second.
    generator.renderer.render = async (req) => {
      clock += 30_000;
      return render(req);
    };
    await steps.render(id);
    assert.equal(table.orders.get(id)!.params.duration_seconds, 12);
    assert.equal(metrics.gauges.get('RenderSecondsPerVideoSecond'), 2.5);
    // A render already done is not measured again.
    metrics.gauges.clear();
    await steps.render(id);
    assert.equal(metrics.gauges.has('RenderSecondsPerVideoSecond'), false);
  });

  it('watermark only a trial order', async () => {
    const trial = await order('T', { topic: 'Tea' }, { balance: 0, trialVideosLeft: 1 } as never);
    const paid = await order('P', { topic: 'Tea' });
    for (const id of [trial, paid]) {
      await steps.start(id);
      await steps.write(id);
      await steps.render(id);
    }
    assert.deepEqual(
      generator.renders.map((r) => r.watermark),
      ['video.example (AI)', undefined],
    );
  });

  it('carry a test-mode order with the test-mode generator, moving no money, done or failed', async () => {
    table.addAccount({ userId: 'U', balance: 1000, testAccount: 'T' });
    table.addAccount({ userId: 'T', testOf: 'U' });
    const id = await order('T', { prompt: 'Calm 12 seconds video about green tea' });
    const failing = await order('T', { topic: 'Green tea' });
    const created = table.orders.get(id)!;
    assert.deepEqual([created.charge.cost, created.charge.trial, created.charge.test], [0, false, true]);
    await steps.start(id);
    await steps.plan(id);
    await steps.write(id);
    await steps.render(id);
    await steps.publish(id);
    assert.deepEqual([testModeGenerator.renders.length, testModeGenerator.writes, generator.renders.length, generator.writes], [1, 1, 0, 0]);
    await steps.start(failing);
    await steps.fail(failing, { Error: 'GeneratorFailed', Cause: 'boom' });
    const failed = table.orders.get(failing)!;
    assert.deepEqual([failed.status, failed.refunded], ['error', undefined], 'nothing taken, nothing given back');
    // Its record shows the refund of 0 all the same, so that a client's refund handling can be tried in test mode.
    assert.deepEqual(
      announced.map((e) => [e.type, e.record.livemode, e.record.cost, e.record.refund]),
      [
        ['video.done', false, 0, undefined],
        ['video.error', false, 0, { amount: 0, reason: 'generation_failed', at: failed.finishedAt }],
      ],
    );
    assert.deepEqual(
      table.ledger.filter((l) => l.userId === 'T'),
      [],
      'no ledger entry',
    );
    assert.deepEqual([table.account('T').balance, table.account('T').activeTasks, metrics.of('OrdersRefunded')], [0, 0, 0]);
  });

  it('refund exactly what a failed order took, once, however often the failure is handled', async () => {
    table.addAccount({ userId: 'U', balance: 1000, trialVideosLeft: 1, plan: { name: 'creator', heavyPerMonth: 5 } });
    const id = await order('U', { topic: 'Tea', ai_visual: true } as never);
    const charged = table.account('U');
    assert.deepEqual(
      [charged.balance, charged.trialVideosLeft, charged.heavyUsed, charged.activeTasks],
      [1000, 0, 1, 1],
      'the trial and the allowance paid for it',
    );
    await steps.start(id);
    await steps.fail(id, { Error: 'GeneratorFailed' });
    await steps.fail(id, { Error: 'GeneratorFailed' });
    const refunded = table.account('U');
    assert.deepEqual([refunded.balance, refunded.trialVideosLeft, refunded.heavyUsed, refunded.activeTasks], [1000, 1, 0, 0]);
    assert.deepEqual(
      table.ledger.map((l) => [l.kind, l.amount]),
      [
        ['charge', -0],
        ['refund', 0],
      ],
    );
    assert.deepEqual(table.orders.get(id)!.error, { code: 'generation_failed', message: 'The video could not be generated from this order' });
    assert.deepEqual([announced.length, metrics.of('OrdersRefunded')], [1, 1]);
    await assert.rejects(steps.render(id), OrderClosed, 'no step runs on a closed order');
  });

  it('stop at the review, and a decision moves the order on exactly once', async () => {
    const id = await order('U', { topic: 'Green tea', director_mode: true });
    await steps.start(id);
    await steps.write(id);
    await twice(() => steps.awaitReview(id, 'token-1'));
    assert.equal(table.orders.get(id)!.status, 'awaiting_review');
    assert.deepEqual([table.account('U').activeTasks, announced.map((e) => e.id)], [0, [`${id}:awaiting_review:1`]], 'the wait is no active task');
    const ports = { orders, workflow, ...atLimits };
    const reviewed = await reviewOrder(ports, 'U', id, { action: 'edit', text: 'Caption: Tea time\nVoice: Boil the water and wait.' }, now());
    assert.deepEqual([reviewed.status, reviewed.reviewed, reviewed.script!.scenes.length], ['running', true, 1]);
    await assert.rejects(reviewOrder(ports, 'U', id, { action: 'approve' }, now()), (e: AppError) => e.code === 'not_awaiting_review');
    await assert.rejects(reviewOrder(ports, 'Other', id, { action: 'approve' }, now()), (e: AppError) => e.code === 'forbidden');
    assert.deepEqual(workflow.answered, [{ taskToken: 'token-1', action: 'edit' }]);
    assert.equal(table.account('U').activeTasks, 1, 'running again counts as an active task');
  });

  it('answer a review whose wait died with its execution by a new execution, its name recorded on the order first', async () => {
    const id = await atReview('Green tea', 'token-1');
    workflow.end(id);
    workflow.goneTokens.add('token-1');
    const reviewed = await reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'approve' }, now());
    assert.equal(reviewed.execution, `${id}-r${now().getTime()}`);
    assert.deepEqual([reviewed.status, workflow.started], ['running', [id, reviewed.execution]]);
    // One lost with a local stop starts again under its own name.
    const other = await atReview('Black tea', 'token-2');
    workflow.lose(other);
    workflow.goneTokens.add('token-2');
    await reviewOrder({ orders, workflow, ...atLimits }, 'U', other, { action: 'approve' }, now());
    assert.deepEqual([table.orders.get(other)!.execution, workflow.started.slice(3)], [undefined, [other]]);
  });

  it('check the assets of an edit before its decision is written and copy them after: a refused review copies nothing', async () => {
    const assets = memoryAssets(table);
    const id = await atReview('Green tea', 'token-1');
    const script = table.orders.get(id)!.script;
    const first = await uploadedAsset(assets, 'U', now());
    const edit = (asset: string) => ({ action: 'edit' as const, text: `Caption: Tea time\nImage: ${asset}` });
    // At the key's active-task limit: 429, the asset checked, nothing copied.
    const full = { limits: { ...DEFAULT_LIMITS, activeTasks: 0 }, throughput: { orderSeconds: 20 } };
    await assert.rejects(reviewOrder({ orders, workflow, ...full, assets }, 'U', id, edit(first), now()), (e: AppError) => e.code === 'active_tasks_exceeded');
    assert.equal((await assets.assets.get('U', first, now()))?.check?.status, 'ready');
    assert.deepEqual([...assets.files.copies.keys()], []);
    // Its bytes gone between the check and the copy: 422 naming text, the order reviewable as it was.
    const real = assets.files.copyToOrder.bind(assets.files);
    assets.files.copyToOrder = async (asset, etag, orderId) => {
      await assets.files.delete(asset);
      return real(asset, etag, orderId);
    };
    await assert.rejects(
      reviewOrder({ orders, workflow, ...atLimits, assets }, 'U', id, edit(first), now()),
      (e: AppError) => e.code === 'invalid_params' && e.message.startsWith('text: '),
    );
    const back = table.orders.get(id)!;
    assert.deepEqual([back.status, back.reviewToken, back.reviewed, back.script, back.assets], ['awaiting_review', 'token-1', undefined, script, undefined]);
    assert.deepEqual([table.account('U').activeTasks, workflow.answered, [...assets.files.copies.keys()]], [0, [], []]);
    // Another asset: copied once the decision is written, then handed off.
    assets.files.copyToOrder = real;
    const second = await uploadedAsset(assets, 'U', now());
    const reviewed = await reviewOrder({ orders, workflow, ...atLimits, assets }, 'U', id, edit(second), now());
    assert.deepEqual([reviewed.status, Object.keys(reviewed.assets ?? {}), [...assets.files.copies.keys()]], ['running', [second], [`${id}/${second}`]]);
    assert.deepEqual(workflow.answered, [{ taskToken: 'token-1', action: 'edit' }]);
  });

  it('leave the order reviewable when the hand-off fails, so that a repeated review succeeds', async () => {
    const id = await atReview('Green tea', 'token-1');
    const script = table.orders.get(id)!.script;
    workflow.failAnswers = 1;
    const edit = { action: 'edit' as const, text: 'Caption: Tea time\nVoice: Boil the water and wait.' };
    await assert.rejects(reviewOrder({ orders, workflow, ...atLimits }, 'U', id, edit, now()), { name: 'ThrottlingException' });
    const back = table.orders.get(id)!;
    assert.deepEqual([back.status, back.reviewToken, back.reviewed, back.script], ['awaiting_review', 'token-1', undefined, script], 'the decision undone');
    assert.equal(table.account('U').activeTasks, 0, 'and no longer an active task');
    const again = await reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'approve' }, now());
    assert.deepEqual([again.status, again.reviewToken, again.reviewed], ['running', undefined, true], 'the token is spent and forgotten');
    assert.deepEqual(workflow.answered, [{ taskToken: 'token-1', action: 'approve' }]);
    await assert.rejects(
      reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'approve' }, now()),
      (e: AppError) => e.code === 'not_awaiting_review',
    );
  });

  it('hand off a decision whose failed hand-off could not be undone when the review is repeated', async () => {
    const id = await atReview('Green tea', 'token-1');
    workflow.failAnswers = 1;
    // The store is away as well when the review tries to undo its write.
    const flaky = {
      get: orders.get.bind(orders),
      patch: orders.patch.bind(orders),
      transition: async (t: Parameters<MemoryOrders['transition']>[0]) => {
        if (t.to === 'awaiting_review') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return orders.transition(t);
      },
    };
    await assert.rejects(reviewOrder({ orders: flaky, workflow, ...atLimits }, 'U', id, { action: 'regen', note: 'shorter' }, now()), {
      name: 'ThrottlingException',
    });
    assert.deepEqual([table.orders.get(id)!.status, table.orders.get(id)!.reviewToken], ['running', 'token-1'], 'the decision pending');
    await assert.rejects(
      reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'approve' }, now()),
      (e: AppError) => e.code === 'not_awaiting_review',
    );
    const repeated = await reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'regen', note: 'shorter' }, now());
    assert.deepEqual([repeated.status, repeated.regenNote, repeated.reviewToken], ['running', 'shorter', undefined]);
    assert.deepEqual(workflow.answered, [{ taskToken: 'token-1', action: 'regen' }]);
  });

  it('end an unreviewed order at the review deadline, and go on from a review that won the race with it', async () => {
    const lapsed = await atReview('Green tea', 'token-1');
    await assert.rejects(steps.lapse(lapsed, { Error: 'States.Timeout' }), OrderClosed);
    assert.deepEqual([table.orders.get(lapsed)!.status, table.orders.get(lapsed)!.error?.code], ['error', 'review_expired']);
    assert.equal(table.account('U').balance, 1000, 'refunded');
    await assert.rejects(
      reviewOrder({ orders, workflow, ...atLimits }, 'U', lapsed, { action: 'approve' }, now()),
      (e: AppError) => e.code === 'not_awaiting_review',
    );

    // The review's write lands first; its hand-off finds the wait timed out, and the deadline's step yields to it.
    const raced = await atReview('Black tea', 'token-2');
    workflow.goneTokens.add('token-2');
    const reviewed = await reviewOrder({ orders, workflow, ...atLimits }, 'U', raced, { action: 'approve' }, now());
    assert.equal(reviewed.status, 'running');
    await assert.rejects(steps.lapse(raced, { Error: 'States.Timeout' }, raced), (e: OrderClosed) => e.superseded, 'the new execution carries it');
    const balance = table.account('U').balance;
    assert.deepEqual((await steps.lapse(raced, { Error: 'States.Timeout' }, reviewed.execution)).reviewed, true);
    assert.deepEqual([table.orders.get(raced)!.status, table.account('U').balance], ['running', balance], 'not failed, not refunded');

    // The deadline's step reads the order unreviewed; the review moves it just before the step's own write.
    const third = await atReview('White tea', 'token-3');
    const transition = orders.transition.bind(orders);
    orders.transition = async (t) => {
      orders.transition = transition;
      assert.equal(t.to, 'error');
      await transition({ order: t.order, to: 'running', set: { reviewed: true }, now: now() });
      return transition(t);
    };
    const state = await steps.lapse(third, { Error: 'States.Timeout' });
    assert.deepEqual([state.reviewed, table.orders.get(third)!.status], [true, 'running'], 'the review wins');
    assert.equal(table.orders.get(third)!.reviewToken, undefined, 'the spent token is forgotten');
    assert.equal(table.account('U').balance, balance - table.orders.get(third)!.charge.cost, 'not refunded');
  });

  it('end the steps of an execution the order no longer names, and never fail the order for it', async () => {
    const id = await order('U', { topic: 'Green tea' });
    await steps.start(id, id);
    await orders.patch(id, { status: 'running', set: { execution: `${id}-s1` } }, now());
    await assert.rejects(steps.write(id, id), (e: OrderClosed) => e.superseded, 'the old execution ends at its next step');
    await steps.fail(id, { Error: 'States.Timeout' }, id);
    assert.deepEqual([table.orders.get(id)!.status, table.account('U').balance], ['running', 900], 'not failed, not refunded');
    assert.equal((await steps.write(id, `${id}-s1`)).orderId, id, 'the named one goes on');
  });

  it('keep the logo a quick order named through its planning, and take none from the planner', async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    const other = await order('U', { prompt: 'Calm 12 seconds video about coffee' });
    // As the creation left it after checking and copying the asset (the memory creation has no asset store here).
    table.orders.get(id)!.params.logo = 'ast_01m8000000000000000000000a';
    generator.planner = { plan: async (prompt: string) => ({ ...planFromPrompt(prompt), logo: 'ast_01m8000000000000000000000b' }) };
    for (const o of [id, other]) {
      await steps.start(o);
      await steps.plan(o);
    }
    assert.deepEqual([table.orders.get(id)!.params.logo, table.orders.get(other)!.params.logo], ['ast_01m8000000000000000000000a', undefined]);
  });

  it('let the planner refine what an order does not pay for, never what it was charged for', async () => {
    const id = await order('U', { prompt: 'Calm 12 seconds video about green tea' });
    const charged = table.orders.get(id)!.params;
    // A planner (a model) that proposes every paid extra, another billing and no director mode.
    generator.planner = {
      plan: async (prompt: string) => ({
        ...planFromPrompt(prompt),
        topic: 'Green tea, planned',
        duration_seconds: 30,
        placement: { product: 'Tea Co' },
        ai_visual: true,
        music: 'song' as const,
        voice: 'clone' as const,
        billing: 'doubloons' as const,
        director_mode: true,
      }),
    };
    await steps.start(id);
    await steps.plan(id);
    const planned = table.orders.get(id)!.params;
    assert.deepEqual([planned.topic, planned.duration_seconds], ['Green tea, planned', 30], 'the rest is the plan');
    assert.deepEqual(
      [planned.placement, planned.ai_visual, planned.music, planned.voice, planned.billing, planned.director_mode],
      [charged.placement, charged.ai_visual, charged.music, charged.voice, charged.billing, charged.director_mode],
      'priced parameters as charged',
    );
    assert.equal('placement' in planned, false, 'an extra not ordered is not added');
  });

  it('give up a write the order keeps refusing after a bounded number of reads, as the transient Contended', async () => {
    const id = await order('U', { topic: 'Green tea' });
    let tries = 0;
    // Another writer moves the order before every transition of this step: it never wins.
    const losing = new OrderSteps({
      ...stepPorts(),
      orders: { get: (o) => orders.get(o), patch: (...a) => orders.patch(...a), transition: async () => ++tries < 0 },
    });
    const err = await losing.start(id).catch((e: Error) => e);
    assert.deepEqual([(err as Error).name, isTransient(err), tries], ['Contended', true, ORDER_MOVED.attempts]);
    await steps.start(id);
    await steps.write(id);
    await losing.fail(id).catch(() => undefined);
    await losing.publish(id).catch(() => undefined);
    assert.equal(tries, 3 * ORDER_MOVED.attempts, 'each step tries as often, no more');
    assert.equal(table.orders.get(id)!.status, 'running', 'nothing written');
  });

  it('rewrite the script on regen and come back to the review in a new round', async () => {
    const id = await order('U', { topic: 'Green tea', director_mode: true });
    await steps.start(id);
    await steps.write(id);
    await steps.awaitReview(id, 'token-1');
    const before = table.orders.get(id)!.script;
    await reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'regen', note: 'shorter, please' }, now());
    assert.equal((await steps.regen(id)).regen, false);
    await twice(() => steps.regen(id));
    assert.notDeepEqual(table.orders.get(id)!.script, before);
    await steps.awaitReview(id, 'token-2');
    assert.deepEqual(
      announced.map((e) => e.id),
      [`${id}:awaiting_review:1`, `${id}:awaiting_review:2`],
    );
  });

  it('refuse an edit that is no script with 422 naming text, leaving the order waiting', async () => {
    const id = await order('U', { topic: 'Green tea', director_mode: true });
    await steps.start(id);
    await steps.write(id);
    await steps.awaitReview(id, 'token-1');
    await assert.rejects(
      reviewOrder({ orders, workflow, ...atLimits }, 'U', id, { action: 'edit', text: '\n\n' }, now()),
      (e: AppError) => e.code === 'invalid_params' && e.message.startsWith('text'),
    );
    assert.equal(table.orders.get(id)!.status, 'awaiting_review');
  });

  it('hold a render slot from admission to done or error, and hand it to the next order', async () => {
    // Ids made in one millisecond sort at random; the queue serves them by id, so the test takes them in that order.
    const ids = [
      await order('U', { prompt: 'Calm 12 seconds video about green tea' }),
      await order('U', { prompt: 'Calm 12 seconds video about black tea' }),
      await order('U', { prompt: 'Calm 12 seconds video about white tea' }),
    ].sort();
    const [first, second, third] = ids as [string, string, string];
    await steps.awaitSlot(first, 't1');
    await steps.awaitSlot(second, 't2');
    await steps.awaitSlot(third, 't3');
    assert.deepEqual([capacity.woken.map((w) => w.token), capacity.holders()], [['t1'], [first]], 'one slot: the others wait, still queued');
    assert.equal(table.orders.get(second)!.status, 'queued');
    await steps.start(first);
    await steps.plan(first);
    await steps.write(first);
    await steps.render(first);
    await steps.publish(first);
    assert.deepEqual([capacity.woken.map((w) => w.token), capacity.holders()], [['t1', 't2'], [second]], 'done hands the slot on');
    await steps.start(second);
    await steps.fail(second, { Error: 'GeneratorFailed' });
    assert.deepEqual([capacity.woken.map((w) => w.token), capacity.holders()], [['t1', 't2', 't3'], [third]], 'so does an error');
  });

  it("wait and render test-mode orders in the test lane's own slot: a live order after them takes the live slot at once", async () => {
    table.addAccount({ userId: 'U', balance: 1000, testAccount: 'T' });
    table.addAccount({ userId: 'T', testOf: 'U' });
    const tests = [];
    for (let i = 0; i < 8; i++) tests.push(await order('T', { topic: `Test tea ${i}` }));
    tests.sort();
    for (const [i, id] of tests.entries()) await steps.awaitSlot(id, `test-${i}`);
    const live = await order('U', { topic: 'Live tea' });
    await steps.awaitSlot(live, 'live');
    assert.deepEqual([capacity.holders(), capacity.woken.map((w) => w.token)], [[live], ['live']], "the live slot is the live order's");
    assert.deepEqual([testCapacity.holders(), testCapacity.woken.map((w) => w.token)], [[tests[0]], ['test-0']], 'one test order at a time');
    assert.equal(testCapacity.waiting.size, 7, 'the others wait in the test lane');
    assert.equal(capacity.waiting.size, 0, 'and none in the live lane');
    // A test order done hands the test slot to the next test order, never to the live lane.
    await steps.start(tests[0]!);
    await steps.write(tests[0]!);
    await steps.render(tests[0]!);
    await steps.publish(tests[0]!);
    assert.deepEqual([testCapacity.holders(), capacity.holders()], [[tests[1]], [live]]);
    // A canceled waiting test order leaves the test lane's queue.
    await steps.fail(tests[7]!, { Error: 'GeneratorFailed' });
    assert.equal(testCapacity.waiting.size, 5);
  });
});
