/** The order store's contract (core/ports.ts OrderStore): the creation transaction, status changes, listings, markers. */
import assert from 'node:assert/strict';
import { expiryOf, QUOTE_TTL_MS } from '../../functions/core/expiry.ts';
import { newQuoteId } from '../../functions/core/ids.ts';
import { minuteWindow } from '../../functions/core/limits.ts';
import type { Order } from '../../functions/core/orders.ts';
import type { Quote } from '../../functions/core/quote-order.ts';
import { DEFAULT_LIMITS } from '../../functions/core/pricing.ts';
import { after, commitOf, created, eventOf, failure, type KnownDrifts, type MakeStores, MINUTE, orderOf, SECOND, scenario, wholeSecond } from './fixtures.ts';

const idem = (orderId: string, expiresAt: Date) => ({
  keyHash: 'k'.repeat(64),
  record: { route: 'POST /videos', requestHash: 'h'.repeat(64), orderId, response: { id: orderId, status: 'queued' as const, cost: 100, eta_seconds: 20 } },
  expiresAt,
});

export function ordersContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, "a new user's account, its opening balance the ledger's first entry; no account for an unknown user", async (s) => {
    const plan = { name: 'creator', heavyPerMonth: 2 };
    const user = await s.user({ balance: 300, trialVideos: 1, plan });
    assert.deepEqual(await s.accounts.get(user), {
      userId: user,
      balance: 300,
      trialVideosLeft: 1,
      plan,
      heavyUsed: 0,
      activeTasks: 0,
      reviewsPending: 0,
      ledgerSeq: 1,
    });
    const { lines, more } = await s.accounts.ledgerPage(user, { limit: 5 });
    assert.deepEqual([lines.map((l) => [l.kind, l.amount, l.balanceAfter]), more], [[['top_up', 300, 300]], false]);
    const empty = await s.user();
    assert.deepEqual(((a) => [a.balance, a.ledgerSeq])((await s.accounts.get(empty))!), [0, 0]);
    assert.deepEqual(await s.accounts.ledgerPage(empty, { limit: 5 }), { lines: [], more: false });
    assert.equal(await s.accounts.get('01KFA000000000000000000000'), undefined);
  });

  scenario(make, known, 'the ledger reads newest first, a page at a time below the cursor entry', async (s) => {
    const user = await s.user({ balance: 1000 });
    const t0 = new Date();
    for (let i = 1; i <= 4; i++) await created(s, user, after(t0, i * SECOND), { cost: 10 * i });
    const all = (await s.accounts.ledgerPage(user, { limit: 10 })).lines;
    assert.deepEqual(
      all.map((l) => l.balanceAfter),
      [900, 940, 970, 990, 1000],
    );
    const page1 = await s.accounts.ledgerPage(user, { limit: 2 });
    const page2 = await s.accounts.ledgerPage(user, { limit: 2, below: page1.lines.at(-1)!.id });
    const page3 = await s.accounts.ledgerPage(user, { limit: 2, below: page2.lines.at(-1)!.id });
    assert.deepEqual(
      [page1, page2, page3].map((p) => [p.lines.map((l) => l.amount), p.more]),
      [
        [[-40, -30], true],
        [[-20, -10], true],
        [[1000], false],
      ],
    );
    assert.deepEqual(await s.accounts.ledgerPage(user, { limit: 1, below: all.at(-1)!.id }), { lines: [], more: false });
    assert.equal((await s.accounts.ledgerPage(user, { limit: 5 })).more, false, 'a page exactly as long as the ledger');
  });

  scenario(make, known, 'create stores the order, debits the account and writes the charge after the ledger head', async (s) => {
    const user = await s.user({ balance: 500 });
    const order = await created(s, user, new Date(), { cost: 170 });
    assert.deepEqual(await s.orders.get(order.id), order);
    const account = (await s.accounts.get(user))!;
    assert.deepEqual([account.balance, account.activeTasks, account.ledgerSeq], [330, 1, 2]);
    const { lines } = await s.accounts.ledgerPage(user, { limit: 1 });
    assert.deepEqual(
      lines.map((l) => [l.kind, l.amount, l.balanceAfter, l.orderId, l.createdAt]),
      [['charge', -170, 330, order.id, order.createdAt]],
    );
  });

  scenario(make, known, 'a repeat with the idempotency key replays the first record and charges nothing more', async (s) => {
    const user = await s.user({ balance: 500 });
    const now = new Date();
    const first = orderOf(user, now);
    const account = (await s.accounts.get(user))!;
    assert.equal((await s.orders.create(commitOf(first, account, { idempotency: idem(first.id, after(now, 60 * MINUTE)) }))).kind, 'created');
    // The repeat priced on the account as it was before the first commit: the record answers before the account.
    const second = orderOf(user, after(now, SECOND));
    const repeat = await s.orders.create(commitOf(second, account, { idempotency: idem(second.id, after(now, 60 * MINUTE)) }));
    assert.deepEqual(repeat, { kind: 'replay', record: idem(first.id, now).record });
    assert.equal(await s.orders.get(second.id), undefined);
    assert.deepEqual(await s.orders.idempotency(user, 'k'.repeat(64), now), idem(first.id, now).record);
    assert.equal((await s.accounts.get(user))!.balance, 400);
  });

  scenario(make, known, 'an idempotency record counts through the second it expires in, and not after', async (s) => {
    const user = await s.user({ balance: 500 });
    const now = wholeSecond();
    const expires = after(now, 10 * SECOND);
    const first = orderOf(user, now);
    assert.equal((await s.orders.create(commitOf(first, (await s.accounts.get(user))!, { idempotency: idem(first.id, expires) }))).kind, 'created');
    const key = 'k'.repeat(64);
    // Expiry is kept in whole seconds (the table's TTL attribute): half a second past it is still that second.
    assert.ok(await s.orders.idempotency(user, key, expires));
    assert.ok(await s.orders.idempotency(user, key, after(expires, 500)));
    assert.equal(await s.orders.idempotency(user, key, after(expires, SECOND)), undefined);
    // An expired record no longer stops a creation with the same key (TTL deletes it lazily).
    const later = orderOf(user, after(expires, SECOND));
    const again = await s.orders.create(commitOf(later, (await s.accounts.get(user))!, { idempotency: idem(later.id, after(expires, 60 * MINUTE)) }));
    assert.equal(again.kind, 'created');
    assert.equal((await s.orders.idempotency(user, key, after(expires, SECOND)))?.orderId, later.id);
  });

  scenario(make, known, 'a full minute of POSTs is rate_limited, whatever else fails; the next minute counts afresh', async (s) => {
    const user = await s.user({ balance: 1000 });
    const start = new Date(minuteWindow(new Date()).start);
    const limits = { ...DEFAULT_LIMITS, postsPerMinute: 2 };
    for (const i of [1, 2]) {
      const o = orderOf(user, after(start, i * SECOND));
      assert.equal((await s.orders.create(commitOf(o, (await s.accounts.get(user))!, { limits }))).kind, 'created');
    }
    const third = orderOf(user, after(start, 3 * SECOND), { cost: 5000 });
    assert.deepEqual(await s.orders.create(commitOf(third, (await s.accounts.get(user))!, { limits })), { kind: 'rate_limited' });
    const next = orderOf(user, after(start, MINUTE));
    assert.equal((await s.orders.create(commitOf(next, (await s.accounts.get(user))!, { limits }))).kind, 'created');
    // The bot's orders are counted in no key's POSTs.
    const bot = orderOf(user, after(start, 4 * SECOND), { channel: 'bot' });
    const { postWindowStart: _w, ...unCounted } = commitOf(bot, (await s.accounts.get(user))!, { limits });
    assert.equal((await s.orders.create(unCounted)).kind, 'created');
  });

  scenario(make, known, 'a commit on a stale account or past a limit is account_changed with the account as it is', async (s) => {
    const user = await s.user({ balance: 300 });
    const stale = (await s.accounts.get(user))!;
    await created(s, user, new Date());
    const now = (await s.accounts.get(user))!;
    // The ledger moved since the read.
    assert.deepEqual(await s.orders.create(commitOf(orderOf(user, new Date()), stale)), { kind: 'account_changed', account: now });
    // The balance does not cover the price.
    assert.deepEqual(await s.orders.create(commitOf(orderOf(user, new Date(), { cost: 201 }), now)), { kind: 'account_changed', account: now });
    // The key holds its active tasks.
    const limits = { ...DEFAULT_LIMITS, activeTasks: 1 };
    assert.deepEqual(await s.orders.create(commitOf(orderOf(user, new Date()), now, { limits })), { kind: 'account_changed', account: now });
    // Priced without the trial, while one is left; or with one that is not there.
    const trialUser = await s.user({ balance: 300, trialVideos: 1 });
    const t = (await s.accounts.get(trialUser))!;
    assert.equal((await s.orders.create(commitOf(orderOf(trialUser, new Date()), t))).kind, 'account_changed');
    assert.equal((await s.orders.create(commitOf(orderOf(user, new Date(), { trial: true, cost: 0 }), now))).kind, 'account_changed');
    // A director-mode order past the key's reviews pending.
    const reviews = { ...DEFAULT_LIMITS, reviewsPending: 1 };
    await s.orders.create(commitOf(orderOf(user, new Date(), { director: true }), now, { limits: reviews }));
    const held = (await s.accounts.get(user))!;
    assert.equal(held.reviewsPending, 1);
    assert.deepEqual(await s.orders.create(commitOf(orderOf(user, new Date(), { director: true }), held, { limits: reviews })), {
      kind: 'account_changed',
      account: held,
    });
    // Nothing of the refused commits was written.
    assert.deepEqual((await s.accounts.get(user))!, held);
  });

  scenario(make, known, "a test-mode order counts in its live account's active tasks and POST window, and gives its task back there", async (s) => {
    const live = await s.user({ balance: 1000 });
    const test = await s.testUser(live);
    const limits = { ...DEFAULT_LIMITS, activeTasks: 2, postsPerMinute: 3 };
    const t0 = new Date('2026-11-23T10:00:00Z');
    const testOrder = (at: Date): Order => ({ ...orderOf(test, at, { cost: 0 }), charge: { cost: 0, trial: false, extras: [], test: true }, limitsOf: live });
    const accountOf = async (userId: string) => (await s.accounts.get(userId))!;
    assert.equal((await s.orders.create(commitOf(orderOf(live, t0), await accountOf(live), { limits }))).kind, 'created');
    const first = testOrder(after(t0, SECOND));
    assert.equal((await s.orders.create(commitOf(first, await accountOf(test), { limits }))).kind, 'created');
    assert.deepEqual([(await accountOf(live)).activeTasks, (await accountOf(test)).activeTasks], [2, 0], 'both counted on the live account');
    // The key's limit is the two keys' together: refused, with the live account's counters to price again against.
    const read = await accountOf(test);
    assert.deepEqual(await s.orders.create(commitOf(testOrder(after(t0, 2 * SECOND)), read, { limits })), {
      kind: 'account_changed',
      account: { ...read, activeTasks: 2, reviewsPending: 0 },
    });
    // Its close, of the order as the store reads it back (as every step reads it), gives the task back to the live account.
    const at = after(t0, 3 * SECOND);
    const closed = { error: { code: 'canceled', message: 'canceled' }, finishedAt: at.toISOString() };
    const stored = (await s.orders.get(first.id))!;
    assert.equal(stored.limitsOf, live);
    assert.equal(await s.orders.transition({ order: stored, to: 'error', set: closed, now: at }), true);
    assert.deepEqual([(await accountOf(live)).activeTasks, (await accountOf(test)).activeTasks], [1, 0]);
    // Its POSTs count in the live key's window: the third of the minute fits, the fourth (a live order's) does not.
    assert.equal((await s.orders.create(commitOf(testOrder(after(t0, 4 * SECOND)), await accountOf(test), { limits }))).kind, 'created');
    const fourth = commitOf(orderOf(live, after(t0, 5 * SECOND)), await accountOf(live), { limits: { ...limits, activeTasks: 10 } });
    assert.deepEqual(await s.orders.create(fourth), { kind: 'rate_limited' });
  });

  scenario(make, known, 'a trial order takes the trial video and no doubloons; the bot takes no active task', async (s) => {
    const user = await s.user({ balance: 0, trialVideos: 1 });
    await created(s, user, new Date(), { trial: true, cost: 0 });
    assert.deepEqual(((a) => [a.balance, a.trialVideosLeft, a.activeTasks])((await s.accounts.get(user))!), [0, 0, 1]);
    const { lines } = await s.accounts.ledgerPage(user, { limit: 5 });
    assert.deepEqual(
      lines.map((l) => [l.kind, l.amount, l.trial]),
      [['charge', 0, true]],
    );
    const rich = await s.user({ balance: 100 });
    await created(s, rich, new Date(), { channel: 'bot' });
    assert.deepEqual(((a) => [a.balance, a.activeTasks])((await s.accounts.get(rich))!), [0, 0]);
  });

  scenario(make, known, 'a taken order id is an error, not a conflict to retry, and writes nothing', async (s) => {
    const user = await s.user({ balance: 500 });
    const order = await created(s, user, new Date());
    const account = (await s.accounts.get(user))!;
    await assert.rejects(s.orders.create(commitOf({ ...order, createdAt: new Date().toISOString() }, account)));
    assert.deepEqual(await s.accounts.get(user), account);
  });

  scenario(make, known, 'a quote is the user’s until it expires, and prices one order only', async (s) => {
    const user = await s.user({ balance: 500 });
    const other = await s.user({ balance: 500 });
    const now = wholeSecond();
    const quote = (userId: string, expiresAt: Date): Quote => ({
      id: newQuoteId(),
      userId,
      pricedHash: 'q'.repeat(64),
      charge: { cost: 100, trial: false, extras: [] },
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    const q = quote(user, after(now, 15 * MINUTE));
    await s.quotes.save(q);
    assert.equal((await s.quotes.get(user, q.id, now))?.id, q.id);
    assert.equal(await s.quotes.get(other, q.id, now), undefined, "another user's quote is not found");
    assert.ok(await s.quotes.get(user, q.id, after(now, 15 * MINUTE + 500)), 'through the second it expires in');
    assert.equal(await s.quotes.get(user, q.id, after(now, 15 * MINUTE + SECOND)), undefined);
    // Another user's order cannot use it.
    const theirs = orderOf(other, now);
    assert.deepEqual(await s.orders.create(commitOf(theirs, (await s.accounts.get(other))!, { quoteId: q.id })), { kind: 'quote_used' });
    const first = orderOf(user, now);
    assert.equal((await s.orders.create(commitOf(first, (await s.accounts.get(user))!, { quoteId: q.id }))).kind, 'created');
    assert.equal((await s.quotes.get(user, q.id, now))?.orderId, first.id);
    const second = orderOf(user, after(now, SECOND));
    assert.deepEqual(await s.orders.create(commitOf(second, (await s.accounts.get(user))!, { quoteId: q.id })), { kind: 'quote_used' });
    // An expired quote prices nothing.
    const old = quote(user, after(now, -SECOND));
    await s.quotes.save(old);
    assert.deepEqual(await s.orders.create(commitOf(orderOf(user, now), (await s.accounts.get(user))!, { quoteId: old.id })), { kind: 'quote_used' });
    assert.equal((await s.accounts.get(user))!.balance, 400);
  });

  scenario(make, known, 'a quote reads back as it was saved', async (s) => {
    const now = new Date();
    const q: Quote = {
      id: newQuoteId(),
      userId: await s.user(),
      pricedHash: 'q'.repeat(64),
      charge: { cost: 100, trial: false, extras: [] },
      createdAt: now.toISOString(),
      // As the quoting use case makes it: to the second, the unit the expiry is stored in.
      expiresAt: expiryOf(now, QUOTE_TTL_MS).toISOString(),
    };
    await s.quotes.save(q);
    assert.deepEqual(await s.quotes.get(q.userId, q.id, now), q);
  });

  scenario(make, known, 'a transition moves the order only from the status it was read in', async (s) => {
    const user = await s.user({ balance: 500 });
    const order = await created(s, user, new Date());
    const at = after(new Date(order.createdAt), SECOND);
    assert.equal(await s.orders.transition({ order, to: 'running', set: { startedAt: at.toISOString() }, now: at }), true);
    const running = (await s.orders.get(order.id))!;
    assert.deepEqual([running.status, running.startedAt, running.updatedAt], ['running', at.toISOString(), at.toISOString()]);
    // A second mover read it queued too: nothing happens.
    assert.equal(await s.orders.transition({ order, to: 'running', now: after(at, SECOND) }), false);
    assert.deepEqual(await s.orders.get(order.id), running);
    assert.equal(await s.orders.transition({ order: { ...order, id: 'vid_01kzzzzzzzzzzzzzzzzzzzzzzz' }, to: 'running', now: at }), false, 'no such order');
    assert.equal((await s.accounts.get(user))!.activeTasks, 1, 'queued to running keeps its active task');
  });

  scenario(make, known, "a transition's further conditions: the review token, before the render, the key's active limit", async (s) => {
    const user = await s.user({ balance: 500 });
    const at = new Date();
    const order = await created(s, user, at, { director: true });
    assert.equal(await s.orders.transition({ order, to: 'awaiting_review', set: { reviewToken: 'token-1' }, now: at }), true);
    const waiting = (await s.orders.get(order.id))!;
    assert.equal((await s.accounts.get(user))!.activeTasks, 0, 'awaiting review holds no active task');
    assert.equal(await s.orders.transition({ order: waiting, to: 'running', reviewToken: 'token-0', now: at }), false);
    // Another order took the key's last active task meanwhile.
    await created(s, user, after(at, SECOND));
    const move = { order: waiting, to: 'running' as const, set: { reviewed: true }, remove: ['reviewToken' as const], reviewToken: 'token-1', now: at };
    assert.equal(await s.orders.transition({ ...move, activeLimit: 1 }), false);
    assert.equal((await s.orders.get(order.id))!.status, 'awaiting_review');
    assert.equal(await s.orders.transition({ ...move, activeLimit: 2 }), true);
    const approved = (await s.orders.get(order.id))!;
    assert.deepEqual([approved.status, approved.reviewToken, approved.reviewed], ['running', undefined, true]);
    assert.deepEqual(((a) => [a.activeTasks, a.reviewsPending])((await s.accounts.get(user))!), [2, 0]);
    // A deadline applies only before the render.
    assert.equal(await s.orders.patch(order.id, { status: 'running', set: { renderStartedAt: at.toISOString() } }, at), true);
    assert.equal(await s.orders.transition({ ...(await failure(s, approved, at)), beforeRender: true }), false);
  });

  scenario(make, known, 'the transition to error refunds after the ledger as it is, records the event and closes the order', async (s) => {
    const user = await s.user({ balance: 500 });
    const at = new Date();
    const order = await created(s, user, at, { cost: 150 });
    // Read before a top-up moved the ledger: the refund follows the head now there.
    const change = await failure(s, order, after(at, SECOND));
    const other = await created(s, user, after(at, 2 * SECOND), { cost: 100 });
    assert.equal(await s.orders.transition(change), true);
    const account = (await s.accounts.get(user))!;
    assert.deepEqual([account.balance, account.activeTasks, account.ledgerSeq], [400, 1, 4]);
    const { lines } = await s.accounts.ledgerPage(user, { limit: 10 });
    assert.deepEqual(
      lines.map((l) => [l.kind, l.amount, l.balanceAfter, l.orderId ?? null, l.reason ?? null]),
      [
        ['refund', 150, 400, order.id, 'generation_failed'],
        ['charge', -100, 250, other.id, null],
        ['charge', -150, 350, order.id, null],
        ['top_up', 500, 500, null, null],
      ],
    );
    assert.deepEqual(await s.events.get(order.id, change.event!.id), change.event);
    const open = await s.orders.openPage(after(at, MINUTE), undefined, 10);
    assert.deepEqual(
      open.items.map((i) => i.ref.id),
      [other.id],
      'the closed order left the open markers',
    );
    // The same event recorded twice is a fault of the caller (an event id is its order's status change).
    const { refund: _refund, ...noRefund } = change;
    await assert.rejects(s.orders.transition({ ...noRefund, order: (await s.orders.get(order.id))! }));
  });

  scenario(make, known, 'a refund gives back the trial video, and the plan allowance only within its month', async (s) => {
    const user = await s.user({ balance: 0, trialVideos: 1, plan: { name: 'creator', heavyPerMonth: 2 } });
    const at = new Date('2026-11-30T23:59:00Z');
    const month = '2026-11';
    const trial = await created(s, user, at, { trial: true, cost: 0 });
    const heavy1 = await created(s, user, at, { heavyMonth: month, cost: 0 });
    const heavy2 = await created(s, user, at, { heavyMonth: month, cost: 0 });
    let a = (await s.accounts.get(user))!;
    assert.deepEqual([a.trialVideosLeft, a.heavyMonth, a.heavyUsed], [0, month, 2]);
    // The allowance is used up for the month.
    assert.equal((await s.orders.create(commitOf(orderOf(user, at, { heavyMonth: month, cost: 0 }), a))).kind, 'account_changed');
    assert.equal(await s.orders.transition(await failure(s, heavy1, at)), true);
    assert.equal((await s.accounts.get(user))!.heavyUsed, 1, 'the allowance given back within its month');
    // A new month's first heavy order starts its count; a refund of last month's order then gives none back.
    const december = new Date('2026-12-01T00:01:00Z');
    await created(s, user, december, { heavyMonth: '2026-12', cost: 0 });
    assert.equal(await s.orders.transition(await failure(s, heavy2, december)), true);
    assert.equal(await s.orders.transition(await failure(s, trial, december)), true);
    a = (await s.accounts.get(user))!;
    assert.deepEqual([a.trialVideosLeft, a.heavyMonth, a.heavyUsed], [1, '2026-12', 1]);
    const { lines } = await s.accounts.ledgerPage(user, { limit: 10 });
    assert.deepEqual(
      lines.map((l) => [l.kind, l.orderId, l.trial ?? false, l.allowance ?? false]).filter(([k]) => k === 'refund'),
      [
        ['refund', trial.id, true, false],
        ['refund', heavy2.id, false, false],
        ['refund', heavy1.id, false, true],
      ],
    );
  });

  scenario(make, known, "a patch keeps the status, and writes only while the status and the patch's conditions hold", async (s) => {
    const user = await s.user({ balance: 500 });
    const at = new Date();
    const order = await created(s, user, at, { director: true });
    const script = { title: 't', scenes: [], hashtags: [], description: 'd' } as unknown as NonNullable<Order['script']>;
    assert.equal(await s.orders.patch(order.id, { status: 'running', set: { planned: true } }, at), false, 'not in that status');
    assert.equal(await s.orders.patch(order.id, { status: 'queued', set: { script, regenNote: 'shorter' }, withoutScript: true }, after(at, SECOND)), true);
    assert.equal(await s.orders.patch(order.id, { status: 'queued', set: { planned: true }, withoutScript: true }, at), false, 'the script is there');
    assert.equal(await s.orders.patch(order.id, { status: 'queued', remove: ['regenNote'], regenNote: 'longer' }, at), false);
    assert.equal(await s.orders.patch(order.id, { status: 'queued', remove: ['regenNote'], regenNote: 'shorter' }, after(at, 2 * SECOND)), true);
    assert.equal(await s.orders.patch(order.id, { status: 'queued', set: { planned: true }, reviewToken: 'none' }, at), false, 'no token held');
    const stored = (await s.orders.get(order.id))!;
    assert.deepEqual([stored.status, stored.script, stored.regenNote, stored.updatedAt], ['queued', script, undefined, after(at, 2 * SECOND).toISOString()]);
    assert.equal(await s.orders.patch('vid_01kzzzzzzzzzzzzzzzzzzzzzzz', { status: 'queued' }, at), false, 'no such order');
  });

  scenario(make, known, "a user's orders list newest first, in pages between `from` and `below`, and only theirs", async (s) => {
    const user = await s.user({ balance: 10_000 });
    const other = await s.user({ balance: 10_000 });
    const t0 = new Date();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await created(s, user, after(t0, i * SECOND))).id);
    await created(s, other, after(t0, 2500));
    const newest = [...ids].reverse();
    const page1 = await s.orders.ofUser(user, { limit: 2 });
    assert.deepEqual([page1.orders.map((o) => o.id), page1.more], [newest.slice(0, 2), true]);
    const page2 = await s.orders.ofUser(user, { limit: 2, below: page1.orders.at(-1)!.id });
    assert.deepEqual([page2.orders.map((o) => o.id), page2.more], [newest.slice(2, 4), true]);
    const page3 = await s.orders.ofUser(user, { limit: 2, below: page2.orders.at(-1)!.id });
    assert.deepEqual([page3.orders.map((o) => o.id), page3.more], [newest.slice(4), false]);
    // A page exactly as long as what is left has no more.
    assert.deepEqual((await s.orders.ofUser(user, { limit: 5 })).more, false);
    // `from` is inclusive, `below` exclusive.
    const range = await s.orders.ofUser(user, { from: ids[1], below: ids[4], limit: 10 });
    assert.deepEqual([range.orders.map((o) => o.id), range.more], [[ids[3], ids[2], ids[1]], false]);
    assert.deepEqual(await s.orders.ofUser(user, { from: ids[4], below: ids[4], limit: 10 }), { orders: [], more: false });
    assert.deepEqual((await s.orders.ofUser(user, { limit: 10 })).orders[0], await s.orders.get(ids[4]!), 'the orders as stored');
  });

  scenario(make, known, "an account's deletion: its order ids newest first, each order gone with its events, then its partition", async (s) => {
    const user = await s.user({ balance: 1000 });
    const other = await s.user({ balance: 1000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const older = await created(s, user, t0);
    const newer = await created(s, user, after(t0, SECOND));
    const theirs = await created(s, other, after(t0, 2 * SECOND));
    const event = eventOf(newer, 'error', after(t0, 3 * SECOND));
    assert.equal(await s.orders.transition({ order: newer, to: 'error', event, now: after(t0, 3 * SECOND) }), true);
    assert.deepEqual(await s.orders.idsOfUser(user), [newer.id, older.id]);
    await s.orders.delete(newer.id);
    assert.equal(await s.orders.get(newer.id), undefined);
    assert.equal(await s.events.get(newer.id, event.id), undefined, 'its events went with it');
    assert.deepEqual(await s.orders.idsOfUser(user), [older.id]);
    await s.accounts.revokeKey(user);
    await s.accounts.deletePartition(user);
    assert.equal(await s.accounts.get(user), undefined);
    assert.deepEqual(await s.accounts.ledgerPage(user, { limit: 5 }), { lines: [], more: false });
    assert.ok(await s.orders.get(theirs.id), "another user's order stays");
    assert.ok(await s.accounts.get(other));
  });

  scenario(make, known, 'the open markers: every old open order once across pages, young ones passed over, closed ones gone', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const old: string[] = [];
    for (let i = 0; i < 7; i++) old.push((await created(s, user, after(t0, i * SECOND))).id);
    const young = await created(s, user, new Date());
    const closing = (await s.orders.get(old.pop()!))!;
    assert.equal(await s.orders.transition({ order: closing, to: 'done', now: new Date() }), true);
    const dropped = (await s.orders.get(old.pop()!))!;
    await s.orders.dropOpen(dropped);
    const before = after(new Date(young.createdAt), -MINUTE);
    const seen: string[] = [];
    let from: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await s.orders.openPage(before, from, 2);
      seen.push(...page.items.map((i) => i.ref.id));
      for (const i of page.items) assert.equal(i.ref.queueShard, (await s.orders.get(i.ref.id))!.queueShard);
      if (page.next === undefined) break;
      from = page.next;
    }
    // The walk's order is the index's (by shard on DynamoDB, one set in memory): compared as a set.
    assert.deepEqual([...seen].sort(), [...old].sort());
    // An item's `after` resumes just past it.
    const first = await s.orders.openPage(before, undefined, 100);
    const rest = await s.orders.openPage(before, first.items[0]!.after, 100);
    assert.deepEqual(
      rest.items.map((i) => i.ref.id).sort(),
      first.items
        .slice(1)
        .map((i) => i.ref.id)
        .sort(),
    );
  });

  scenario(make, known, 'a page of markers holds at most `limit` items', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    // One open order in the first marker partition and three in the second: a page of 3 crosses from one to the other.
    // (An index kept as one sorted set has no partitions; the same orders are 4 markers to it.) The bot's orders, so
    // that no key's active limit stops them.
    for (const [shard, count] of [
      [0, 1],
      [1, 3],
    ] as const) {
      for (let n = 0; n < count; n++) await created(s, user, after(t0, n * SECOND), { channel: 'bot', shard });
    }
    let from: string | undefined;
    let seen = 0;
    for (let pages = 0; pages < 20; pages++) {
      const page = await s.orders.openPage(new Date(), from, 3);
      assert.ok(page.items.length <= 3, `a page of ${page.items.length}`);
      seen += page.items.length;
      if (page.next === undefined) break;
      from = page.next;
    }
    assert.equal(seen, 4);
  });

  scenario(make, known, 'unstarted markers: old ones listed, at most `limit`, until started', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    // In one marker partition: a read of `limit` is one query there.
    const old = [
      await created(s, user, t0, { shard: 3 }),
      await created(s, user, after(t0, SECOND), { shard: 3 }),
      await created(s, user, after(t0, 2 * SECOND), { shard: 3 }),
    ];
    const young = await created(s, user, new Date());
    const before = after(new Date(young.createdAt), -MINUTE);
    const all = await s.orders.unstarted(before, 10);
    assert.deepEqual(all.map((o) => o.id).sort(), old.map((o) => o.id).sort());
    for (const o of all) assert.equal(o.queueShard, old.find((x) => x.id === o.id)!.queueShard);
    assert.equal((await s.orders.unstarted(before, 2)).length, 2);
    await s.orders.started(old[1]!);
    assert.deepEqual((await s.orders.unstarted(before, 10)).map((o) => o.id).sort(), [old[0]!.id, old[2]!.id].sort());
    assert.deepEqual((await s.orders.unstarted(after(new Date(), SECOND), 10)).map((o) => o.id).sort(), [old[0]!.id, old[2]!.id, young.id].sort());
  });

  scenario(make, known, 'unstarted markers are taken from the shards in turn, from the one asked, the oldest first in each', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const make = (shard: number, n: number) => created(s, user, after(t0, n * SECOND), { channel: 'bot', shard });
    const a = [await make(2, 0), await make(2, 1), await make(2, 2)];
    const b = await make(5, 3);
    const c = [await make(7, 4), await make(7, 5)];
    const before = after(t0, MINUTE);
    const marked = async (limit: number, first?: number) => (await s.orders.unstarted(before, limit, first)).map((o) => o.id).sort();
    const ids = (...orders: Order[]) => orders.map((o) => o.id).sort();
    // Shard 2 holds the most and comes first in the shards' order: it does not hold 5 and 7 back.
    assert.deepEqual(await marked(3), ids(a[0]!, b, c[0]!));
    assert.deepEqual(await marked(5), ids(a[0]!, b, c[0]!, a[1]!, c[1]!));
    assert.deepEqual(await marked(2, 6), ids(c[0]!, a[0]!));
    assert.deepEqual(await marked(1, 3), ids(b));
  });

  scenario(make, known, 'deadline markers: due at or before now, at most `limit`, until dropped', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const now = wholeSecond();
    const due = await created(s, user, after(now, -2 * MINUTE), { deadlineAt: after(now, -MINUTE) });
    const atNow = await created(s, user, after(now, -2 * MINUTE), { deadlineAt: now });
    await created(s, user, after(now, -2 * MINUTE), { deadlineAt: after(now, SECOND) });
    await created(s, user, after(now, -2 * MINUTE));
    const found = await s.orders.deadlinesDue(now, 10);
    assert.deepEqual(found.map((o) => [o.id, o.deadlineAt, o.queueShard]).sort(), [due, atNow].map((o) => [o.id, o.deadlineAt, o.queueShard]).sort());
    assert.equal((await s.orders.deadlinesDue(now, 1)).length, 1);
    await s.orders.dropDeadline(due);
    assert.deepEqual(
      (await s.orders.deadlinesDue(now, 10)).map((o) => o.id),
      [atNow.id],
    );
  });

  scenario(make, known, 'due deadline markers are taken from the shards in turn, from the one asked, the earliest first in each', async (s) => {
    const user = await s.user({ balance: 10_000 });
    const now = wholeSecond();
    const t0 = after(now, -10 * MINUTE);
    // The bot's orders, so that no key's active limit stops them.
    const make = (shard: number, n: number, deadlineAt: Date) => created(s, user, after(t0, n * SECOND), { channel: 'bot', shard, deadlineAt });
    const a = [await make(2, 0, after(now, -9 * SECOND)), await make(2, 1, after(now, -8 * SECOND)), await make(2, 2, after(now, -7 * SECOND))];
    const b = await make(5, 3, after(now, -6 * SECOND));
    await make(5, 4, after(now, MINUTE));
    // Shard 7's earliest deadline is its order created last: within a shard, the deadline decides.
    const c = [await make(7, 6, after(now, -5 * SECOND)), await make(7, 5, after(now, -4 * SECOND))];
    const due = async (limit: number, first?: number) => (await s.orders.deadlinesDue(now, limit, first)).map((o) => o.id).sort();
    const ids = (...orders: Order[]) => orders.map((o) => o.id).sort();
    // One from each shard with one due before a second from any: DEADLINE#2 first does not hold #5 and #7 back.
    assert.deepEqual(await due(3), ids(a[0]!, b, c[0]!));
    assert.deepEqual(await due(5), ids(a[0]!, b, c[0]!, a[1]!, c[1]!));
    // From shard 6 on: 7, then (8, 9, 0 and 1 hold none) 2.
    assert.deepEqual(await due(2, 6), ids(c[0]!, a[0]!));
    assert.deepEqual(await due(1, 3), ids(b));
    const all = [...a, b, ...c];
    const found = await s.orders.deadlinesDue(now, 100);
    assert.deepEqual(found.map((o) => [o.id, o.queueShard, o.deadlineAt]).sort(), all.map((o) => [o.id, o.queueShard, o.deadlineAt]).sort());
  });

  scenario(make, known, "the transition to done or error deletes the order's deadline marker; one that keeps it open does not", async (s) => {
    const user = await s.user({ balance: 10_000 });
    const now = wholeSecond();
    const t0 = after(now, -10 * MINUTE);
    const deadlineAt = after(now, -MINUTE);
    const [done, failed, running, dropped] = [
      await created(s, user, t0, { deadlineAt }),
      await created(s, user, after(t0, SECOND), { deadlineAt }),
      await created(s, user, after(t0, 2 * SECOND), { deadlineAt }),
      await created(s, user, after(t0, 3 * SECOND), { deadlineAt }),
    ];
    const plain = await created(s, user, after(t0, 4 * SECOND));
    // A marker already gone (the audit dropped it) does not stop the close.
    await s.orders.dropDeadline(dropped);
    assert.equal(await s.orders.transition({ order: done, to: 'done', now }), true);
    assert.equal(await s.orders.transition(await failure(s, failed, now)), true);
    assert.equal(await s.orders.transition({ order: running, to: 'running', now }), true);
    assert.equal(await s.orders.transition({ order: dropped, to: 'done', now }), true);
    assert.equal(await s.orders.transition({ order: plain, to: 'done', now }), true);
    assert.deepEqual(
      (await s.orders.deadlinesDue(after(now, MINUTE), 10)).map((o) => o.id),
      [running.id],
    );
    assert.equal((await s.orders.get(failed.id))!.status, 'error');
  });

  scenario(make, known, 'an event recorded with a status change is there to deliver, once', async (s) => {
    const user = await s.user({ balance: 500 });
    const at = new Date();
    const order = await created(s, user, at, { director: true });
    const event = eventOf(order, 'awaiting_review', at);
    assert.equal(await s.orders.transition({ order, to: 'awaiting_review', set: { reviewToken: 't' }, event, now: at }), true);
    assert.deepEqual(await s.events.get(order.id, event.id), event);
    assert.equal(await s.events.get(order.id, `${order.id}:done`), undefined);
  });
}
