/**
 * The contract of recorded events and their deliveries (core/deliveries.ts and sweep.ts ports), and of webhooks
 * (core/webhooks.ts WebhookStore) and order files.
 */
import assert from 'node:assert/strict';
import type { DeliveryAttempt, StoredEvent } from '../../functions/core/deliveries.ts';
import { newWebhookId } from '../../functions/core/ids.ts';
import { resendWindow } from '../../functions/core/limits.ts';
import type { Webhook } from '../../functions/core/webhooks.ts';
import { after, created, eventOf, type KnownDrifts, type MakeStores, MINUTE, scenario, SECOND } from './fixtures.ts';
import type { Stores } from './implementations.ts';

/** An order failed at `at` with its event recorded, as the steps record one. */
async function recorded(s: Stores, userId: string, at: Date): Promise<StoredEvent> {
  const order = await created(s, userId, at);
  const event = eventOf(order, 'error', at);
  assert.equal(await s.orders.transition({ order, to: 'error', event, now: at }), true);
  return (await s.events.get(order.id, event.id))!;
}

const attemptOf = (e: StoredEvent, n: number, outcome: DeliveryAttempt['outcome'], at: Date): DeliveryAttempt => ({
  eventId: e.id,
  orderId: e.orderId,
  type: e.type,
  webhookId: 'wh_1',
  attempt: n,
  at: at.toISOString(),
  url: 'https://hooks.example/x',
  status: outcome === 'delivered' ? 200 : 500,
  latencyMs: 3,
  outcome,
});

/** Every pending marker recorded before `before`, across pages of `limit`. */
async function pending(s: Stores, before: Date, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let from: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await s.events.pendingPage(before, from, limit);
    ids.push(...page.items.map((i) => i.ref.id));
    if (page.next === undefined) return ids.sort();
    from = page.next;
  }
  throw new Error('the walk did not end');
}

