/**
 * The commands of the model-based test of the order lifecycle (lifecycle-model.test.ts), its small model and its
 * invariants: what clients, operators, the workflow and time can do, by three keys, to the lifecycle on the in-memory
 * ports (lifecycle.ts). The model keeps what the clients were told (top-ups, charges, quotes, keys, resends); after
 * every command the invariants are checked, and after a sequence everything is driven to rest, where every order must
 * have ended and every event settled.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ASSET_GONE, createAsset, deleteAsset } from '../../functions/core/assets.ts';
import { CANCELED, cancelable, DEADLINE_EXCEEDED } from '../../functions/core/cancel-order.ts';
import { MAX_ATTEMPTS } from '../../functions/core/deliveries.ts';
import type { OrderRequest } from '../../functions/core/create-order.ts';
import { epochSeconds, expiryOf, heldAt, IDEMPOTENCY_TTL_MS } from '../../functions/core/expiry.ts';
import { awaitsApproval, countsAgainstKey, isActiveTask, MAX_REGENS, toRecord } from '../../functions/core/orders.ts';
import { DEFAULT_LIMITS, monthOf, movesMoney, spentIn } from '../../functions/core/pricing.ts';
import { limitsOwner } from '../../functions/core/limits.ts';
import type { BalanceLowEvent, BalanceResponse } from '../../functions/contract/balance.ts';
import { CHANNELS, emptyShardState, queueOrder, WAIT_WRITE_SECONDS } from '../../functions/core/capacity.ts';
import { explicitParams, LIVE_USERS, SLOTS, SWEEP_BUDGET, TEST_SLOTS, TOPICS, USERS, type User, World } from './lifecycle.ts';
import { PNG_1x1 } from './memory.ts';

/** What the clients were told, and what follows from it. */
export interface Model {
  topUps: Map<string, number>;
  /** Each created order's charge as its creation answered it. */
  charged: Map<string, number>;
  /** Orders placed with a quote: the quote's cost. */
  quotedCost: Map<string, number>;
  /** Each created order's client metadata as its creation sent it (none: undefined). */
  metadata: Map<string, Record<string, string> | undefined>;
  quotes: { id: string; cost: number }[];
  /** Idempotency-Key -> the order it made, the request and when. */
  keys: Map<string, { orderId: string; request: string; at: number }>;
  /** Resends of each event that the service accepted. */
  resends: Map<string, number>;
  /** Orders by key, in creation order. */
  ordersOf: Map<string, string[]>;
  /** Outbound requests the last API call caused at once, and its bound. */
  log: string[];
  /** Each key's monthly spend limit as the operator last set it. */
  spendLimits: Map<string, number>;
  /** Each key's low-balance alert as set: its threshold, and whether it is armed (not sent since it was set or a top-up lifted the balance to it). */
  alerts: Map<string, { below: number; armed: boolean }>;
  /** The balance.low events each key must have had recorded: one per crossing. */
  crossings: Map<string, number>;
  /** Every asset created, by whom, and whether its bytes are a usable picture (a bomb's are not); deleted ones too. */
  assets: { id: string; owner: User; usable: boolean; deleted: boolean }[];
}

type Real = World;
export type Cmd = fc.AsyncCommand<Model, Real, false>;

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);

const balanceOf = (w: World, u: string) => w.table.accounts.get(u)!.balance;
/** The key's limits are counted on this account: a test-mode key's on its live account's (T's on A's). */
const limitsOf = (w: World, u: string) => limitsOwner(w.table.accounts.get(u)!);
/** Queued and running orders counted in `u`'s limits: its own, and those of its test-mode key. */
const activeOf = (w: World, u: string) => {
  let n = 0;
  for (const o of w.table.orders.values()) if (limitsOf(w, o.userId) === u && countsAgainstKey(o) && isActiveTask(o.status)) n++;
  return n;
};

function requestOf(route: 'quick' | 'explicit' | 'director', topic: number, extras: { song: boolean; placement: boolean }): OrderRequest {
  const t = TOPICS[topic % TOPICS.length]!;
  if (route === 'quick') return { kind: 'quick', prompt: `${extras.song ? 'Funny video with a song' : 'Calm video'} about ${t}` };
  return { kind: 'explicit', params: explicitParams(t, { director: route === 'director', ...extras }) };
}

