/**
 * What each step of the order workflow does (statemachines/order.asl.json; the handlers in functions/steps are thin).
 * Every status change is a conditional transition from the status just read, so no step moves an order backwards or
 * out of a final state, and every step may run twice: a script is written only when there is none, a video is
 * rendered only when its files are missing, a refund happens only with the one transition to error.
 */
import { DEADLINE_EXCEEDED, pastDeadline } from './cancel-order.ts';
import { type ClosePorts, closeInError, EVENT_KEYS, eventOf } from './close-order.ts';
import { orderExecution } from './executions.ts';
import { GeneratorFailed, type Generator, type RenderRequest } from './generator.ts';
import { ORDER_MOVED, type Order, type OrderFailure, type OrderLinks } from './orders.ts';
import { Contended } from './errors.ts';
import { AGAIN, type Again, untilDone } from './retry.ts';
import type { AssetFiles } from './assets.ts';
import type { AssetContentType } from '../contract/assets.ts';
import type { RenderLanes } from './capacity.ts';
import { keepPriced, movesMoney } from './pricing.ts';
import type { Announce, FileStore, Metrics, OrderStore } from './ports.ts';
import { present } from './present.ts';

/**
 * Thrown when the order is already done or in error, or when the execution running the step is no longer the
 * order's (a restart or a review started a newer one): the workflow ends quietly (Catch -> Closed).
 */
export class OrderClosed extends Error {
  override readonly name = 'OrderClosed';
  constructor(
    message: string,
    /** The order is open, but another execution carries it. */
    readonly superseded = false,
    /** The order as the step read it (closed), if it is on record at all. */
    readonly order?: Order,
  ) {
    super(message);
  }
}

/**
 * Thrown by the render step of an execution that took over an order from one stopped mid-render: that execution's
 * render invocation may still run (a stop does not end the Lambda invocation it made), so this one renders nothing
 * until it has written `rendered` or must have ended (`renderSeconds`); the workflow waits and asks again
 * (Catch -> AwaitRender).
 */
export class RenderInFlight extends Error {
  override readonly name = 'RenderInFlight';
}

/** The longest a render's invocation can run: the RenderVideo Task's TimeoutSeconds (930: the function's 900 s and its start) and a minute. */
export const RENDER_INVOCATION_SECONDS = 930 + 60;

/**
 * Whether a step's error is a business outcome that the order workflow's Catch routes (statemachines/order.asl.json):
 * OrderClosed (the order was canceled, lapsed or moved to another execution: Closed), GeneratorFailed (a lasting
 * generation failure: the order's error and refund, MarkFailed) and RenderInFlight (AwaitRender). Anything else is a
 * fault: a crash, a store or a provider away (ServiceUnavailable, GeneratorBusy: retried, and they page if they last),
 * a timeout.
 */
export const isWorkflowOutcome = (err: unknown) => err instanceof OrderClosed || err instanceof GeneratorFailed || err instanceof RenderInFlight;

/** The facts the workflow's Choice states route on; every step returns them. */
export interface StepState {
  orderId: string;
  /** A quick order whose parameters the planner has not refined yet. */
  plan: boolean;
  directorMode: boolean;
  /** Director mode: approved or edited, so rendering may go on. */
  reviewed: boolean;
  /** Director mode: a regen decision is waiting for the rewrite. */
  regen: boolean;
}

export interface StepPorts {
  orders: Pick<OrderStore, 'get' | 'transition' | 'patch'>;
  accounts: ClosePorts['accounts'];
  generator: Generator;
  /** Test-mode orders' generator (no provider calls, a short clip marked TEST): they cost nobody anything. */
  testModeGenerator: Generator;
  files: Pick<FileStore, 'put'>;
  /** The order's copies of the assets it names (core/assets.ts), read into the render's scratch folder. */
  assetCopies?: Pick<AssetFiles, 'readCopy'>;
  links: { issue(orderId: string, now: Date): Promise<OrderLinks> };
  metrics: Metrics;
  /** The address in the trial watermark. */
  serviceAddress: string;
  /** Scratch folders for a render's output; a warm function's disk is kept between orders, so each is removed. */
  scratch: { make(): string; remove(dir: string): Promise<void> };
  /** The render queue of the order's lane: its wait for a slot, and the release of its slot when it leaves rendering. */
  capacity: Pick<RenderLanes, 'awaitSlot' | 'release' | 'releaseUnrecorded' | 'renew'>;
  /** The longest a render's invocation can run (RENDER_INVOCATION_SECONDS): what a stopped execution's render is waited out for. */
  renderSeconds: number;
  announce: Announce;
  now: () => Date;
}

const stateOf = (o: Order): StepState => ({
  orderId: o.id,
  plan: o.kind === 'quick' && !o.planned,
  directorMode: o.params.director_mode,
  reviewed: Boolean(o.reviewed),
  regen: o.regenNote !== undefined,
});

