/**
 * The order lifecycle on the in-memory ports, for the model-based test (lifecycle-model.test.ts): the use cases the
 * handlers call (creation, quote, review, cancel, webhooks, resend, the sweep) and both state machines run by the
 * in-memory engine from their ASL files, each Task calling the step use case its handler calls. Nothing moves unless a
 * command moves it: a step of one execution, a render finished, time passing, a sweep, a restart.
 */
import { createVideoBody, type OrderParams } from '../../functions/contract/orders.ts';
import type { ReviewDecision } from '../../functions/contract/review.ts';
import { cancel, type CancelPorts, cancelOrder, DEADLINE_EXCEEDED } from '../../functions/core/cancel-order.ts';
import { closeInError } from '../../functions/core/close-order.ts';
import { emptyShardState, RenderLanes, RenderQueue, START_AT_ADMISSION } from '../../functions/core/capacity.ts';
import {
  DEFAULT_RESENDS_PER_HOUR,
  type DeliveryPorts,
  deliver,
  handOver,
  type ResendPorts,
  resendDropped,
  resendEvent,
  type StoredEvent,
} from '../../functions/core/deliveries.ts';
import { AppError } from '../../functions/core/errors.ts';
import { QueueViews } from '../../functions/core/eta.ts';
import { GeneratorFailed, type Generator, type RenderRequest } from '../../functions/core/generator.ts';
import { OrderSteps } from '../../functions/core/order-steps.ts';
import { OrderCreation, type OrderRequest } from '../../functions/core/create-order.ts';
import type { Order } from '../../functions/core/orders.ts';
import type { OrderEvent, Workflow } from '../../functions/core/ports.ts';
import { DEFAULT_LIMITS, DEFAULT_PRICES } from '../../functions/core/pricing.ts';
import { reviewOrder } from '../../functions/core/review.ts';
import { type AuditCursor, type Recovery, type RecoveryPorts, recoverEnded, sweep } from '../../functions/core/sweep.ts';
import { deleteWebhook, pingWebhook, registerWebhook, rotateSecret } from '../../functions/core/webhooks.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { writeScript } from '../../functions/generator/writer.ts';
import { Engine } from './engine.ts';
import { setBalanceAlert } from '../../functions/core/balance.ts';
import {
  MemoryAccounts,
  memoryAssets,
  MemoryCapacity,
  MemoryEvents,
  memoryLinks,
  MemoryMetrics,
  MemoryOrders,
  MemoryQuotes,
  MemoryTable,
  MemoryWebhooks,
} from './memory.ts';
import { OrderQuoting } from '../../functions/core/quote-order.ts';
import type { Scheduler } from 'fast-check';

export const SLOTS = 2;
/** The test lane's slots (test-mode orders): its own, one. */
export const TEST_SLOTS = 1;
export const LEASE_SECONDS = 1800;
export const REVIEW_SECONDS = 900;
export const GRACE_SECONDS = 60;
/** The render Lambda's timeout: a render held longer is cut off, as Lambda ends an invocation at its timeout. */
export const RENDER_TIMEOUT_SECONDS = 900;
/** The audit's budget a run: small, so that the model's runs also leave work to the next run and resume from the cursor. */
export const SWEEP_BUDGET = { describes: 3, starts: 2, items: 6 } as const;
/** Three live keys, and T: the test-mode key of A's account (its own account, linked to A's). */
export const USERS = ['A', 'B', 'C', 'T'] as const;
/** The keys whose accounts move money (an operator tops up only these). */
export const LIVE_USERS = ['A', 'B', 'C'] as const;
export type User = (typeof USERS)[number];
export const TOPICS = ['green tea', 'Кофейня у дома', 'solar panels'] as const;

/** A write of an account's that the model follows, as it took effect while a pair of requests ran (lifecycle-commands.ts Pair). */
export type Effect =
  | { kind: 'charge'; orderId: string }
  /** A creation's commit refused for an account that moved since its read: it prices again. */
  | { kind: 'stale'; orderId: string }
  | { kind: 'alert'; userId: string; below: number | undefined }
  | { kind: 'topUp'; userId: string; amount: number; balanceAfter: number };