export class Create implements Cmd {
  constructor(
    readonly user: User,
    readonly route: 'quick' | 'explicit' | 'director',
    readonly topic: number,
    readonly extras: { song: boolean; placement: boolean },
    readonly deadline: number | undefined,
    readonly maxCost: number | undefined,
    readonly quote: number | undefined,
    readonly key: string | undefined,
    /** Keys in order, so that the model's comparison of two requests is the service's (pairs in any order are one). */
    readonly metadata: Record<string, string> | undefined = undefined,
    /** A logo: the model's asset of this index (any key's, usable or not, deleted or not). */
    readonly logo: number | undefined = undefined,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const asset = this.logo !== undefined ? pick(m.assets, this.logo) : undefined;
    const plain = requestOf(this.route, this.topic, this.extras);
    const request: OrderRequest = !asset
      ? plain
      : plain.kind === 'explicit'
        ? { ...plain, params: { ...plain.params, logo: asset.id } }
        : { ...plain, logo: asset.id };
    const quoted = this.quote !== undefined ? pick(m.quotes, this.quote) : undefined;
    const full: OrderRequest = {
      ...request,
      ...(this.deadline ? { deadlineSeconds: this.deadline } : {}),
      ...(this.maxCost !== undefined ? { maxCost: this.maxCost } : {}),
      ...(quoted ? { quoteId: quoted.id } : {}),
      ...(this.metadata ? { metadata: this.metadata } : {}),
    };
    const before = { balance: balanceOf(w, this.user), active: activeOf(w, limitsOf(w, this.user)) };
    const held = this.key ? m.keys.get(`${this.user}:${this.key}`) : undefined;
    const live = held && heldAt(epochSeconds(expiryOf(new Date(held.at), IDEMPOTENCY_TTL_MS)), new Date(w.clock)) ? held : undefined;
    const chargesBefore = chargesOf(w, this.user);
    const r = await w.create(this.user, full, this.key);
    // Assets never cross keys: naming another key's (or an unusable, or a deleted) asset is refused, charging nothing.
    if (asset && !live && (asset.owner !== this.user || !asset.usable || asset.deleted)) {
      assert.ok(!r.ok && r.code === 'invalid_params', `an order of ${this.user} naming ${asset.owner}'s asset ${asset.id} is refused`);
      assert.equal(balanceOf(w, this.user), before.balance, 'and charges nothing');
      count(asset.owner !== this.user ? "creations naming another key's asset (refused)" : 'creations naming an unusable asset (refused)');
      return;
    }
    // A refused creation charges nothing: no charge entry, no spend counted (a render cut off meanwhile may refund).
    if (!r.ok || r.value.kind === 'replayed') {
      // Nor does it store anything (the invariants check every copy has its order): counted to show the case is reached.
      if (asset) count(`creations naming their own asset ${r.ok ? 'replayed' : 'refused'} (nothing copied)`);
      // One process, nothing concurrent: a creation is never left contending with itself (a guard its own price fails).
      assert.ok(r.ok || r.code !== 'service_unavailable', `${this.user}: a creation contended: ${r.ok || r.error.message}`);
      assert.equal(chargesOf(w, this.user), chargesBefore, `${this.user}: a ${r.ok ? 'replay' : r.code} charged nothing`);
      if (!r.ok && r.code === 'spend_limit_exceeded') {
        assert.ok(m.spendLimits.has(this.user), 'refused for a spend limit the key has');
        count('creations refused: spend_limit_exceeded');
      }
    }
    if (live) {
      // A key within its 24 hours: the same request is the same order, another is 422.
      if (live.request === JSON.stringify(full))
        assert.ok(r.ok && r.value.kind === 'replayed' && r.value.response.id === live.orderId, `a repeat of ${this.key} answers ${live.orderId}`);
      else assert.ok(!r.ok && r.code === 'invalid_params', `a reuse of ${this.key} for another request is 422`);
      return;
    }
    if (!r.ok) {
      if (limitsOf(w, this.user) !== this.user && ['active_tasks_exceeded', 'rate_limited', 'review_limit_exceeded'].includes(r.code))
        count(`test-mode creations refused at the limits shared with the live key: ${r.code}`);
      if (before.active >= DEFAULT_LIMITS.activeTasks)
        assert.ok(['active_tasks_exceeded', 'rate_limited', 'quote_invalid', 'invalid_params'].includes(r.code), r.code);
      return;
    }
    assert.equal(r.value.kind, 'created');
    const { id, cost } = r.value.response;
    assert.ok(before.active < DEFAULT_LIMITS.activeTasks, `created while ${before.active} orders were active`);
    assert.ok(cost <= before.balance, `charged ${cost} of a balance of ${before.balance}`);
    if (this.maxCost !== undefined) assert.ok(cost <= this.maxCost, 'max_cost holds');
    m.charged.set(id, cost);
    m.metadata.set(id, this.metadata);
    const limit = m.spendLimits.get(this.user);
    const month = monthOf(w.now());
    if (limit !== undefined && cost > 0) {
      assert.ok(
        spentBy(w, this.user, month) <= limit,
        `${this.user}: charged ${cost}, past the monthly limit ${limit} (${spentBy(w, this.user, month)} spent)`,
      );
    }
    charged(m, w, this.user, id, cost);
    if (asset) count('orders with their own asset as logo');
    if (quoted) m.quotedCost.set(id, quoted.cost);
    if (this.key) m.keys.set(`${this.user}:${this.key}`, { orderId: id, request: JSON.stringify(full), at: w.clock });
    m.ordersOf.set(this.user, [...(m.ordersOf.get(this.user) ?? []), id]);
  }
  toString = () =>
    `create(${this.user}, ${this.route}, topic ${this.topic}${this.extras.song ? ', song' : ''}${this.extras.placement ? ', placement' : ''}${
      this.deadline ? `, deadline ${this.deadline}` : ''
    }${this.maxCost !== undefined ? `, max_cost ${this.maxCost}` : ''}${this.quote !== undefined ? `, quote #${this.quote}` : ''}${this.key ? `, key ${this.key}` : ''}${
      this.metadata ? `, metadata ${JSON.stringify(this.metadata)}` : ''
    }${this.logo !== undefined ? `, logo #${this.logo}` : ''})`;
}

/** The header of a 20,000 x 20,000 PNG (a decompression bomb): what the check reads of it. */
const PNG_BOMB = Buffer.from(PNG_1x1);
PNG_BOMB.writeUInt32BE(20_000, 16);
PNG_BOMB.writeUInt32BE(20_000, 20);

/**
 * A client's assets: one uploaded (a picture, or a bomb), one deleted, or a second PUT to the upload URL of one (a
 * bomb of the same length), deleted or not: an upload only creates, so it is refused and changes nothing.
 */
export class AssetOp implements Cmd {
  constructor(
    readonly user: User,
    readonly op: 'upload' | 'bomb' | 'delete' | 'putAgain',
    readonly n: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    if (this.op === 'putAgain') {
      const target = pick(
        m.assets.filter((a) => a.owner === this.user),
        this.n,
      );
      if (!target) return;
      assert.equal(w.assets.files.upload(target, PNG_BOMB), false, `a second PUT of ${target.id} (deleted: ${target.deleted}) is refused`);
      count(`uploads again refused (${target.deleted ? 'after the delete' : 'over the bytes'})`);
      return;
    }
    if (this.op === 'delete') {
      const mine = m.assets.filter((a) => a.owner === this.user && !a.deleted);
      const target = pick(mine, this.n);
      if (!target) return;
      await deleteAsset(w.assets, this.user, target.id, w.now());
      target.deleted = true;
      return;
    }
    const bytes = this.op === 'bomb' ? PNG_BOMB : PNG_1x1;
    const created = await createAsset(w.assets, w.table.account(this.user), { kind: 'image', content_type: 'image/png', size_bytes: bytes.length }, w.now());
    assert.ok(w.assets.files.upload(created, bytes), 'the first upload is stored');
    m.assets.push({ id: created.id, owner: this.user, usable: this.op === 'upload', deleted: false });
  }
  toString = () => `asset(${this.user}, ${this.op}${this.op === 'delete' ? ` #${this.n}` : ''})`;
}

/** A client's burst: the same order made n times in a row (no key), as a loop that ignores its 429s. */
export class Burst implements Cmd {
  constructor(
    readonly user: User,
    readonly route: 'quick' | 'explicit' | 'director',
    readonly n: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    for (let i = 0; i < this.n; i++)
      await new Create(this.user, this.route, i, { song: false, placement: false }, undefined, undefined, undefined, undefined).run(m, w);
  }
  toString = () => `burst(${this.user}, ${this.route} x${this.n})`;
}

export class Quote implements Cmd {
  constructor(
    readonly user: User,
    readonly route: 'quick' | 'explicit' | 'director',
    readonly topic: number,
    readonly extras: { song: boolean; placement: boolean },
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const r = await w.quote(this.user, requestOf(this.route, this.topic, this.extras));
    if (r.ok) m.quotes.push({ id: r.value.quote_id, cost: r.value.cost });
  }
  toString = () => `quote(${this.user}, ${this.route}, topic ${this.topic}${this.extras.song ? ', song' : ''}${this.extras.placement ? ', placement' : ''})`;
}

export class Review implements Cmd {
  constructor(
    readonly user: User,
    readonly order: number,
    readonly action: 'approve' | 'edit' | 'regen',
    /** An edit's `Image:` line: the model's asset of this index (any key's, usable or not, deleted or not). */
    readonly image: number | undefined = undefined,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const id = pick(m.ordersOf.get(this.user) ?? [], this.order);
    if (!id) return;
    const asset = this.action === 'edit' && this.image !== undefined ? pick(m.assets, this.image) : undefined;
    const text = `Scene one of the edit${asset ? `\nImage: ${asset.id}` : ''}\n\nScene two of the edit`;
    const decision =
      this.action === 'edit'
        ? { action: 'edit' as const, text }
        : this.action === 'regen'
          ? { action: 'regen' as const, note: 'shorter' }
          : { action: 'approve' as const };
    const before = structuredClone(w.table.orders.get(id)!);
    const atLimit = activeOf(w, limitsOf(w, this.user)) >= DEFAULT_LIMITS.activeTasks;
    const r = await w.review(this.user, id, decision);
    if (before.status !== 'awaiting_review') return;
    const unusable = asset && (asset.owner !== this.user || !asset.usable || asset.deleted) && !before.assets?.[asset.id];
    if (this.action === 'regen' && (before.regens ?? 0) >= MAX_REGENS) assert.ok(!r.ok && r.code === 'regen_limit_reached', 'a regen past the cap is 409');
    else if (unusable) assert.ok(!r.ok && r.code === 'invalid_params', `an edit naming ${asset.owner}'s asset ${asset.id} is 422`);
    else if (atLimit)
      assert.ok(!r.ok && r.code === 'active_tasks_exceeded' && r.error.retryAfterSeconds, 'a review at the active limit is 429 with Retry-After');
    else assert.ok(r.ok, `a review of an order awaiting it: ${r.ok || r.code}`);
    if (!r.ok) assert.equal(w.table.orders.get(id)!.status, 'awaiting_review', 'a refused review leaves the order awaiting it');
    if (asset && !unusable) count(r.ok ? 'edits naming their own asset' : 'edits naming their own asset refused (nothing copied)');
  }
  toString = () => `review(${this.user}, order #${this.order}, ${this.action}${this.image !== undefined ? `, image #${this.image}` : ''})`;
}