/** How Step Functions hands a failed state's error to the Catch that routes it: its name and its cause. */
export type StepFailure = { Error?: string | undefined; Cause?: string | undefined };

/** Safe, client-facing reasons for an order in error: no internals. */
function errorOf(failure: StepFailure | undefined, order: Order): OrderFailure {
  if (order.status === 'awaiting_review') return { code: 'review_expired', message: 'The script was not reviewed before the review deadline' };
  switch (failure?.Error) {
    case 'GeneratorFailed':
      return { code: 'generation_failed', message: 'The video could not be generated from this order' };
    case 'GeneratorBusy':
    case 'States.Timeout':
      return { code: 'generator_unavailable', message: 'The generator stayed unavailable' };
    default:
      return { code: 'internal_error', message: 'Generation failed' };
  }
}

export class OrderSteps {
  constructor(private readonly p: StepPorts) {}

  /** The order, for a step of `execution` (its workflow's execution name, when the workflow passes it). */
  private async load(orderId: string, execution?: string): Promise<Order> {
    const order = await this.p.orders.get(orderId);
    if (!order || order.status === 'done' || order.status === 'error') throw new OrderClosed(`Order ${orderId} is closed`, false, order);
    // A fence: of two executions of one order, only the one the order names goes on.
    if (execution !== undefined && execution !== orderExecution(order)) {
      throw new OrderClosed(`Order ${orderId} is carried by ${orderExecution(order)}, not ${execution}`, true);
    }
    return order;
  }

  /** The order waits for a render slot (its status unchanged); an admission completes the wait's token. */
  async awaitSlot(orderId: string, taskToken: string, execution?: string): Promise<void> {
    const order = await this.load(orderId, execution);
    await this.forgetReviewToken(order);
    // Its place goes on the order before any admission, so eta_seconds reads it without reading the queue.
    const waiter = { ...order, videoSeconds: order.params.duration_seconds };
    await this.p.capacity.awaitSlot(waiter, taskToken, (place) =>
      this.p.orders.patch(order.id, { status: order.status, set: { queuePlace: place } }, this.p.now()),
    );
  }

  /** queued -> running. A resumed order keeps its status and is routed from its facts. */
  async start(orderId: string, execution?: string): Promise<StepState> {
    return this.untilWritten(orderId, 'start', async () => {
      const order = await this.load(orderId, execution);
      if (order.status === 'queued') {
        const now = this.p.now();
        if (!(await this.p.orders.transition({ order, to: 'running', set: { startedAt: now.toISOString() }, now }))) return AGAIN;
      }
      return stateOf(order);
    });
  }

  /**
   * An order its admission started, its slot in hand (core/capacity.ts START_AT_ADMISSION): Start, Plan and Write in one
   * step, so such an order costs four state transitions fewer (each part is idempotent, as in its own step).
   */
  async prepare(orderId: string, execution?: string): Promise<StepState> {
    await this.start(orderId, execution);
    await this.plan(orderId, execution);
    return this.write(orderId, execution);
  }

  /**
   * Quick orders: the planner proposes parameters; the order takes those that do not change the price (keepPriced),
   * and keeps its director mode and the logo its creation checked and copied (the planner knows of no asset).
   */
  async plan(orderId: string, execution?: string): Promise<StepState> {
    const order = await this.load(orderId, execution);
    if (order.kind === 'quick' && !order.planned) {
      const proposed = await this.generatorOf(order).planner.plan(order.prompt ?? order.params.topic, { orderId });
      const { logo: _proposedLogo, ...kept } = keepPriced(proposed, order.params);
      const planned = { ...kept, director_mode: order.params.director_mode, ...present({ logo: order.params.logo }) };
      await this.p.orders.patch(orderId, { status: order.status, set: { params: planned, planned: true } }, this.p.now());
      return stateOf({ ...order, params: planned, planned: true });
    }
    return stateOf(order);
  }

  /** The first script; a second run finds it and writes none. */
  async write(orderId: string, execution?: string): Promise<StepState> {
    const order = await this.load(orderId, execution);
    if (!order.script) {
      const script = await this.generatorOf(order).writer.write({ orderId, params: order.params });
      await this.p.orders.patch(orderId, { status: order.status, set: { script }, withoutScript: true }, this.p.now());
    }
    return stateOf(order);
  }