/** A render the test holds: it ends when the test finishes it (or its Lambda's time runs out). */
interface HeldRender {
  orderId: string;
  since: number;
  release: (outcome: 'ok' | 'fail' | 'timeout') => void;
}

export class World {
  clock = Date.parse('2026-11-23T10:00:00Z');
  readonly now = () => new Date(this.clock);
  readonly table = new MemoryTable();
  /** The keys' assets: records on the table, objects and the orders' copies in memory. */
  readonly assets = memoryAssets(this.table);
  readonly orders = new MemoryOrders(this.table);
  readonly capacity = new MemoryCapacity(this.table);
  /** The test lane's queue: T's orders wait and render here. */
  readonly testCapacity = new MemoryCapacity(this.table);
  readonly events = new MemoryEvents(this.table);
  readonly webhooks = new MemoryWebhooks(this.table);
  readonly metrics = new MemoryMetrics();
  readonly files = new Map<string, string>();
  /** Renders in flight, by order: the renderer was called and has not returned. */
  readonly held: HeldRender[] = [];
  /** Outbound webhook requests, by event id (test pings under their own id). */
  readonly sent = new Map<string, number>();
  receiverUp = true;
  /** The next generator call fails (GeneratorFailed). */
  failNext = false;
  /**
   * While a pair of requests runs: fast-check's scheduler, which releases their reads and writes of the account one at
   * a time in an order it draws (and shrinks), so that either request may fall between the other's read and write.
   */
  scheduler: Scheduler | undefined;
  /** What the pair's writes did, in the order they took effect: the model applies them in this order. */
  effects: Effect[] = [];
  readonly engine: Engine;
  readonly queue: RenderLanes;
  readonly steps: OrderSteps;
  readonly creation: OrderCreation;
  readonly quoting: OrderQuoting;
  readonly workflow: Workflow;
  readonly cancellation: CancelPorts;
  readonly deliveryPorts: DeliveryPorts;
  readonly resendPorts: ResendPorts;