export function eventsContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, 'a recorded event is pending until settled; young markers are passed over', async (s) => {
    const user = await s.user({ balance: 1000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const events = [await recorded(s, user, t0), await recorded(s, user, after(t0, SECOND)), await recorded(s, user, after(t0, 2 * SECOND))];
    const young = await recorded(s, user, new Date());
    const grace = after(new Date(), -MINUTE);
    assert.deepEqual(await pending(s, grace), events.map((e) => e.id).sort());
    for (const page of [(await s.events.pendingPage(grace, undefined, 10)).items]) {
      for (const i of page) assert.equal(i.ref.orderId, events.find((e) => e.id === i.ref.id)!.orderId);
    }
    await s.events.settled(events[1]!);
    await s.events.settled(events[1]!);
    assert.deepEqual(await pending(s, grace), [events[0]!.id, events[2]!.id].sort());
    assert.deepEqual(await pending(s, after(new Date(), SECOND)), [events[0]!.id, events[2]!.id, young.id].sort());
  });

  scenario(make, known, 'one record per attempt number: a step run twice records its attempt once', async (s) => {
    const user = await s.user({ balance: 1000 });
    const e = await recorded(s, user, new Date());
    const at = new Date();
    assert.equal(await s.events.record(e, attemptOf(e, 1, 'pending', at), user), true);
    assert.equal(await s.events.record(e, attemptOf(e, 1, 'pending', at), user), false);
    assert.equal(await s.events.record(e, attemptOf(e, 3, 'pending', at), user), false, 'attempts follow one another');
    assert.equal(await s.events.record(e, attemptOf(e, 2, 'delivered', after(at, SECOND)), user), true);
    const stored = (await s.events.get(e.orderId, e.id))!;
    assert.deepEqual([stored.attempts, stored.delivery], [2, 'delivered']);
    await s.events.mark(stored, 'no_webhook');
    assert.equal((await s.events.get(e.orderId, e.id))!.delivery, 'no_webhook');
  });

  scenario(make, known, "a delivery restarts under a new name only while no attempt was recorded since the event's read", async (s) => {
    const user = await s.user({ balance: 1000 });
    const e = await recorded(s, user, new Date());
    assert.equal(await s.events.restartAs(e, `${e.id}-r1`), true);
    assert.equal((await s.events.get(e.orderId, e.id))!.execution, `${e.id}-r1`);
    assert.equal(await s.events.record(e, attemptOf(e, 1, 'pending', new Date()), user), true);
    assert.equal(await s.events.restartAs(e, `${e.id}-r2`), false, 'it moved on: its delivery is alive');
    const read = (await s.events.get(e.orderId, e.id))!;
    assert.equal(await s.events.restartAs(read, `${e.id}-r2`), true);
  });

  scenario(make, known, 'a resend reopens a settled event once, pending again from the resend, within the hour’s budget', async (s) => {
    const user = await s.user({ balance: 1000 });
    const t0 = new Date(Date.now() - 30 * MINUTE);
    const e = await recorded(s, user, t0);
    for (let n = 1; n <= 2; n++) await s.events.record(e, attemptOf(e, n, n === 2 ? 'dropped' : 'pending', after(t0, n * SECOND)), user);
    await s.events.settled(e);
    const dropped = (await s.events.get(e.orderId, e.id))!;
    const now = new Date();
    const budget = { window: resendWindow(now), limit: 2, owner: user };
    assert.equal(await s.events.reopen(dropped, { execution: `${e.id}-resend`, lastAttempt: 3, now, budget }), 'reopened');
    const reopened = (await s.events.get(e.orderId, e.id))!;
    assert.deepEqual([reopened.delivery, reopened.execution, reopened.lastAttempt, reopened.attempts], ['pending', `${e.id}-resend`, 3, 2]);
    // Its marker is the resend's: young until the grace after it has passed.
    assert.deepEqual(await pending(s, after(now, -MINUTE)), []);
    assert.deepEqual(await pending(s, after(now, SECOND)), [e.id]);
    assert.equal(await s.events.reopen(dropped, { execution: `${e.id}-again`, lastAttempt: 3, now, budget }), 'moved', 'a second resend from the same read');
    // Dropped again after one more attempt: a read from before that attempt is stale though its state is the same.
    await s.events.record(reopened, attemptOf(e, 3, 'dropped', after(now, SECOND)), user);
    assert.equal(await s.events.reopen(dropped, { execution: `${e.id}-stale`, lastAttempt: 4, now, budget }), 'moved');
    const again = (await s.events.get(e.orderId, e.id))!;
    assert.equal(await s.events.reopen(again, { execution: `${e.id}-2`, lastAttempt: 4, now, budget }), 'reopened');
    // The hour's budget is spent (two resends); the next hour has its own.
    const other = await recorded(s, user, t0);
    await s.events.mark(other, 'dropped');
    const settledOther = (await s.events.get(other.orderId, other.id))!;
    assert.equal(await s.events.reopen(settledOther, { execution: `${other.id}-r`, lastAttempt: 1, now, budget }), 'over_budget');
    assert.equal((await s.events.get(other.orderId, other.id))!.delivery, 'dropped', 'nothing written');
    const nextHour = after(now, 60 * MINUTE);
    assert.equal(
      await s.events.reopen(settledOther, {
        execution: `${other.id}-r`,
        lastAttempt: 1,
        now: nextHour,
        budget: { window: resendWindow(nextHour), limit: 2, owner: user },
      }),
      'reopened',
    );
  });

  scenario(make, known, "the user's dropped events since a moment: once each, oldest first, no one else's", async (s) => {
    const user = await s.user({ balance: 1000 });
    const other = await s.user({ balance: 1000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const [a, b, c] = [await recorded(s, user, t0), await recorded(s, user, t0), await recorded(s, user, t0)];
    const theirs = await recorded(s, other, t0);
    await s.events.record(a!, attemptOf(a!, 1, 'dropped', after(t0, SECOND)), user);
    await s.events.record(b!, attemptOf(b!, 1, 'dropped', after(t0, 3 * SECOND)), user);
    await s.events.record(c!, attemptOf(c!, 1, 'delivered', after(t0, 4 * SECOND)), user);
    await s.events.record(theirs, attemptOf(theirs, 1, 'dropped', after(t0, 4 * SECOND)), other);
    // `a` dropped again after a resend.
    const resent = (await s.events.get(a!.orderId, a!.id))!;
    await s.events.record(resent, attemptOf(a!, 2, 'dropped', after(t0, 5 * SECOND)), user);
    const ref = (e: StoredEvent) => ({ id: e.id, orderId: e.orderId });
    assert.deepEqual(await s.events.droppedSince(user, t0), [ref(a!), ref(b!)]);
    assert.deepEqual(await s.events.droppedSince(user, after(t0, 2 * SECOND)), [ref(b!), ref(a!)]);
    assert.deepEqual(await s.events.droppedSince(user, after(t0, 6 * SECOND)), []);
  });

  scenario(make, known, "the user's delivery attempts read newest first, at most `limit`, no one else's", async (s) => {
    const user = await s.user({ balance: 1000 });
    const other = await s.user({ balance: 1000 });
    const t0 = new Date(Date.now() - 10 * MINUTE);
    const [a, b] = [await recorded(s, user, t0), await recorded(s, user, t0)];
    const theirs = await recorded(s, other, t0);
    const first = attemptOf(a!, 1, 'pending', after(t0, SECOND));
    const second = attemptOf(b!, 1, 'pending', after(t0, 2 * SECOND));
    const third = attemptOf(a!, 2, 'delivered', after(t0, 3 * SECOND));
    for (const [e, attempt] of [
      [a!, first],
      [b!, second],
    ] as const)
      await s.events.record(e, attempt, user);
    await s.events.record((await s.events.get(a!.orderId, a!.id))!, third, user);
    await s.events.record(theirs, attemptOf(theirs, 1, 'pending', after(t0, 4 * SECOND)), other);
    assert.deepEqual(await s.events.attemptsOfUser(user, 10), [third, second, first]);
    assert.deepEqual(await s.events.attemptsOfUser(user, 2), [third, second]);
    assert.deepEqual(await s.events.attemptsOfUser(await s.user(), 10), []);
  });
}

export function webhooksContract(make: MakeStores, known: KnownDrifts) {
  const hook = (userId: string, id = newWebhookId()): Webhook => ({
    id,
    userId,
    url: 'https://hooks.example/in',
    active: true,
    createdAt: new Date().toISOString(),
    secret: 'whsec_x',
  });

  scenario(make, known, 'a webhook is written only over the one read, each write the next version', async (s) => {
    const w = hook('U1');
    assert.equal(await s.webhooks.save(w, undefined), true);
    const v1 = (await s.webhooks.ofUser('U1'))!;
    assert.deepEqual(v1, { ...w, version: 1 });
    assert.equal(await s.webhooks.ownerOf(w.id), 'U1');
    assert.equal(await s.webhooks.save({ ...w, url: 'https://hooks.example/other' }, undefined), false, 'one was there already');
    const rotated = { ...v1, secret: 'whsec_y' };
    assert.equal(await s.webhooks.save(rotated, v1), true);
    assert.equal(await s.webhooks.save({ ...v1, secret: 'whsec_z' }, v1), false, 'a write from a stale read');
    assert.deepEqual(await s.webhooks.ofUser('U1'), { ...rotated, version: 2 });
    assert.equal(await s.webhooks.ofUser('U2'), undefined);
    assert.equal(await s.webhooks.ownerOf(newWebhookId()), undefined);
  });

  scenario(make, known, 'a webhook is deleted only while it is the one named; its id then has no owner', async (s) => {
    const w = hook('U1');
    await s.webhooks.save(w, undefined);
    assert.equal(await s.webhooks.delete({ id: newWebhookId(), userId: 'U1' }), false);
    assert.equal(await s.webhooks.delete({ id: w.id, userId: 'U2' }), false, "another user's");
    assert.ok(await s.webhooks.ofUser('U1'));
    assert.equal(await s.webhooks.delete({ id: w.id, userId: 'U1' }), true);
    assert.equal(await s.webhooks.ofUser('U1'), undefined);
    assert.equal(await s.webhooks.ownerOf(w.id), undefined);
    assert.equal(await s.webhooks.delete({ id: w.id, userId: 'U1' }), false, 'deleted once');
    // Registered anew after the deletion: a first write again.
    assert.equal(await s.webhooks.save(hook('U1'), undefined), true);
  });
}

export function filesContract(make: MakeStores, known: KnownDrifts) {
  // presign is not in the contract: only S3's link can be fetched (test/integration/download-links.test.ts does).
  scenario(make, known, "an order's files are there once written, and deleted together, no other order's with them", async (s) => {
    const [a, b] = ['vid_01kfa00000000000000000000a', 'vid_01kfa00000000000000000000b'];
    assert.equal(await s.files.exists(a, 'video'), false);
    await s.files.put(a, 'video', Buffer.from('mp4'));
    await s.files.put(a, 'pack', '{"title":"t"}');
    await s.files.put(b, 'video', Buffer.from('mp4'));
    assert.deepEqual([await s.files.exists(a, 'video'), await s.files.exists(a, 'pack'), await s.files.exists(a, 'cover')], [true, true, false]);
    assert.equal(await s.files.deleteAll(a), 2);
    assert.deepEqual([await s.files.exists(a, 'video'), await s.files.exists(b, 'video')], [false, true]);
    assert.equal(await s.files.deleteAll(a), 0);
  });
}