export class Cancel implements Cmd {
  constructor(
    readonly user: User,
    readonly order: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const id = pick(m.ordersOf.get(this.user) ?? [], this.order);
    if (!id) return;
    const { status: was, renderStartedAt, error } = w.table.orders.get(id)!;
    const r = await w.cancel(this.user, id);
    // One request at a time, nothing moves the order meanwhile: the answer is the rule's, whatever step the order is
    // at. Until its render starts (queued, writing its script, awaiting review, waiting for a slot after it) a cancel
    // succeeds; then, and once done or failed, it is 409; a canceled order answers the same again.
    const expected =
      cancelable(renderStartedAt === undefined ? { status: was } : { status: was, renderStartedAt }) || (was === 'error' && error?.code === CANCELED.code);
    assert.equal(r.ok, expected, `a cancel of a ${was} order${renderStartedAt ? ' whose render started' : ''}: ${r.ok || r.code}`);
    if (!r.ok) assert.equal(r.code, 'not_cancelable');
    if (was === 'running') count(r.ok ? 'cancels of a running order before its render' : 'cancels refused: a running order whose render started');
  }
  toString = () => `cancel(${this.user}, order #${this.order})`;
}

export class TopUp implements Cmd {
  constructor(
    readonly user: User,
    readonly amount: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    // As the operator's top-up writes it: the balance and its ledger entry.
    w.table.topUp(this.user, this.amount);
    toppedUp(m, this.user, this.amount, balanceOf(w, this.user));
  }
  toString = () => `topUp(${this.user}, ${this.amount})`;
}

/** The operator's `set-limit`: the key's monthly spend limit set, or removed. */
export class SpendLimit implements Cmd {
  constructor(
    readonly user: User,
    readonly monthly: number | undefined,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const a = w.table.accounts.get(this.user)!;
    if (this.monthly === undefined) {
      delete a.spendLimit;
      m.spendLimits.delete(this.user);
    } else {
      a.spendLimit = this.monthly;
      m.spendLimits.set(this.user, this.monthly);
    }
  }
  toString = () => `spendLimit(${this.user}, ${this.monthly ?? 'none'})`;
}

/** POST /balance/alerts: the threshold set (and armed), or removed. */
export class Alert implements Cmd {
  constructor(
    readonly user: User,
    readonly below: number | null,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const r = await w.setAlert(this.user, this.below);
    assert.ok(r.ok, 'the alert is set');
    alertSet(m, this.user, this.below ?? undefined, r.value);
  }
  toString = () => `alert(${this.user}, ${this.below ?? 'none'})`;
}

/**
 * The model's rule for a charge: one that leaves the balance below an armed threshold crosses it (the balance it was
 * priced on is the one its ledger entry follows; a test-mode order has no entry, moves no money and crosses nothing).
 */
function charged(m: Model, w: World, user: User, orderId: string, cost: number) {
  const alert = m.alerts.get(user);
  const after = w.table.ledger.find((l) => l.orderId === orderId && l.kind === 'charge')?.balanceAfter;
  if (alert?.armed && cost > 0 && after !== undefined && after < alert.below) {
    alert.armed = false;
    m.crossings.set(user, (m.crossings.get(user) ?? 0) + 1);
    count('balance.low crossings');
  }
}

/** A top-up that lifts the balance to a sent alert's threshold re-arms it. */
function toppedUp(m: Model, user: string, amount: number, balanceAfter: number) {
  m.topUps.set(user, (m.topUps.get(user) ?? 0) + amount);
  const alert = m.alerts.get(user);
  if (alert && !alert.armed && balanceAfter >= alert.below) {
    alert.armed = true;
    count('low-balance alerts re-armed by a top-up');
  }
}

/** POST /balance/alerts: a new threshold is armed; the same one set again keeps its state (a sent alert waits for a top-up to it). */
function alertSet(m: Model, user: string, below: number | undefined, answer: BalanceResponse) {
  const was = m.alerts.get(user);
  if (below === undefined) m.alerts.delete(user);
  else m.alerts.set(user, { below, armed: was?.below === below ? was.armed : true });
  const now = m.alerts.get(user);
  assert.deepEqual(answer.low_balance_alert, now && { below: now.below, sent: !now.armed });
}

/** The request a creation races in a pair. */
export type Other =
  | { kind: 'alert'; below: number | null }
  | { kind: 'cancel'; order: number }
  | { kind: 'topUp'; amount: number }
  | { kind: 'create'; route: 'quick' | 'explicit' | 'director'; topic: number };