  /** `shards`: the render queue's shards of the SLOTS (2: a shard per slot, every admission of the other's waits a steal). */
  constructor(readonly shards = 1) {
    const now = this.now;
    const steps = (): OrderSteps => this.steps;
    this.engine = new Engine(
      {
        AwaitSlot: async (p) => {
          await steps().awaitSlot(p.orderId, p.taskToken, p.execution);
          return {};
        },
        StartOrder: (p) => steps().start(p.orderId, p.execution),
        PlanOrder: (p) => steps().plan(p.orderId, p.execution),
        PrepareOrder: (p) => steps().prepare(p.orderId, p.execution),
        WriteScript: (p) => steps().write(p.orderId, p.execution),
        AwaitReview: async (p) => {
          await steps().awaitReview(p.orderId, p.taskToken, p.execution);
          return {};
        },
        RegenScript: (p) => steps().regen(p.orderId, p.execution),
        RenderVideo: (p) => steps().render(p.orderId, p.execution),
        PublishOrder: async (p) => {
          await steps().publish(p.orderId, p.execution);
          return {};
        },
        ReviewLapsed: (p) => steps().lapse(p.orderId, p.failure, p.execution),
        MarkFailed: async (p) => {
          await steps().fail(p.orderId, p.failure, p.execution);
          return {};
        },
        DeliverEvent: (p) => deliver(this.deliveryPorts, p.orderId, p.eventId),
      },
      () => this.clock,
      new Set(['RenderVideo']),
    );
    this.workflow = {
      start: async (o) =>
        this.engine.start('order', o.execution ?? o.id, { orderId: o.id, directorMode: o.params.director_mode, reviewTimeoutSeconds: REVIEW_SECONDS }),
      state: async (o) => this.engine.state(o.execution ?? o.id),
      stop: async (o) => this.engine.stop(o.execution ?? o.id),
    };
    const delivery = {
      start: async (e: { id: string; orderId: string; execution?: string }) =>
        this.engine.start('delivery', e.execution ?? e.id, { orderId: e.orderId, eventId: e.id }),
      state: async (e: { id: string; execution?: string }) => this.engine.state(e.execution ?? e.id),
    };
    // An admission completes a running wait, or starts the execution of an order queued by its creation.
    const wakeup = {
      wake: async (token: string, slot: number, orderId: string) => {
        if (token !== START_AT_ADMISSION) return this.engine.succeed(token, { slot });
        this.engine.start('order', orderId, { orderId, directorMode: false, reviewTimeoutSeconds: REVIEW_SECONDS, slot: { slot } });
        return true;
      },
    };
    this.queue = new RenderLanes({
      live: new RenderQueue({ store: this.capacity, wakeup, slots: SLOTS, shards, leaseSeconds: LEASE_SECONDS, botRun: 3, now }),
      test: new RenderQueue({ store: this.testCapacity, wakeup, slots: TEST_SLOTS, shards: 1, leaseSeconds: LEASE_SECONDS, botRun: 3, now }),
    });
    const announce = async (e: OrderEvent) => void (await handOver({ webhooks: this.webhooks, events: this.events, delivery }, e));
    const accounts = { get: async (userId: string) => this.table.account(userId) };
    this.steps = new OrderSteps({
      orders: this.orders,
      accounts,
      generator: this.generator(),
      // The same model generator: a test-mode order fails and succeeds as any (the renderer it gets is order-steps'
      // choice, tested in order-steps.test.ts).
      testModeGenerator: this.generator(),
      files: { put: async (orderId, file, body) => void this.files.set(`${orderId}/${file}`, String(body)) },
      // The render reads the order's own copies only: one missing fails the render (the model's invariant checks none is).
      assetCopies: {
        readCopy: async (orderId, assetId) => {
          if (!this.assets.files.copies.has(`${orderId}/${assetId}`)) throw new Error(`order ${orderId} has no copy of ${assetId}`);
        },
      },
      links: memoryLinks,
      metrics: this.metrics,
      serviceAddress: 'video.example',
      scratch: { make: () => '/scratch', remove: async () => undefined },
      capacity: this.queue,
      renderSeconds: RENDER_TIMEOUT_SECONDS,
      announce,
      now,
    });
    this.cancellation = {
      // A cancel's read of the account (for its refund) and its transition are points a pair's other request may fall between.
      orders: {
        get: (id) => this.orders.get(id),
        transition: (tr) => this.point(`cancel ${tr.order.id}`, () => this.orders.transition(tr)),
      },
      accounts: { get: (userId) => this.point(`cancel reads ${userId}`, () => this.table.account(userId)) },
      capacity: this.queue,
      announce,
      metrics: this.metrics,
      now,
      stopWorkflow: (o) => this.workflow.stop(o, 'canceled'),
      log: { warn: () => undefined },
    };
    const sender = {
      send: async (_url: string, _body: string, headers: Record<string, string>) => {
        const id = headers['x-service-event-id']!;
        this.sent.set(id, (this.sent.get(id) ?? 0) + 1);
        return this.receiverUp ? { ok: true, status: 200, latencyMs: 1 } : { ok: false, status: 503, latencyMs: 1 };
      },
    };
    this.deliveryPorts = { events: this.events, webhooks: this.webhooks, sender, retryBaseMs: 1000, metrics: this.metrics, now };
    this.resendPorts = { events: this.events, delivery, resendsPerHour: DEFAULT_RESENDS_PER_HOUR, now };
    this.sender = sender;
    this.delivery = delivery;
    const quotes = new MemoryQuotes(this.table);
    const views = (slots: number) =>
      new QueueViews(async (ks) => ks.map(() => ({ ...emptyShardState(), slots })), { shards: 1, botRun: 3, defaultSecondsPerVideoSecond: 0.5 }, 2000);
    const queueViews = { live: views(SLOTS), test: views(TEST_SLOTS) };
    this.quoting = new OrderQuoting({
      quotes,
      planPrompt: planFromPrompt,
      deliverable: { ai_visual: true, voice_clone: true },
      prices: DEFAULT_PRICES,
      queues: queueViews,
    });
    this.creation = new OrderCreation({
      assets: this.assets,
      // Its commit is a point a pair's other request may come before (its read of the account is World.create's).
      orders: {
        create: (c) =>
          this.point(`commit ${c.order.id}`, async () => {
            const outcome = await this.orders.create(c);
            if (outcome.kind === 'created') this.note({ kind: 'charge', orderId: c.order.id });
            if (outcome.kind === 'account_changed') this.note({ kind: 'stale', orderId: c.order.id });
            return outcome;
          }),
        get: (id) => this.orders.get(id),
        idempotency: (userId, keyHash, now) => this.orders.idempotency(userId, keyHash, now),
        started: (order) => this.orders.started(order),
      },
      quotes,
      planPrompt: planFromPrompt,
      deliverable: { ai_visual: true, voice_clone: true },
      workflow: this.workflow,
      admission: this.queue,
      limits: DEFAULT_LIMITS,
      prices: DEFAULT_PRICES,
      throughput: { orderSeconds: 20 },
      queues: queueViews,
      metrics: this.metrics,
      announce,
      log: { error: () => undefined, warn: () => undefined },
      close: (order, error) => closeInError(this.cancellation, order, error),
    });
  }

