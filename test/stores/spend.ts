/**
 * The spend controls' part of the store contract: the creation's debit counts an API order's cost in its month and is
 * conditioned on the key's limit and the room left; a refund gives it back within that month; a charge crossing the
 * low-balance threshold records balance.low with it, once; a top-up to the threshold re-arms the alert.
 */
import assert from 'node:assert/strict';
import { balanceLowEvent } from '../../functions/core/balance.ts';
import type { Order } from '../../functions/core/orders.ts';
import type { OrderCommit } from '../../functions/core/ports.ts';
import type { Account } from '../../functions/core/pricing.ts';
import { after, commitOf, failure, type KnownDrifts, type MakeStores, orderOf, SECOND, scenario } from './fixtures.ts';
import type { Stores } from './implementations.ts';

/** An API order charging `cost` in the key's spend of its month, as the creation prices it (pricing.ts withinSpendLimit). */
const spending = (userId: string, at: Date, cost: number): Order => {
  const order = orderOf(userId, at, { cost });
  return { ...order, charge: { ...order.charge, spendMonth: at.toISOString().slice(0, 7) } };
};
/** A commit that counts in no key's POSTs (the bot's). */
const unCounted = ({ postWindowStart: _w, ...commit }: OrderCommit): OrderCommit => commit;
const spendOf = async (s: Stores, userId: string) => ((a: Account) => [a.spendMonth, a.spentInMonth ?? 0])((await s.accounts.get(userId))!);