/**
 * Two requests on one account at once (Promise.all): a creation and an alert set, a cancel, a top-up or a second
 * creation. Their reads and writes of the account are released one at a time by fast-check's scheduler, in an order it
 * draws and shrinks, so either may fall between the other's read and its write: the stale reads that one request at a
 * time never meets. The model takes the writes in the order they took effect (World.effects).
 */
export class Pair implements Cmd {
  constructor(
    readonly user: User,
    /** The creation's request (requestOf). */
    readonly asked: { route: 'quick' | 'explicit' | 'director'; topic: number; extras: { song: boolean; placement: boolean } },
    readonly other: Other,
    readonly s: fc.Scheduler,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const { user, other } = this;
    const chargesBefore = chargesOf(w, user);
    const target = other.kind === 'cancel' ? pick(m.ordersOf.get(user) ?? [], other.order) : undefined;
    const before = target ? { ...w.table.orders.get(target)! } : undefined;
    const second = async () => {
      if (other.kind === 'alert') return w.setAlert(user, other.below);
      if (other.kind === 'topUp') return w.topUp(user, other.amount);
      if (other.kind === 'cancel') return target && w.cancel(user, target);
      return w.create(user, requestOf(other.route, other.topic, { song: false, placement: false }));
    };
    w.scheduler = this.s;
    w.effects = [];
    let answers: [Awaited<ReturnType<World['create']>>, Awaited<ReturnType<typeof second>>];
    try {
      const { route, topic, extras } = this.asked;
      answers = await this.s.waitFor(Promise.all([w.create(user, requestOf(route, topic, extras)), second()]));
    } finally {
      w.scheduler = undefined;
    }
    const [first, theirs] = answers;
    const creations = other.kind === 'create' ? [first, theirs as typeof first] : [first];
    for (const r of creations) {
      // Contention is resolved by pricing again, never left to the client.
      assert.ok(r.ok || r.code !== 'service_unavailable', `${user}: a creation contended: ${r.ok || r.error.message}`);
      if (r.ok) assert.equal(r.value.kind, 'created');
    }
    const answered = new Map(creations.flatMap((r) => (r.ok ? [[r.value.response.id, r.value.response.cost] as const] : [])));
    // The model, in the order the writes took effect.
    for (const e of w.effects) {
      if (e.kind === 'charge') {
        const cost = answered.get(e.orderId);
        assert.ok(cost !== undefined, `${e.orderId} was charged and its creation answered it`);
        m.charged.set(e.orderId, cost);
        m.metadata.set(e.orderId, undefined);
        m.ordersOf.set(user, [...(m.ordersOf.get(user) ?? []), e.orderId]);
        charged(m, w, user, e.orderId, cost);
      }
      if (e.kind === 'alert') {
        const r = theirs as Awaited<ReturnType<World['setAlert']>>;
        assert.ok(r.ok, 'the alert is set');
        alertSet(m, e.userId, e.below, r.value);
      }
      if (e.kind === 'topUp') toppedUp(m, e.userId, e.amount, e.balanceAfter);
    }
    assert.equal(chargesOf(w, user), chargesBefore + answered.size, `${user}: one charge entry per order created, none for a refusal`);
    if (other.kind === 'cancel' && target) {
      const r = theirs as Awaited<ReturnType<World['cancel']>>;
      // The creation beside it may admit the order meanwhile, never start its render: cancelable as read, it stays so.
      const expected = cancelable(before!) || (before!.status === 'error' && before!.error?.code === CANCELED.code);
      assert.equal(r.ok, expected, `a cancel of a ${before!.status} order beside a creation: ${r.ok || r.code}`);
      if (!r.ok) assert.equal(r.code, 'not_cancelable');
    }
    // A paid charge never passes the limit (one set below what the month has spent already refuses the next).
    const limit = m.spendLimits.get(user);
    const month = monthOf(w.now());
    if (limit !== undefined && [...answered.values()].some((cost) => cost > 0))
      assert.ok(spentBy(w, user, month) <= limit, `${user}: ${spentBy(w, user, month)} spent this month, past the limit ${limit}`);
    count(`pairs: create and ${other.kind}`);
    // The stale reads reached: a commit refused because the other request wrote between this one's read and its commit.
    if (w.effects.some((e) => e.kind === 'stale')) count(`pairs: create and ${other.kind}, a commit on a stale read (priced again)`);
  }
  toString = () => {
    const o = this.other;
    const second =
      o.kind === 'alert'
        ? `alert ${o.below ?? 'none'}`
        : o.kind === 'cancel'
          ? `cancel order #${o.order}`
          : o.kind === 'topUp'
            ? `topUp ${o.amount}`
            : `create ${o.route}, topic ${o.topic}`;
    const { route, topic, extras } = this.asked;
    return `pair(${this.user}: create ${route}, topic ${topic}${extras.song ? ', song' : ''}${extras.placement ? ', placement' : ''} | ${second}; ${this.s})`;
  };
}

export class Plan implements Cmd {
  constructor(
    readonly user: User,
    readonly heavy: number | undefined,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const a = w.table.accounts.get(this.user)!;
    if (this.heavy === undefined) delete a.plan;
    else a.plan = { name: `plan-${this.heavy}`, heavyPerMonth: this.heavy };
  }
  toString = () => `plan(${this.user}, ${this.heavy ?? 'none'})`;
}

/** Something that happens to the world as a whole: time passing, a sweep, a restart, the receiver going away. */
export class Act implements Cmd {
  constructor(
    readonly label: string,
    readonly act: (w: World) => unknown,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    await this.act(w);
  }
  toString = () => this.label;
}
export const advance = (seconds: number) => new Act(`advance(${seconds} s)`, (w) => w.advance(seconds));
export const sweepNow = () => new Act('sweep()', (w) => w.runSweep());
export const restart = () => new Act('restart()', (w) => w.restart());
export const stopExecution = (n: number) => new Act(`stopExecution(#${n})`, (w) => w.stopFromOutside(n));
export const deliverEnded = () =>
  new Act('deliverEnded()', async (w) => {
    const outcome = await w.deliverEnded();
    if (outcome) count(`recovery of an ended execution: ${outcome}`);
  });
/**
 * The next new order's wait in a lane takes its ticket and then its write fails (its transaction throws): a ghost
 * ticket, the order left to the audit. Only a creation's: a workflow step's failure would be retried by its Task
 * (ServiceUnavailable), which the model's engine does not do.
 */
export const waitFails = (lane: 'live' | 'test') =>
  new Act(`waitFailsAfterTicket(${lane})`, (w) => {
    (lane === 'live' ? w.capacity : w.testCapacity).failNextEnqueue = true;
  });
export const receiver = (up: boolean) =>
  new Act(`receiver(${up ? 'up' : 'down'})`, (w) => {
    w.receiverUp = up;
  });