  readonly sender: DeliveryPorts['sender'];
  readonly delivery: { start(e: { id: string; orderId: string; execution?: string }): Promise<boolean>; state(e: { id: string }): Promise<string> };

  /** The embedded planner and writer; a renderer that waits for the test; `failNext` fails the next call. */
  private generator(): Generator {
    const failing = () => {
      if (!this.failNext) return;
      this.failNext = false;
      throw new GeneratorFailed('the model failed this step');
    };
    return {
      planner: {
        plan: async (prompt: string) => {
          failing();
          return planFromPrompt(prompt);
        },
      },
      writer: {
        write: async (req) => {
          failing();
          return writeScript(req);
        },
      },
      renderer: {
        render: async (req: RenderRequest) => {
          const outcome = await new Promise<'ok' | 'fail' | 'timeout'>((release) => this.held.push({ orderId: req.orderId!, since: this.clock, release }));
          if (outcome === 'timeout') throw Object.assign(new Error('Task timed out'), { name: 'Sandbox.Timedout' });
          if (outcome === 'fail') throw new GeneratorFailed('the model failed the render');
          return { video: `/scratch/${req.orderId}.mp4`, cover: `/scratch/${req.orderId}.jpg`, seconds: req.params.duration_seconds };
        },
      },
    };
  }

  addUser(userId: string, balance: number, extra: { trialVideosLeft?: number; plan?: { name: string; heavyPerMonth: number }; testOf?: string } = {}) {
    this.table.addAccount({ userId, balance, ...extra });
  }

  /** The client's creation, as the handler calls it; the error a client would get is returned, not thrown. */
  async create(userId: string, request: OrderRequest, idempotencyKey?: string) {
    // A millisecond a call: order ids (which carry their time) then sort as they were made, so a sequence replays alike.
    // Time passes for the renders too: one past its Lambda's timeout is cut off, however the clock moved (seed 23: a
    // render left running a millisecond past it met a recovery that rightly took it for over).
    this.clock += 1;
    await this.cutOverdue();
    return this.call(async () => {
      // The key's account, as the handler's authentication reads it.
      const account = await this.point(`read ${userId}`, () => this.table.account(userId));
      return this.creation.create({ account, request, ...(idempotencyKey ? { idempotencyKey } : {}), now: this.now() });
    });
  }