  /** running -> awaiting_review with the wait's task token (a resumed wait replaces a token that died with it). */
  async awaitReview(orderId: string, taskToken: string, execution?: string): Promise<void> {
    return this.untilWritten(orderId, 'the review wait', async () => {
      const order = await this.load(orderId, execution);
      const now = this.p.now();
      if (order.status === 'awaiting_review') {
        // The same wait run again has nothing to record; a resumed wait has a new token.
        if (order.reviewToken === taskToken) return;
        await this.p.orders.patch(orderId, { status: 'awaiting_review', set: { reviewToken: taskToken } }, now);
        return;
      }
      const round = (order.reviewRound ?? 0) + 1;
      const next: Order = { ...order, status: 'awaiting_review', reviewToken: taskToken, reviewRound: round, updatedAt: now.toISOString() };
      const event = eventOf(next, 'video.awaiting_review', EVENT_KEYS.awaitingReview(round));
      const moved = await this.p.orders.transition({ order, to: 'awaiting_review', set: { reviewToken: taskToken, reviewRound: round }, event, now });
      if (!moved) return AGAIN;
      await this.p.announce(event);
    });
  }

  /** A regen decision: the script is rewritten along the note, then the order goes back to the review wait. */
  async regen(orderId: string, execution?: string): Promise<StepState> {
    const order = await this.load(orderId, execution);
    await this.forgetReviewToken(order);
    if (order.regenNote !== undefined && order.script) {
      const script = await this.generatorOf(order).writer.write({ orderId, params: order.params, regen: { note: order.regenNote, previous: order.script } });
      await this.p.orders.patch(orderId, { status: order.status, set: { script }, remove: ['regenNote'], regenNote: order.regenNote }, this.p.now());
      const { regenNote: _done, ...rest } = order;
      return stateOf({ ...rest, script });
    }
    return stateOf(order);
  }

  /**
   * Renders and stores the mp4 and the cover, unless a run before this one already did: the order's `rendered` mark
   * is written (atomically, in DynamoDB) only after both files are stored, so an upload cut short by a stop is redone.
   *
   * One render at a time per order (and so per slot): each render writes its start and its execution on the order
   * (`renderStartedAt`, `renderExecution`). The same execution's render again (the workflow's Retry of a crash or a
   * timeout) goes on at once: Step Functions retries only once the invocation ended. Another execution's render (a
   * recovery's new execution after a stop from outside, which does not end the render invocation it made) is waited
   * out: RenderInFlight until that render wrote `rendered` (then its files are taken as they are) or its invocation
   * must have ended (`renderSeconds` after its start, its last second included).
   */
  async render(orderId: string, execution?: string): Promise<StepState> {
    const order = await this.untilWritten(orderId, 'render', async () => {
      const order = await this.load(orderId, execution);
      if (order.rendered) return order;
      // No render for an order past its deadline: it is canceled and refunded here rather than at the next sweep.
      if (pastDeadline(order, this.p.now())) {
        if (await closeInError(this.p, order, DEADLINE_EXCEEDED, { beforeRender: true }))
          throw new OrderClosed('The order passed its deadline; it was refunded');
        return AGAIN;
      }
      const mine = execution ?? orderExecution(order);
      const now = this.p.now();
      if (order.renderStartedAt !== undefined && order.renderExecution !== mine) {
        const ends = Date.parse(order.renderStartedAt) + this.p.renderSeconds * 1000;
        if (ends >= now.getTime())
          throw new RenderInFlight(
            `Order ${orderId}: the render of ${order.renderExecution ?? 'an earlier execution'} may run until ${new Date(ends).toISOString()}`,
          );
      }
      // From here on the render runs to its end and is paid for: the deadline no longer applies (one conditional
      // write decides, against a deadline's cancel at the same moment).
      const set = { renderStartedAt: now.toISOString(), renderExecution: mine };
      return (await this.p.orders.patch(orderId, { status: order.status, set }, now)) ? order : AGAIN;
    });
    if (!order.rendered) {
      // The slot's lease from each render's start (a retry's too): it covers the render and the publishing after.
      await this.p.capacity.renew(order);
      if (!order.script) throw new GeneratorFailed('The order has no script to render');
      const outDir = this.p.scratch.make();
      const started = this.p.now().getTime();
      try {
        const images = await this.assetImages(order, outDir);
        const result = await this.generatorOf(order).renderer.render({
          orderId,
          script: order.script,
          params: order.params,
          ...(images ? { images } : {}),
          outDir,
          ...(order.charge.trial ? { watermark: `${this.p.serviceAddress} (AI)` } : {}),
        });
        await this.p.files.put(orderId, 'cover', result.cover, true);
        await this.p.files.put(orderId, 'video', result.video, true);
        // The render's share of an order's slot time, per second of video: what sizing the slots reads after a deploy.
        if (result.seconds > 0) this.p.metrics.gauge('RenderSecondsPerVideoSecond', (this.p.now().getTime() - started) / 1000 / result.seconds, 'Seconds');
      } finally {
        await this.p.scratch.remove(outDir);
      }
      await this.p.orders.patch(orderId, { status: order.status, set: { rendered: true } }, this.p.now());
    }
    return stateOf(order);
  }

