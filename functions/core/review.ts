/**
 * A review decision on an order waiting in director mode. The order leaves awaiting_review through one conditional
 * write that also records the decision (approved, the edited script, or the regen note), so of two concurrent
 * decisions exactly one wins and the other gets 409; then the workflow's wait is completed with the wait's token.
 *
 * The order keeps the token until that hand-off has succeeded, so that it is never `running` with nothing to run it:
 * - the hand-off fails (Step Functions throttled or unreachable): the write is undone, the order is reviewable
 *   again and the error goes out (503 with Retry-After when it may pass); a repeated review does it all again;
 * - the undo fails too: the order stays `running` with its token and decision, and a repeated review of the same
 *   kind hands that decision off (the review deadline's lapse step also goes on from it);
 * - the wait is gone (the deadline passed, or the execution ended or was lost): the decision stands, and a new
 *   execution goes on from it (the lapsed execution's own lapse step, having seen the decision, yields to it).
 */
import type { ReviewDecision } from '../contract/review.ts';
import { type AssetPorts, checkAssets, copyAssets, type OrderAsset, sceneAssetRefs } from './assets.ts';
import { parseScript } from './script-text.ts';
import { activeTasksExceeded, InvalidParams, notAwaitingReview, regenLimitReached } from './errors.ts';
import { newExecution } from './executions.ts';
import type { Throughput } from './limits.ts';
import { countsAgainstKey, MAX_REGENS, type Order } from './orders.ts';
import type { Limits } from './pricing.ts';
import type { OrderStore, Workflow } from './ports.ts';
import { readOwnOrder } from './read-order.ts';
import { voiceMisfit } from './voice-fit.ts';
import { present } from './present.ts';

export interface ReviewPorts {
  orders: Pick<OrderStore, 'get' | 'transition' | 'patch'>;
  /** A decision sends the order back to running, which takes one of the key's active tasks: the limit applies. */
  limits: Pick<Limits, 'activeTasks'>;
  /** The Retry-After of a review refused at the limit: a typical order's seconds. */
  throughput: Throughput;
  /**
   * The key's assets an edited script's `Image:` lines name: checked before the decision is written (422 naming
   * `text`), copied into the order once it is.
   */
  assets?: AssetPorts;
  workflow: Pick<Workflow, 'start' | 'state'> & {
    /**
     * Completes the review wait's task token with the decision; false when that wait no longer exists (Step
     * Functions answers TaskTimedOut or InvalidToken). Any other failure is thrown.
     */
    answerReview(taskToken: string, decision: ReviewDecision): Promise<boolean>;
  };
}

function decisionFields(order: Order, decision: ReviewDecision): Partial<Order> {
  switch (decision.action) {
    case 'approve':
      return { reviewed: true };
    case 'edit': {
      // The client's text is the script from now on (422 naming `text` when it cannot be one, or the render could not
      // speak it: refused here, the order stays at review instead of failing after its render slot).
      const scenes = parseScript(decision.text, order.params.duration_seconds);
      const misfit = voiceMisfit(scenes, order.script!.language, order.params.voice);
      if (misfit) throw new InvalidParams('text', misfit);
      return { reviewed: true, script: { ...order.script!, scenes } };
    }
    case 'regen':
      return { regenNote: decision.note, regens: (order.regens ?? 0) + 1 };
  }
}

/** Regen, or a decision to render (approve, edit): what the workflow routes on. */
const kindOf = (decision: ReviewDecision) => (decision.action === 'regen' ? 'regen' : 'render');
const recordedKind = (order: Order) => (order.regenNote !== undefined ? 'regen' : 'render');
/** The output the wait is completed with, from a recorded decision. */
const recordedDecision = (order: Order): ReviewDecision => (order.regenNote !== undefined ? { action: 'regen', note: order.regenNote } : { action: 'approve' });