  /** POST /balance/alerts, as the handler calls it. */
  setAlert(userId: string, below: number | null) {
    return this.call(() =>
      this.point(`alert ${userId}`, async () => {
        const view = await setBalanceAlert({ accounts: new MemoryAccounts(this.table) }, userId, below, this.now());
        this.note({ kind: 'alert', userId, below: below ?? undefined });
        return view;
      }),
    );
  }

  /** The operator's top-up: the balance and its ledger entry, a sent alert re-armed (MemoryTable.topUp). */
  topUp(userId: string, amount: number) {
    return this.point(`top-up ${userId}`, () => {
      this.table.topUp(userId, amount, this.now());
      this.note({ kind: 'topUp', userId, amount, balanceAfter: this.table.accounts.get(userId)!.balance });
    });
  }

  /** A read or write of an account's: while a pair runs, it waits for the scheduler to release it. */
  private async point<T>(label: string, run: () => T | Promise<T>): Promise<T> {
    if (this.scheduler) await this.scheduler.schedule(Promise.resolve(), label);
    return run();
  }

  private note(effect: Effect) {
    if (this.scheduler) this.effects.push(effect);
  }

  quote(userId: string, request: OrderRequest) {
    return this.call(() => this.quoting.quote({ account: this.table.account(userId), request, now: this.now() }));
  }

  review(userId: string, orderId: string, decision: ReviewDecision) {
    const workflow = { ...this.workflow, answerReview: (token: string, d: ReviewDecision) => this.engine.succeed(token, { action: d.action }) };
    return this.call(() =>
      reviewOrder(
        { orders: this.orders, workflow, limits: DEFAULT_LIMITS, throughput: { orderSeconds: 20 }, assets: this.assets },
        userId,
        orderId,
        decision,
        this.now(),
      ),
    );
  }

  cancel(userId: string, orderId: string) {
    return this.call(() => cancelOrder(this.cancellation, userId, orderId));
  }

  private get recovery(): RecoveryPorts {
    return {
      orders: this.orders,
      workflow: this.workflow,
      events: this.events,
      delivery: this.delivery as never,
      metrics: this.metrics,
      now: this.now,
      expire: async (order: Order) => void (await cancel(this.cancellation, order, DEADLINE_EXCEEDED)),
    };
  }

  /** Where the audit's walks stand between runs, as the table's item keeps it. */
  auditCursor: AuditCursor = {};

  runSweep(graceSeconds = GRACE_SECONDS, full = false) {
    return sweep(
      {
        ...this.recovery,
        orders: this.orders,
        events: this.events,
        queue: this.queue,
        cursor: {
          load: async () => this.auditCursor,
          save: async (c) => {
            this.auditCursor = c;
          },
        },
        budget: { ...SWEEP_BUDGET },
        assetCopies: this.assets.files,
        isBusy: () => false,
        log: { warn: () => {} },
        graceSeconds,
        reviewWaitSeconds: REVIEW_SECONDS,
      },
      { full },
    );
  }

  /** Hands the oldest ended (failed or aborted) execution to the recovery, as its status-change event does. */
  async deliverEnded(): Promise<Recovery | undefined> {
    const ended = this.engine.ended.shift();
    if (!ended) return undefined;
    return recoverEnded(this.recovery, { ...ended, input: ended.input as { orderId?: string; eventId?: string } });
  }

  /** An execution stopped from outside (an operator, a console), its order or event still open. */
  stopFromOutside(n: number) {
    const running = [...this.engine.executions.values()].filter((e) => e.status === 'running');
    const e = running[n % Math.max(1, running.length)];
    if (e) this.engine.stop(e.name);
  }