export class Step implements Cmd {
  constructor(
    readonly n: number,
    readonly fail: boolean,
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const name = pick(w.engine.runnable(), this.n);
    if (name) await w.step(name, this.fail);
  }
  toString = () => `step(#${this.n}${this.fail ? ', generator fails' : ''})`;
}

export class FinishRender implements Cmd {
  constructor(
    readonly n: number,
    readonly outcome: 'ok' | 'fail',
  ) {}
  check = () => true;
  async run(_m: Model, w: World) {
    const h = pick(w.held, this.n);
    if (h) await w.finishRender(h, this.outcome);
  }
  toString = () => `finishRender(#${this.n}, ${this.outcome})`;
}

/** The most outbound requests one API call may cause (a resend's events, a ping): the stated bound. */
const MAX_OUTBOUND_PER_CALL = 100;

export class WebhookOp implements Cmd {
  constructor(
    readonly user: User,
    readonly op: 'register' | 'rotate' | 'delete' | 'ping' | 'resendSince' | 'resendOne',
    readonly n: number,
  ) {}
  check = () => true;
  async run(m: Model, w: World) {
    const before = [...w.sent.values()].reduce((a, b) => a + b, 0);
    if (this.op === 'register') await w.registerWebhook(this.user);
    if (this.op === 'rotate') await w.rotateWebhook(this.user);
    if (this.op === 'delete') await w.deleteWebhook(this.user);
    if (this.op === 'ping') await w.pingWebhook(this.user);
    let resent: string[] = [];
    if (this.op === 'resendSince') {
      const r = await w.resendSince(this.user, new Date(w.clock - 3600_000));
      if (r.ok) resent = r.value.resent;
    }
    if (this.op === 'resendOne') {
      const mine = w.storedEvents().filter((e) => e.userId === this.user);
      const event = pick(mine, this.n);
      if (event) {
        const r = await w.resendOne(this.user, event.id);
        if (r.ok) resent = r.value;
      }
    }
    for (const id of resent) m.resends.set(id, (m.resends.get(id) ?? 0) + 1);
    const now = [...w.sent.values()].reduce((a, b) => a + b, 0);
    assert.ok(resent.length + (now - before) <= MAX_OUTBOUND_PER_CALL, `one call caused ${resent.length} deliveries and ${now - before} requests`);
  }
  toString = () => `webhook(${this.user}, ${this.op}${this.op === 'resendOne' ? ` #${this.n}` : ''})`;
}