export function spendContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, 'the spend limit: counted by month, guarded by the limit and the room left, given back by a refund within the month', async (s) => {
    const user = await s.user({ balance: 2000 });
    await s.operator.setSpendLimit(user, 300);
    const nov = new Date('2026-11-20T10:00:00Z');
    const first = spending(user, nov, 200);
    assert.equal((await s.orders.create(commitOf(first, (await s.accounts.get(user))!))).kind, 'created');
    assert.deepEqual(await spendOf(s, user), ['2026-11', 200]);
    // Priced with the room the account showed, but the counter has no room for it: refused, nothing written.
    const read = (await s.accounts.get(user))!;
    const past = spending(user, after(nov, SECOND), 150);
    const refused = await s.orders.create(commitOf(past, read));
    assert.equal(refused.kind, 'account_changed');
    assert.equal(await s.orders.get(past.id), undefined);
    // The operator lowers the limit after the account was read: the commit priced on the old one is refused.
    await s.operator.setSpendLimit(user, 250);
    const stale = spending(user, after(nov, 2 * SECOND), 50);
    const moved = await s.orders.create(commitOf(stale, read));
    assert.deepEqual(moved.kind === 'account_changed' && moved.account?.spendLimit, 250);
    assert.deepEqual([(await s.accounts.get(user))!.balance, await spendOf(s, user)], [1800, ['2026-11', 200]], 'the refusals charged nothing');
    // The bot's orders are not counted.
    const bot = orderOf(user, after(nov, 3 * SECOND), { cost: 100, channel: 'bot' });
    assert.equal((await s.orders.create(unCounted(commitOf(bot, (await s.accounts.get(user))!)))).kind, 'created');
    assert.deepEqual(await spendOf(s, user), ['2026-11', 200]);
    // A new month starts the counter anew; a refund of November's charge in December gives nothing back to it.
    const dec = new Date('2026-12-01T00:00:05Z');
    const december = spending(user, dec, 240);
    assert.equal((await s.orders.create(commitOf(december, (await s.accounts.get(user))!))).kind, 'created');
    assert.deepEqual(await spendOf(s, user), ['2026-12', 240]);
    assert.equal(await s.orders.transition(await failure(s, first, after(dec, SECOND))), true);
    assert.deepEqual(await spendOf(s, user), ['2026-12', 240]);
    assert.equal(await s.orders.transition(await failure(s, december, after(dec, 2 * SECOND), { refund: undefined })), true);
    assert.deepEqual(await spendOf(s, user), ['2026-12', 240], 'a transition without a refund gives nothing back');
    const another = spending(user, after(dec, 3 * SECOND), 10);
    assert.equal((await s.orders.create(commitOf(another, (await s.accounts.get(user))!))).kind, 'created');
    assert.equal(await s.orders.transition(await failure(s, another, after(dec, 4 * SECOND))), true);
    assert.deepEqual(await spendOf(s, user), ['2026-12', 240], 'a refund within its month gives its charge back');
  });

  scenario(make, known, 'balance.low: recorded with the crossing charge, once, in the user partition; a top-up to the threshold re-arms it', async (s) => {
    const user = await s.user({ balance: 500 });
    const t0 = new Date('2026-11-20T10:00:00Z');
    const armed = (await s.accounts.setLowBalanceAlert(user, 300))!;
    assert.deepEqual([armed.lowBelow, armed.lowAlertSent], [300, undefined]);
    // The threshold moves after the account was read: the crossing priced on the old one is refused, nothing written.
    await s.accounts.setLowBalanceAlert(user, 100);
    const order = orderOf(user, t0, { cost: 250 });
    const stale = await s.orders.create(commitOf(order, armed, { event: balanceLowEvent(armed, 250, order.id, t0) }));
    assert.equal(stale.kind === 'account_changed' && stale.account?.lowBelow, 100);
    assert.equal(await s.events.get(user, `${user}:balance.low:1`), undefined);
    // Priced again: 250 left is not below 100, no event; the next charge leaves 50, below it: its event with it.
    assert.equal((await s.orders.create(commitOf(order, (await s.accounts.get(user))!))).kind, 'created');
    const read = (await s.accounts.get(user))!;
    const crossing = orderOf(user, after(t0, SECOND), { cost: 200 });
    const event = balanceLowEvent(read, 200, crossing.id, after(t0, SECOND));
    assert.equal((await s.orders.create(commitOf(crossing, read, { event }))).kind, 'created');
    const sent = (await s.accounts.get(user))!;
    assert.deepEqual([sent.balance, sent.lowAlertSent, sent.lowAlerts], [50, true, 1]);
    // The same threshold set again is no top-up: the alert stays sent.
    assert.equal((await s.accounts.setLowBalanceAlert(user, 100))?.lowAlertSent, true);
    const stored = await s.events.get(user, event.id);
    assert.deepEqual([stored?.type, stored?.orderId, stored?.record], ['balance.low', user, event.record]);
    const pending = await s.events.pendingPage(after(t0, 60 * SECOND), undefined, 50);
    assert.deepEqual(
      pending.items.map((i) => i.ref),
      [{ id: event.id, orderId: user }],
    );
    // Top-ups below the threshold leave it sent; one to the threshold re-arms it.
    await s.operator.topUp(user, 30, after(t0, 2 * SECOND));
    assert.equal((await s.accounts.get(user))!.lowAlertSent, true);
    await s.operator.topUp(user, 20, after(t0, 3 * SECOND));
    assert.deepEqual(((a) => [a.balance, a.lowAlertSent, a.lowAlerts])((await s.accounts.get(user))!), [100, undefined, 1]);
    // The account's deletion takes its events with its partition.
    await s.accounts.deletePartition(user);
    assert.equal(await s.events.get(user, event.id), undefined);
  });

  scenario(make, known, 'balance.low: a paid charge that did not cross is refused when the alert changed after the read (set, or re-armed)', async (s) => {
    const user = await s.user({ balance: 500 });
    const t0 = new Date('2026-11-20T10:00:00Z');
    // Read with no alert, so no crossing; the alert is set before the commit: refused, priced again, nothing written.
    const unarmed = (await s.accounts.get(user))!;
    await s.accounts.setLowBalanceAlert(user, 300);
    const order = orderOf(user, t0, { cost: 250 });
    const stale = await s.orders.create(commitOf(order, unarmed));
    assert.equal(stale.kind === 'account_changed' && stale.account?.lowBelow, 300);
    assert.deepEqual([(await s.accounts.get(user))!.balance, await s.orders.get(order.id)], [500, undefined]);
    const read = (await s.accounts.get(user))!;
    assert.equal((await s.orders.create(commitOf(order, read, { event: balanceLowEvent(read, 250, order.id, t0) }))).kind, 'created');
    // Read while the alert was sent, so no crossing; a new threshold re-arms it before the commit: refused too.
    const sent = (await s.accounts.get(user))!;
    assert.deepEqual([sent.lowAlertSent, sent.lowAlerts], [true, 1]);
    await s.accounts.setLowBalanceAlert(user, 200);
    const next = orderOf(user, after(t0, SECOND), { cost: 100 });
    const rearmed = await s.orders.create(commitOf(next, sent));
    assert.equal(rearmed.kind === 'account_changed' && rearmed.account?.lowBelow, 200);
    // A free order crosses nothing, whatever the alert: it is not held by it.
    const free = orderOf(user, after(t0, 2 * SECOND), { cost: 0 });
    assert.equal((await s.orders.create(commitOf(free, sent))).kind, 'created');
    assert.deepEqual(((a) => [a.balance, a.lowBelow, a.lowAlertSent, a.lowAlerts])((await s.accounts.get(user))!), [250, 200, undefined, 1]);
  });
}