  /**
   * Time passes: waits time out, and a render held past its Lambda's timeout is cut off. Over a minute, the workflows
   * do their work meanwhile (a Task runs within seconds of the last: what a slot's lease is sized for).
   */
  async advance(seconds: number) {
    const target = this.clock + seconds * 1000;
    if (seconds > 61) {
      // Through each moment something is due (a Wait ends, a wait times out), the workflows having done their work.
      for (;;) {
        await this.settle();
        const due = this.engine.nextDue();
        if (due === undefined || due > target) break;
        await this.moveTo(Math.max(this.clock, due));
      }
    }
    await this.moveTo(target);
  }

  private async moveTo(at: number) {
    this.clock = at;
    await this.cutOverdue();
    await this.engine.tick();
  }

  /** Renders held past their Lambda's timeout end, as Lambda ends an invocation at its timeout. */
  private async cutOverdue() {
    for (const h of [...this.held]) if (this.clock - h.since > RENDER_TIMEOUT_SECONDS * 1000) await this.finishRender(h, 'timeout');
  }

  /** Every execution that can move runs until none can (a held render stays held). */
  async settle() {
    for (let i = 0; i < 500; i++) {
      const next = this.engine.runnable()[0];
      if (!next) return;
      await this.step(next, false);
    }
    throw new Error('the workflows did not come to rest in 500 steps');
  }

  /** Lets a held render end, and its Task with it. */
  async finishRender(h: HeldRender, outcome: 'ok' | 'fail' | 'timeout') {
    this.held.splice(this.held.indexOf(h), 1);
    h.release(outcome);
    const task = this.engine.inFlight.find((t) => t.state === 'RenderVideo' && this.engine.executions.get(t.execution)?.data.orderId === h.orderId);
    if (task) await this.engine.finish(task);
    else await new Promise((r) => setImmediate(r));
  }

  /** One Task of one execution; `fail` fails the generator call it makes, if any. */
  async step(name: string, fail: boolean) {
    this.failNext = fail;
    try {
      await this.engine.step(name);
    } finally {
      this.failNext = false;
    }
  }

  /** The local runtime stopped and started again: executions and renders in flight are gone; the sweep runs at once. */
  async restart() {
    this.held.length = 0;
    this.engine.loseAll();
    await this.runSweep(0, true);
  }

  registerWebhook(userId: string) {
    return this.call(() =>
      registerWebhook(this.webhooks, { allowPrivate: true, resolve: async () => ['127.0.0.1'] }, userId, 'https://hooks.example/in', this.now()),
    );
  }
  rotateWebhook(userId: string) {
    return this.call(async () => rotateSecret(this.webhooks, userId, (await this.webhooks.ofUser(userId))?.id, 60, this.now()));
  }
  deleteWebhook(userId: string) {
    return this.call(async () => deleteWebhook(this.webhooks, userId, (await this.webhooks.ofUser(userId))?.id));
  }
  pingWebhook(userId: string) {
    return this.call(async () =>
      pingWebhook({ webhooks: this.webhooks, sender: this.sender }, this.table.account(userId), (await this.webhooks.ofUser(userId))?.id, this.now()),
    );
  }
  resendSince(userId: string, since: Date) {
    return this.call(() => resendDropped(this.resendPorts, this.table.account(userId), since));
  }
  resendOne(userId: string, eventId: string) {
    return this.call(() => resendEvent(this.resendPorts, this.table.account(userId), eventId));
  }

  /** What a client gets: the value, or the domain error's code (anything else is a 500: thrown). */
  private async call<T>(run: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string; error: AppError }> {
    try {
      return { ok: true, value: await run() };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, code: err.code, error: err };
      throw err;
    }
  }

  storedEvents(): StoredEvent[] {
    return [...this.table.events.values()];
  }
}

/** The parameters of an explicit order from the model's choice. */
export const explicitParams = (topic: string, extras: { director?: boolean; song?: boolean; placement?: boolean }): OrderParams =>
  createVideoBody.parse({
    topic,
    duration_seconds: 20,
    ...(extras.director ? { director_mode: true } : {}),
    ...(extras.song ? { music: 'song' } : {}),
    ...(extras.placement ? { placement: { product: 'Tea' } } : {}),
  });