/** What must hold after every command; `atRest`: at rest, after the sweep's recounts. */
export function invariants(m: Model, w: World, atRest = false) {
  const orders = [...w.table.orders.values()];
  // Nothing stored before it is paid for: every copy is of an asset its order records (a refused or replayed creation,
  // or a refused review, copied nothing).
  for (const key of w.assets.files.copies.keys()) {
    const [orderId, assetId] = key.split('/') as [string, string];
    assert.ok(w.table.orders.get(orderId)?.assets?.[assetId], `${key}: a copy no order records (stored by a refused or replayed request)`);
  }
  const linesOf = new Map<string, typeof w.table.ledger>();
  for (const l of w.table.ledger) linesOf.set(l.orderId, [...(linesOf.get(l.orderId) ?? []), l]);
  for (const u of USERS) {
    const sum = w.table.ledger.reduce((a, l) => (l.userId === u ? a + l.amount : a), 0);
    // Each entry keeps the balance after it: the running sum in the ledger's order.
    let running = 0;
    for (const l of w.table.ledger.filter((x) => x.userId === u).sort((x, y) => x.seq - y.seq)) {
      running += l.amount;
      assert.equal(l.balanceAfter, running, `${u}: entry ${l.seq} keeps the balance after it`);
    }
    const account = w.table.accounts.get(u)!;
    assert.equal(account.balance, sum, `${u}: the balance is the ledger's sum`);
    if (account.testOf) {
      // Test mode never touches money: no entry, no balance, no trial video, whatever its orders did.
      assert.equal(w.table.ledger.filter((l) => l.userId === u).length, 0, `${u}: a test-mode account has no ledger entry`);
      assert.deepEqual([account.balance, account.trialVideosLeft, account.heavyUsed], [0, 0, 0], `${u}: a test-mode account holds no money`);
    }
    assert.ok(account.balance >= 0, `${u}: the balance never goes below zero`);
    // One set of limits per user: A's counters count T's orders too (and T's own count none), under one limit.
    assert.equal(account.activeTasks, activeOf(w, u), `${u}: the active-task counter counts the queued and running orders counted in its limits`);
    assert.ok(
      activeOf(w, u) <= DEFAULT_LIMITS.activeTasks,
      `${u}: ${activeOf(w, u)} orders queued or running, over the limit of ${DEFAULT_LIMITS.activeTasks}`,
    );
    const pending = orders.filter((o) => limitsOf(w, o.userId) === u && awaitsApproval(o)).length;
    assert.equal(account.reviewsPending ?? 0, pending, `${u}: the counter of orders awaiting approval counts them`);
    assert.ok(pending <= DEFAULT_LIMITS.reviewsPending, `${u}: ${pending} director-mode orders awaiting approval, over ${DEFAULT_LIMITS.reviewsPending}`);
  }
  for (const o of orders) {
    const charges = (linesOf.get(o.id) ?? []).filter((l) => l.kind === 'charge');
    const refunds = (linesOf.get(o.id) ?? []).filter((l) => l.kind === 'refund');
    const test = w.table.accounts.get(o.userId)!.testOf !== undefined;
    assert.equal(movesMoney(o.charge), !test, `${o.id}: a test-mode charge exactly for a test-mode key's order`);
    if (test) {
      assert.deepEqual(
        [o.charge.cost, o.charge.trial, o.charge.heavyAllowanceMonth, charges.length, refunds.length, o.refunded],
        [0, false, undefined, 0, 0, undefined],
      );
      assert.ok(!w.table.ledger.some((l) => l.orderId === o.id), `${o.id}: a test-mode order has no ledger entry in any account`);
    } else {
      assert.equal(charges.length, 1, `${o.id}: charged once`);
      assert.equal(-charges[0]!.amount, o.charge.cost, `${o.id}: charged its cost`);
    }
    assert.equal(m.charged.get(o.id), o.charge.cost, `${o.id}: charged what its creation answered`);
    if (m.quotedCost.has(o.id)) assert.equal(o.charge.cost, m.quotedCost.get(o.id), `${o.id}: charged its quote`);
    assert.deepEqual(o.clientMetadata, m.metadata.get(o.id), `${o.id}: keeps the metadata its creation sent, and only that`);
    // Assets never cross keys: an order holds copies of its own key's usable assets only, each copied into it (an
    // order that could not have its copy is closed in error, refunded), of the bytes checked.
    for (const id of Object.keys(o.assets ?? {})) {
      const asset = m.assets.find((a) => a.id === id);
      assert.ok(asset && asset.owner === o.userId && asset.usable, `${o.id} of ${o.userId} holds the asset ${id} of ${asset?.owner}`);
      const copy = w.assets.files.copies.get(`${o.id}/${id}`);
      assert.ok(copy || (o.status === 'error' && o.error?.code === ASSET_GONE.code), `${o.id}: its copy of ${id}`);
      assert.ok(!copy || copy.length > 0, `${o.id}: its copy of ${id} holds the bytes checked, not a deleted asset's marker`);
    }
    assert.ok(refunds.length <= 1, `${o.id}: refunded at most once`);
    assert.ok((o.regens ?? 0) <= MAX_REGENS, `${o.id}: rewritten ${o.regens} times, over ${MAX_REGENS}`);
    assert.equal(refunds.length === 1, Boolean(o.refunded), `${o.id}: a refund entry exactly when refunded`);
    if (o.refunded) {
      assert.equal(o.status, 'error', `${o.id}: refunded only in error`);
      assert.equal(refunds[0]!.amount, o.charge.cost, `${o.id}: refunded what it took`);
      assert.ok(!w.files.has(`${o.id}/video`), `${o.id}: a refunded order has no video`);
    }
    if (o.status === 'done') assert.ok(!o.refunded && w.files.has(`${o.id}/video`), `${o.id}: done with its video, not refunded`);
    // A cancel (the client's or a deadline's) wins only before the render: a canceled order never began one, and no
    // order in error has a video (a test-mode one either, which has no `refunded` to check above).
    if (o.error?.code === CANCELED.code || o.error?.code === DEADLINE_EXCEEDED.code)
      assert.equal(o.renderStartedAt, undefined, `${o.id}: ${o.error.code} after its render started`);
    if (o.status === 'error') assert.ok(!w.files.has(`${o.id}/video`), `${o.id}: in error with a video`);
    // What clients read: every order in error shows what it gave back, why and when; a test-mode one 0 (it moved no
    // money, so it has no ledger entry above), so that refund handling can be tried with a test key.
    assert.deepEqual(
      toRecord(o).refund,
      o.status === 'error' ? { amount: test ? 0 : o.charge.cost, reason: o.error?.code, at: o.finishedAt } : undefined,
      `${o.id}: the refund its record shows`,
    );
    if (o.status !== 'done' && o.status !== 'error') assert.ok(w.table.open.has(o.id), `${o.id}: open with the marker the sweep acts on`);
    // Its close deleted its deadline marker: the audit's due markers are open orders' only (issue 28).
    else assert.ok(!w.table.deadlines.has(o.id), `${o.id}: ${o.status} and still a deadline marker`);
  }
  // The key windows a test-mode key's requests count in are its live key's: none is ever its own.
  for (const u of USERS)
    if (limitsOf(w, u) !== u) assert.ok(![...w.table.posts.keys()].some((k) => k.startsWith(`${u}:`)), `${u} counts in a window of its own`);
  // Render capacity, lane by lane: each render that runs holds a slot of its own lane's (a test-mode order the test
  // lane's, any other the live lane's), never handed to another order meanwhile; no order waits in the other's lane.
  const lanes = [
    { name: 'live', store: w.capacity, slots: SLOTS, shards: w.shards, test: false },
    { name: 'test', store: w.testCapacity, slots: TEST_SLOTS, shards: 1, test: true },
  ] as const;
  for (const lane of lanes) {
    const inLane = (orderId: string) => {
      const o = w.table.orders.get(orderId);
      return o !== undefined && !movesMoney(o.charge) === lane.test;
    };
    const rendering = w.held.map((h) => h.orderId).filter(inLane);
    assert.ok(rendering.length <= lane.slots, `${rendering.length} renders at once on the ${lane.name} lane's ${lane.slots} slots`);
    const slots = [...lane.store.held.values()];
    for (const id of rendering) {
      const slot = slots.find((s) => s.holder === id && (s.leaseUntil ?? 0) >= w.clock);
      assert.ok(slot, `${id} renders without holding a ${lane.name} slot (the slots: ${JSON.stringify(slots.map((s) => s.holder))})`);
    }
    // The render queue's counters (what eta_seconds reads) agree with its items, in every shard: never fewer, and as
    // many unless a wait's write failed after its ticket (a ghost), and at rest, after the sweep's recounts.
    const exact = atRest || lane.store.ghostsMade === 0;
    const waiters = [...lane.store.waiting.values()];
    for (const x of waiters) assert.ok(inLane(x.orderId), `${x.orderId} waits in the ${lane.name} lane, not its own`);
    for (let k = 0; k < lane.shards; k++) {
      const state = lane.store.shardStates.get(k) ?? emptyShardState();
      for (const channel of CHANNELS) {
        const waiting = waiters.filter((x) => x.shard === k && x.channel === channel).length;
        const counted = state.issued[channel] - state.served[channel];
        const says = `${lane.name} shard ${k}: its counters say ${counted} ${channel} orders wait, ${waiting} do`;
        if (exact) assert.equal(counted, waiting, says);
        else assert.ok(counted >= waiting, says);
      }
      const held = slots.filter((s) => s.holder && s.n % lane.shards === k);
      assert.equal(state.busy, held.length, `${lane.name} shard ${k}: its counters say ${state.busy} slots are held, ${held.length} are`);
    }
    // Fair shares: in every shard's channel, each key waiting has one head and its other waits parked behind it (as
    // its key's item counts them), so no key's first waiting order has more than (keys waiting - 1) orders ahead of it.
    for (let k = 0; k < lane.shards; k++) {
      for (const channel of CHANNELS) {
        const line = waiters.filter((x) => x.shard === k && x.channel === channel).sort(queueOrder);
        const keys = [...new Set(line.map((x) => x.key))];
        for (const key of keys) {
          const own = line.filter((x) => x.key === key);
          const heads = own.filter((x) => x.head !== undefined);
          const item = lane.store.keyStates.get(`${k}#${channel}#${key}`);
          assert.deepEqual(
            [heads.map((x) => x.orderId), item?.n, item?.head?.orderId],
            [[own[0]!.orderId], own.length, own[0]!.orderId],
            `${lane.name} shard ${k} ${channel}: ${key}'s waits ${own.map((x) => x.orderId).join(', ')}, its item ${JSON.stringify(item)}`,
          );
          const ahead = line.indexOf(own[0]!);
          assert.ok(ahead < keys.length, `${key}'s first waiting order is behind ${ahead} orders, with ${keys.length} keys waiting`);
          if (keys.length > 1) count('a key waiting beside another');
          if (keys.length > 1 && own.length > 1) count("a key's waits parked behind its head, beside another key");
        }
      }
    }
    // Over time too: while a key's head waits, another key has at most one order admitted (its next joins the rotation
    // behind that head).
    for (const [head, byKey] of lane.store.passedBy)
      for (const [key, passed] of byKey)
        assert.ok(passed.size <= 1, `${key}'s orders ${[...passed].join(', ')} all admitted while ${head} waited as its key's head`);
    // No slot idles while an order of its lane waits, whichever shard either is in.
    const free = lane.slots - slots.filter((s) => s.holder).length;
    assert.ok(
      !(free > 0 && waiters.length),
      `${free} ${lane.name} slot(s) free while ${waiters.map((x) => `${x.orderId} (shard ${x.shard})`).join(', ')} wait`,
    );
    for (const s of slots) {
      if (!s.holder || (s.leaseUntil ?? 0) < w.clock) continue;
      const holder = w.table.orders.get(s.holder);
      assert.ok(holder && isActiveTask(holder.status), `${lane.name} slot ${s.n} is held by ${s.holder}, ${holder?.status}`);
      assert.ok(inLane(s.holder), `${lane.name} slot ${s.n} is held by ${s.holder}, of the other lane`);
    }
  }
  const month = monthOf(w.now());
  for (const u of USERS) {
    const account = w.table.accounts.get(u)!;
    // The key's spend counter is what its API orders were charged this month, less the refunds given back within it.
    assert.equal(spentIn(account, month), spentBy(w, u, month), `${u}: spend counted this month`);
    if (account.spendMonth) assert.equal(account.spentInMonth, spentBy(w, u, account.spendMonth), `${u}: spend counted in ${account.spendMonth}`);
    const lows = w.storedEvents().filter((e) => e.type === 'balance.low' && e.userId === u);
    assert.equal(lows.length, m.crossings.get(u) ?? 0, `${u}: balance.low recorded exactly once per crossing`);
    for (const e of lows) {
      const body = e.record as BalanceLowEvent;
      assert.ok(body.balance < body.threshold && body.balance >= 0, `${e.id}: a balance ${body.balance} below ${body.threshold}`);
    }
    const alert = m.alerts.get(u);
    assert.equal(account.lowAlertSent === true, alert !== undefined && !alert.armed, `${u}: the alert is sent exactly when the model has it so`);
  }
  for (const e of w.storedEvents()) {
    const settled = e.delivery === 'delivered' || e.delivery === 'dropped' || e.delivery === 'no_webhook';
    assert.ok(settled || w.table.pending.has(e.id), `event ${e.id}: settled or pending with its marker`);
    const allowed = MAX_ATTEMPTS + (m.resends.get(e.id) ?? 0);
    assert.ok((w.sent.get(e.id) ?? 0) <= allowed, `event ${e.id}: ${w.sent.get(e.id)} requests, more than ${allowed} (5 + one per resend)`);
  }
}