  /** The order's own copies of its assets, as files in `dir`: only those recorded on the order are read. */
  private async assetImages(order: Order, dir: string): Promise<RenderRequest['images']> {
    const assets = Object.entries(order.assets ?? {});
    if (!assets.length) return undefined;
    if (!this.p.assetCopies) throw new GeneratorFailed('The order names assets but this renderer reads none');
    const images: Record<string, { path: string; contentType: AssetContentType }> = {};
    for (const [id, { contentType }] of assets) {
      images[id] = { path: `${dir}/asset-${id}`, contentType };
      await this.p.assetCopies.readCopy(order.id, id, images[id].path);
    }
    return images;
  }

  /** The posting pack beside the video, then running -> done with the metadata. */
  async publish(orderId: string, execution?: string): Promise<void> {
    const { order, event } = await this.untilWritten(orderId, 'publish', async () => {
      const order = await this.load(orderId, execution);
      if (!order.script) throw new GeneratorFailed('The order has no script');
      await this.p.files.put(orderId, 'pack', JSON.stringify(order.script.pack, null, 2));
      const now = this.p.now();
      const set = { metadata: order.script.pack, finishedAt: now.toISOString() };
      const done: Order = { ...order, ...set, status: 'done', updatedAt: now.toISOString() };
      const event = eventOf(done, 'video.done', EVENT_KEYS.done, await this.p.links.issue(orderId, now));
      return (await this.p.orders.transition({ order, to: 'done', set, event, now })) ? { order, event } : AGAIN;
    });
    this.p.metrics.count('OrdersDone');
    await this.p.capacity.release(order, true);
    await this.p.announce(event);
  }

  /** Any active state -> error, refunding exactly what the order took, once. */
  async fail(orderId: string, failure?: StepFailure, execution?: string): Promise<void> {
    return this.untilWritten(orderId, 'the failure', async () => {
      let order: Order;
      try {
        order = await this.load(orderId, execution);
      } catch (err) {
        // A closed order may still hold its slot, if the run that closed it stopped before releasing it; a superseded
        // execution's failure is not the order's, and the slot is the newer execution's.
        if (err instanceof OrderClosed) return err.superseded ? undefined : this.releaseClosed(orderId, err.order);
        throw err;
      }
      return (await this.close(order, failure)) ? undefined : AGAIN;
    });
  }

  /**
   * The review deadline passed (the wait's States.Timeout). Unreviewed, the order ends in error, refunded, and so does
   * the execution (OrderClosed). A review that won the race recorded its decision (running) but came too late for
   * the wait: the workflow goes on from that decision instead.
   */
  async lapse(orderId: string, failure?: StepFailure, execution?: string): Promise<StepState> {
    return this.untilWritten(orderId, 'the review deadline', async () => {
      const order = await this.load(orderId, execution);
      if (order.status === 'awaiting_review') {
        if (await this.close(order, failure)) throw new OrderClosed('The review deadline passed; the order was refunded');
        return AGAIN;
      }
      await this.forgetReviewToken(order);
      return stateOf(order);
    });
  }

  /** A closed order's slot, in its lane (the order as read); an order no longer on record, in whichever lane holds it. */
  private async releaseClosed(orderId: string, order: Order | undefined): Promise<void> {
    await (order ? this.p.capacity.release(order) : this.p.capacity.releaseUnrecorded(orderId));
  }

  private generatorOf(order: Pick<Order, 'charge'>): Generator {
    return movesMoney(order.charge) ? this.p.generator : this.p.testModeGenerator;
  }

  /**
   * A step's read and conditional write, read again while the order moved in between (another writer came first);
   * bounded: past ORDER_MOVED's tries, Contended, which the workflow retries as the transient failure it is.
   */
  private untilWritten<T>(orderId: string, step: string, op: () => Promise<T | Again>): Promise<T> {
    return untilDone(ORDER_MOVED, op, () => new Contended(`Order ${orderId}: ${step} found the order moved ${ORDER_MOVED.attempts} times`));
  }

  /** The order as read -> error with its refund and event; false when it had moved meanwhile. */
  private async close(order: Order, failure?: StepFailure): Promise<boolean> {
    return (await closeInError(this.p, order, errorOf(failure, order))) !== undefined;
  }

  /**
   * A reviewed order past its wait: the review's token is spent. The review forgets it once its hand-off is done;
   * should that write have failed, the first step after the wait does it, so that a later review gets 409.
   */
  private async forgetReviewToken(order: Order): Promise<void> {
    if (order.status !== 'running' || order.reviewToken === undefined) return;
    await this.p.orders.patch(order.id, { status: 'running', remove: ['reviewToken'], reviewToken: order.reviewToken }, this.p.now());
  }
}