export async function reviewOrder(p: ReviewPorts, userId: string, orderId: string | undefined, decision: ReviewDecision, now: Date): Promise<Order> {
  const order = await readOwnOrder(p.orders, userId, orderId);
  const token = order.reviewToken;
  if (order.status === 'running' && token !== undefined) {
    // A decision recorded by an earlier review whose hand-off failed and could not be undone: hand it off now.
    if (recordedKind(order) !== kindOf(decision)) throw notAwaitingReview('running with an earlier decision');
    // Its copies too, should that review have failed before them (a copy made again is the same bytes).
    if (p.assets) await copyAssets(p.assets.files, order);
    await handOff(p, order, token, recordedDecision(order), now);
    return (await p.orders.get(order.id)) ?? order;
  }
  if (order.status !== 'awaiting_review') throw notAwaitingReview(order.status);
  if (decision.action === 'regen' && (order.regens ?? 0) >= MAX_REGENS) throw regenLimitReached(MAX_REGENS);
  const set = decisionFields(order, decision);
  const refs = set.script ? sceneAssetRefs(set.script.scenes, 'text') : [];
  let added: Record<string, OrderAsset> = {};
  if (refs.length) {
    if (!p.assets) throw new InvalidParams('text', 'Image lines are not accepted here');
    added = await checkAssets(p.assets, userId, refs, now, order.assets);
    if (Object.keys(added).length) set.assets = { ...order.assets, ...added };
  }
  // Running again holds one of the key's active tasks: refused at the limit, the order stays in awaiting_review.
  const activeLimit = countsAgainstKey(order) ? p.limits.activeTasks : undefined;
  if (!(await p.orders.transition({ order, to: 'running', set, now, ...present({ activeLimit }) }))) {
    const current = await p.orders.get(order.id);
    if (current?.status === 'awaiting_review' && activeLimit !== undefined) throw activeTasksExceeded(p.throughput.orderSeconds, activeLimit);
    throw notAwaitingReview(current?.status ?? order.status);
  }
  const running: Order = { ...order, ...set, status: 'running' };
  // What the decision replaced (or added), put back should its copies or its hand-off fail.
  const undo: Undo = {
    set: decision.action === 'edit' ? { script: order.script! } : decision.action === 'regen' ? { regens: order.regens ?? 0 } : {},
    remove: [],
    ...present({ token }),
  };
  if (set.assets) {
    if (order.assets) undo.set.assets = order.assets;
    else undo.remove.push('assets');
    // The copies only now that the decision is written: a review refused (409, 429) stores nothing.
    await copyOrUndo(p, running, Object.keys(added), undo, now);
  }
  if (token === undefined) await carryOn(p, running, now);
  else await handOff(p, running, token, decision, now, undo);
  return (await p.orders.get(order.id)) ?? running;
}

/**
 * Makes the order's copies of the assets the decision added. One that went since its check (or a store's failure)
 * puts the order back in awaiting_review as it was, while it holds this token, and the review is refused: 422 naming
 * `text` (or the store's error). A failed undo leaves the decision for a repeat, as a failed hand-off's does.
 */
async function copyOrUndo(p: ReviewPorts, order: Order, ids: string[], undo: Undo, now: Date): Promise<void> {
  let lost: string[];
  try {
    lost = await copyAssets(p.assets!.files, order, ids);
  } catch (err) {
    await putBack(p, order, undo, now);
    throw err;
  }
  if (!lost.length) return;
  await putBack(p, order, undo, now);
  throw new InvalidParams('text', `the asset ${lost[0]} was deleted since it was checked; upload it as a new asset`);
}

/** What a decision replaced or added, and the review token the order holds: what puts it back in awaiting_review. */
type Undo = { set: Partial<Order>; remove: (keyof Order)[]; token?: string };

/** The order back in awaiting_review as it was before the decision, while it holds the token; false if it moved on. */
const putBack = (p: ReviewPorts, order: Order, undo: Undo, now: Date) =>
  p.orders
    .transition({
      order,
      to: 'awaiting_review',
      set: undo.set,
      remove: ['reviewed', 'regenNote', ...undo.remove],
      ...present({ reviewToken: undo.token }),
      now,
    })
    .catch(() => false);

/**
 * Completes the wait with the decision. When that fails, `undo` (the fields the decision replaced) puts the order back
 * in awaiting_review, while it still holds this token; a failed undo leaves the pending decision for a repeat.
 */
async function handOff(p: ReviewPorts, order: Order, token: string, decision: ReviewDecision, now: Date, undo?: Undo): Promise<void> {
  let answered: boolean;
  try {
    answered = await p.workflow.answerReview(token, decision);
  } catch (err) {
    if (undo) await putBack(p, order, undo, now);
    throw err;
  }
  // The token is spent. Should this write fail, the workflow's next step forgets it (OrderSteps.forgetReviewToken).
  await p.orders.patch(order.id, { status: 'running', remove: ['reviewToken'], reviewToken: token }, now).catch(() => undefined);
  if (!answered) await carryOn(p, order, now);
}

/**
 * The wait is gone, the decision recorded: an execution lost with a local stop starts again under its name;
 * otherwise (it ended, lapsed, or waits on a token the order no longer holds) a new execution, its name recorded
 * first, goes on from the decision. A second execution left running cannot charge or close twice: every status
 * change is conditional, and a step of an execution the order no longer names ends it.
 */
async function carryOn(p: ReviewPorts, order: Order, now: Date): Promise<void> {
  if ((await p.workflow.state(order)) === 'missing') return void (await p.workflow.start(order));
  const execution = newExecution(order.id, 'r', now);
  if (await p.orders.patch(order.id, { status: 'running', set: { execution } }, now)) await p.workflow.start({ ...order, execution });
}