/** Everything driven to rest: renders finished, reviews lapsed, deliveries done, the sweep run as its timer would. */
export async function drain(m: Model, w: World) {
  w.receiverUp = true;
  const atRest = () =>
    [...w.table.orders.values()].every((o) => o.status === 'done' || o.status === 'error') &&
    w.storedEvents().every((e) => e.delivery !== undefined && e.delivery !== 'pending');
  for (let round = 0; round < 200 && !atRest(); round++) {
    for (const h of [...w.held]) await w.finishRender(h, 'ok');
    await w.settle();
    // The status-change events of executions that ended failed or stopped reach the recovery.
    while (await w.deliverEnded()) await w.settle();
    // Nothing can move: time passes (a review lapses, a backoff ends, a lease runs out) and the sweep runs.
    if (!w.held.length) {
      await w.advance(REST_STEP_SECONDS);
      await w.runSweep();
      invariants(m, w);
    }
  }
  invariants(m, w);
  for (const o of w.table.orders.values()) assert.ok(o.status === 'done' || o.status === 'error', `${o.id} ended at rest (it is ${o.status})`);
  for (const e of w.storedEvents()) assert.notEqual(e.delivery ?? 'pending', 'pending', `event ${e.id} settled at rest`);
  // Every order closed, so no deadline marker: each went with its order's close, none left for the audit to read.
  assert.deepEqual([...w.table.deadlines.keys()], [], 'no deadline marker at rest');
  // A run recounts one shard's channel of each lane, a mark's age apart: two turns of every shard and channel (the
  // first may only mark) find every ghost, and the counters then count exactly the waits (none). The
  // time they take also ages a creation's unstarted marker past the audit's grace (its enqueue failed after the commit).
  for (let i = 0; i <= 2 * CHANNELS.length * w.shards; i++) {
    await w.advance(WAIT_WRITE_SECONDS);
    await w.runSweep();
  }
  // The unstarted markers are gone at rest: every start seen or made. A run reads at most its budget of them (the rest
  // wait for the next run, as in production): so as many runs as that budget needs, the clock still, and then none
  // left; a marker never dropped, or a read that does not move on, still fails here.
  const runs = Math.max(1, Math.ceil(w.table.unstarted.size / SWEEP_BUDGET.starts));
  for (let i = 0; i < runs; i++) await w.runSweep();
  assert.deepEqual([...w.table.unstarted], [], 'no unstarted marker at rest');
  invariants(m, w, true);
  for (const store of [w.capacity, w.testCapacity]) if (store.ghostsMade) count('sequences with a ghost ticket healed at rest');
}
const REST_STEP_SECONDS = 300;

const user = fc.constantFrom(...USERS, 'A' as const);
const liveUser = fc.constantFrom(...LIVE_USERS);
/** A value one time in five, else undefined. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });
const extras = fc.record({ song: fc.boolean(), placement: fc.boolean() });
const route = fc.constantFrom('quick' as const, 'explicit' as const, 'director' as const);
const create = fc
  .tuple(
    user,
    route,
    fc.nat(5),
    extras,
    fc.option(fc.constantFrom(60, 300), { nil: undefined }),
    sometimes(fc.constantFrom(0, 100, 250)),
    sometimes(fc.nat(5)),
    sometimes(fc.constantFrom('k1', 'k2')),
    sometimes(fc.constantFrom<Record<string, string>>({ crm: 'a' }, { crm: 'b' }, { crm: 'a', src: 'x' })),
    sometimes(fc.nat(8)),
  )
  .map(([u, r, t, x, d, c, q, k, meta, logo]) => new Create(u, r, t, x, d, c, q, k, meta, logo));
const step = fc.tuple(fc.nat(30), fc.nat(9)).map(([n, f]) => new Step(n, f === 0));
const review = fc
  .tuple(user, fc.nat(20), fc.constantFrom('approve' as const, 'approve' as const, 'edit' as const, 'regen' as const), fc.option(fc.nat(8)))
  .map(([u, n, a, image]) => new Review(u, n, a, image ?? undefined));
const other: fc.Arbitrary<Other> = fc.oneof(
  fc.option(fc.constantFrom(100, 250, 1000, 1800), { nil: null }).map((below) => ({ kind: 'alert' as const, below })),
  fc.nat(20).map((order) => ({ kind: 'cancel' as const, order })),
  fc.constantFrom(100, 500, 1500).map((amount) => ({ kind: 'topUp' as const, amount })),
  fc.tuple(route, fc.nat(5)).map(([r, topic]) => ({ kind: 'create' as const, route: r, topic })),
);
const pair = fc
  .tuple(liveUser, route, fc.nat(5), extras, other, fc.scheduler())
  .map(([u, r, t, x, o, s]) => new Pair(u, { route: r, topic: t, extras: x }, o, s));
/** fc.commands picks among these evenly: the repeated ones are the frequent ones. */
export const commandArbs = [
  pair,
  pair,
  create,
  create,
  create,
  create,
  fc.tuple(user, route, fc.integer({ min: 2, max: 12 })).map(([u, r, n]) => new Burst(u, r, n)),
  fc.tuple(user, route, fc.nat(5), extras).map(([u, r, t, x]) => new Quote(u, r, t, x)),
  review,
  review,
  fc.tuple(user, fc.nat(20)).map(([u, n]) => new Cancel(u, n)),
  fc.tuple(liveUser, fc.constantFrom(100, 500, 1500)).map(([u, a]) => new TopUp(u, a)),
  fc.tuple(user, fc.option(fc.constantFrom(0, 1, 3), { nil: undefined })).map(([u, h]) => new Plan(u, h)),
  fc.tuple(user, fc.option(fc.constantFrom(0, 150, 400, 900), { nil: undefined })).map(([u, l]) => new SpendLimit(u, l)),
  fc.tuple(user, fc.option(fc.constantFrom(100, 250, 1000, 1800), { nil: null })).map(([u, b]) => new Alert(u, b)),
  fc.constantFrom(1, 20, 20, 61, 300, 1000, 90_000).map((s) => advance(s)),
  fc.constant(sweepNow()),
  fc.constantFrom('live' as const, 'live' as const, 'test' as const).map((lane) => waitFails(lane)),
  fc.nat(20).map((n) => stopExecution(n)),
  fc.constant(deliverEnded()),
  fc.constant(deliverEnded()),
  step,
  step,
  step,
  step,
  step,
  step,
  fc.tuple(fc.nat(3), fc.constantFrom('ok' as const, 'ok' as const, 'fail' as const)).map(([n, o]) => new FinishRender(n, o)),
  fc.tuple(fc.nat(3), fc.constantFrom('ok' as const, 'ok' as const, 'fail' as const)).map(([n, o]) => new FinishRender(n, o)),
  fc.constant(restart()),
  fc.boolean().map((up) => receiver(up)),
  fc.boolean().map((up) => receiver(up)),
  fc
    .tuple(user, fc.constantFrom('register' as const, 'rotate' as const, 'delete' as const, 'ping' as const), fc.nat(20))
    .map(([u, op, n]) => new WebhookOp(u, op, n)),
  fc.tuple(user, fc.constantFrom('resendSince' as const, 'resendOne' as const), fc.nat(20)).map(([u, op, n]) => new WebhookOp(u, op, n)),
  fc
    .tuple(user, fc.constantFrom('upload' as const, 'upload' as const, 'bomb' as const, 'delete' as const, 'putAgain' as const), fc.nat(8))
    .map(([u, op, n]) => new AssetOp(u, op, n)),
];

export function newWorld(shards = 1): { model: Model; world: World } {
  const world = new World(shards);
  world.addUser('A', 0);
  world.addUser('B', 0, { trialVideosLeft: 1 });
  world.addUser('C', 0, { plan: { name: 'pro', heavyPerMonth: 2 } });
  world.addUser('T', 0, { testOf: 'A' });
  world.table.topUp('A', 2000);
  world.table.topUp('B', 300);
  world.table.topUp('C', 1000);
  // A and B have a webhook from the start; C may register one.
  for (const userId of ['A', 'B']) {
    world.webhooks.save(
      { id: `wh_${userId}`, userId, url: `https://hooks.example/${userId}`, active: true, createdAt: world.now().toISOString(), secret: `whsec_${userId}` },
      undefined,
    );
  }
  const model: Model = {
    topUps: new Map([
      ['A', 2000],
      ['B', 300],
      ['C', 1000],
      ['T', 0],
    ]),
    charged: new Map(),
    quotedCost: new Map(),
    metadata: new Map(),
    quotes: [],
    keys: new Map(),
    resends: new Map(),
    ordersOf: new Map(),
    log: [],
    spendLimits: new Map(),
    alerts: new Map(),
    crossings: new Map(),
    assets: [],
  };
  return { model, world };
}

/** What the sequences did, summed: to show that they reach the states the invariants are about. */
export const reached = new Map<string, number>();
const count = (what: string, n = 1) => reached.set(what, (reached.get(what) ?? 0) + n);

/** Runs the commands, checking the invariants after each, then drives the world to rest. */
export async function runSequence(cmds: Iterable<Cmd>, shards = 1) {
  const { model, world } = newWorld(shards);
  for (const c of cmds) {
    count('commands');
    if (world.held.length) count('commands with a render in flight');
    await c.run(model, world);
    invariants(model, world);
    for (const u of USERS) assert.equal(balanceOf(world, u) - sumOfOrders(world, u), model.topUps.get(u), `${u}: balance = top-ups - charges + refunds`);
  }
  const before = [...world.table.orders.values()];
  count('orders');
  count('orders', before.length - 1);
  for (const o of before) count(`before rest: ${o.status}${o.error ? ` ${o.error.code}` : ''}${movesMoney(o.charge) ? '' : ' (test mode)'}`);
  count(
    'resends',
    [...model.resends.values()].reduce((a, b) => a + b, 0),
  );
  await drain(model, world);
}

/** The user's charge entries: a refused creation adds none. */
const chargesOf = (w: World, u: string) => w.table.ledger.filter((l) => l.userId === u && l.kind === 'charge').length;

/** What the key's API orders were charged in `month` (by their creation), less the refunds made within that month. */
const spentBy = (w: World, u: string, month: string) =>
  [...w.table.orders.values()]
    .filter((o) => o.userId === u && countsAgainstKey(o) && o.createdAt.startsWith(month))
    .reduce((a, o) => a + o.charge.cost - (o.refunded && o.finishedAt?.startsWith(month) ? o.charge.cost : 0), 0);

const sumOfOrders = (w: World, u: string) =>
  [...w.table.orders.values()].filter((o) => o.userId === u).reduce((a, o) => a - o.charge.cost + (o.refunded ? o.charge.cost : 0), 0);
