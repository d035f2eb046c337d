/** The render queue store's contract (core/capacity.ts CapacityStore): waits, tickets, admissions, leases, releases. */
import assert from 'node:assert/strict';
import type { Claim, NewWait, Waiter } from '../../functions/core/capacity.ts';
import { CHANNELS, emptyShardState, keysIn, RenderQueue, START_AT_ADMISSION, WAIT_WRITE_SECONDS, waitingIn } from '../../functions/core/capacity.ts';
import type { Channel, Order } from '../../functions/core/orders.ts';
import { after, created, type KnownDrifts, type MakeStores, MINUTE, scenario, SECOND } from './fixtures.ts';
import type { Stores } from './implementations.ts';

const T0 = new Date('2026-11-23T10:00:00Z');
/** Order ids that sort as their number does (ULIDs of one millisecond). */
const id = (n: number) => `vid_01kfa0000000000000000000${String(n).padStart(2, '0')}`;
/** Order `n`'s wait; each order its own key unless `key` is given. */
const waiter = (n: number, o: { shard?: number; channel?: Channel; token?: string; key?: string } = {}): NewWait => ({
  orderId: id(n),
  channel: o.channel ?? 'api',
  key: o.key ?? `key-${n}`,
  token: o.token ?? `token-${n}`,
  since: T0.toISOString(),
  videoSeconds: 30,
  shard: o.shard ?? 0,
});
/** The wait as recorded: a key's head (its number) or parked (its key's waits ahead). */
const recorded = (w: NewWait, ticket: number, place: { head: number } | { behind: number }): Waiter => ({ ...w, ticket, ...place });

/** Whether a claim admitted its waiter; a head it promoted gets its place on its order, as the queue writes it. */
async function admitted(s: Stores, claimed: Awaited<ReturnType<Stores['capacity']['claim']>>) {
  if (claimed && claimed.promoted !== undefined) await s.capacity.place(claimed.promoted);
  return claimed !== false;
}

/** Gives the waiting order slot `n` (free, as read) at `now`, as read from the store. */
async function claimAs(s: Stores, w: Waiter, slot: number, now: Date, more: Partial<Claim> = {}) {
  const [state] = await s.capacity.states([w.shard]);
  const [read] = await s.capacity.slots([slot]);
  return admittedBy(s, {
    slot: read!,
    slotShard: w.shard,
    waiter: w,
    leaseUntil: after(now, 10 * MINUTE),
    now,
    streak: { from: state!.botRun, to: w.channel === 'bot' ? state!.botRun + 1 : 0 },
    queue: state!,
    ...more,
  });
}
const admittedBy = async (s: Stores, c: Claim) => admitted(s, await s.capacity.claim(c));

/** Records the wait and gives the order slot `n` (free, as read) at `now`. */
async function admit(s: Stores, w: NewWait, slot: number, now: Date, more: Partial<Claim> = {}) {
  await s.capacity.wait(w);
  const waiting = await s.capacity.waiter(w.shard, w.channel, w.orderId, w.key);
  return claimAs(s, waiting!, slot, now, more);
}

export function capacityContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, 'slots never taken are free, and shards never written are empty', async (s) => {
    assert.deepEqual(await s.capacity.slots([0, 3]), [{ n: 0 }, { n: 3 }]);
    assert.deepEqual(await s.capacity.states([0, 1]), [emptyShardState(), emptyShardState()]);
    assert.equal(await s.capacity.head(0, 'api'), undefined);
    assert.equal(await s.capacity.holding(id(1)), undefined);
  });

  scenario(make, known, 'waits take the next ticket of their shard and channel; a wait again keeps its place and takes the new token', async (s) => {
    assert.deepEqual(
      [await s.capacity.wait(waiter(1)), await s.capacity.wait(waiter(2)), await s.capacity.wait(waiter(3, { channel: 'bot' }))],
      [
        { ticket: 1, head: 1 },
        { ticket: 2, head: 2 },
        { ticket: 1, head: 1 },
      ],
    );
    assert.deepEqual(await s.capacity.wait(waiter(4, { shard: 1 })), { ticket: 1, head: 1 }, 'another shard counts apart');
    assert.deepEqual(await s.capacity.wait(waiter(1, { token: 'token-1b' })), { ticket: 1, head: 1 });
    assert.deepEqual(await s.capacity.head(0, 'api'), recorded(waiter(1, { token: 'token-1b' }), 1, { head: 1 }));
    const [state] = await s.capacity.states([0]);
    assert.deepEqual(
      [state!.issued, state!.served, state!.headsIssued, state!.headsServed],
      [
        { api: 2, bot: 1 },
        { api: 0, bot: 0 },
        { api: 2, bot: 1 },
        { api: 0, bot: 0 },
      ],
    );
  });

  scenario(make, known, "a key's later waits park behind its head; the head's admission makes the next its head, at the rotation's end", async (s) => {
    const a = (n: number) => waiter(n, { key: 'A' });
    for (const n of [1, 2, 3]) await s.capacity.wait(a(n));
    assert.deepEqual(await s.capacity.wait(waiter(4, { key: 'B' })), { ticket: 4, head: 2 }, "B's first wait is its head");
    assert.deepEqual(await s.capacity.waiter(0, 'api', id(3), 'A'), recorded(a(3), 3, { behind: 2 }), 'parked behind two of its key');
    assert.deepEqual(await s.capacity.head(0, 'api'), recorded(a(1), 1, { head: 1 }));
    const later = after(T0, SECOND);
    assert.equal(await claimAs(s, (await s.capacity.head(0, 'api'))!, 0, later), true);
    // A's next is its head now, behind B's, which was there when A's head left.
    assert.deepEqual(await s.capacity.head(0, 'api'), recorded(waiter(4, { key: 'B' }), 4, { head: 2 }));
    assert.deepEqual(await s.capacity.waiter(0, 'api', id(2), 'A'), recorded(a(2), 2, { head: 3 }));
    const [state] = await s.capacity.states([0]);
    assert.deepEqual([waitingIn(state!, 'api'), keysIn(state!, 'api')], [3, 2], 'three orders of two keys wait');
    // A head forgotten (canceled) promotes its key's next too; a parked one forgotten leaves the head as it is.
    await s.capacity.unwait(0, 'api', id(3), 'A');
    assert.deepEqual(await s.capacity.waiter(0, 'api', id(2), 'A'), recorded(a(2), 2, { head: 3 }));
    await s.capacity.unwait(0, 'api', id(2), 'A');
    assert.equal(await s.capacity.waiter(0, 'api', id(2), 'A'), undefined);
    const [after2] = await s.capacity.states([0]);
    assert.deepEqual([waitingIn(after2!, 'api'), keysIn(after2!, 'api')], [1, 1], "B's head alone");
    // A key with none waiting joins again as a head by its order's arrival.
    assert.deepEqual(await s.capacity.wait(a(5)), { ticket: 5, head: 4 });
  });

  scenario(
    make,
    known,
    "a new order's enqueue: its wait with the next ticket, its place on the order and its unstarted marker gone, all at once",
    async (s) => {
      const userId = await s.user({ balance: 10_000 });
      const [first, second, canceled] = [await created(s, userId, T0), await created(s, userId, T0), await created(s, userId, T0)];
      const enqueue = (o: Order) => s.capacity.enqueue({ ...waiter(0, { key: userId }), orderId: o.id, token: START_AT_ADMISSION }, o);
      assert.deepEqual(
        [await enqueue(first), await enqueue(second)],
        [
          { ticket: 1, head: 1 },
          { ticket: 2, behind: 1 },
        ],
      );
      assert.deepEqual((await s.orders.get(second.id))!.queuePlace, { shard: 0, ticket: 2, behind: 1 });
      assert.equal((await s.capacity.head(0, 'api'))!.orderId, first.id, "the key's first, its head");
      const unstarted = (await s.orders.unstarted(after(T0, MINUTE), 10)).map((o) => o.id);
      assert.deepEqual(unstarted, [canceled.id], 'the enqueued orders are no longer the audit’s to start');
      assert.equal(await enqueue(first), undefined, 'an order that waits already is left as it is');
      assert.equal(await s.orders.transition({ order: canceled, to: 'error', now: T0 }), true);
      assert.equal(await enqueue(canceled), undefined, 'a closed order is not queued');
      assert.equal((await s.orders.get(canceled.id))!.queuePlace, undefined);
      // A refused enqueue may have taken a ticket (the adapter's counter hands it before the transaction): given back.
      const [state] = await s.capacity.states([0]);
      assert.equal(waitingIn(state!, 'api'), 2, 'the two waits, and no more');
      const third = await created(s, userId, T0);
      const { ticket } = (await enqueue(third))!;
      assert.equal(ticket - (await s.capacity.states([0]))[0]!.served.api, 3, 'the next order waits third');
      // The key's head admitted: its oldest parked order (by id; created in one millisecond, either) is its head now,
      // and its order says where it stands.
      assert.equal(await claimAs(s, (await s.capacity.head(0, 'api'))!, 0, T0), true);
      const [next] = [
        { id: second.id, ticket: 2 },
        { id: third.id, ticket },
      ].sort((a, b) => (a.id < b.id ? -1 : 1));
      assert.deepEqual((await s.orders.get(next!.id))!.queuePlace, { shard: 0, ticket: next!.ticket, head: 2 });
    },
  );

  scenario(make, known, 'the head is the first key to wait in the shard and channel; an unwait takes an order out and counts it served', async (s) => {
    for (const n of [3, 1, 2]) await s.capacity.wait(waiter(n));
    await s.capacity.wait(waiter(0, { channel: 'bot' }));
    await s.capacity.wait(waiter(0, { shard: 1 }));
    assert.equal((await s.capacity.head(0, 'api'))?.orderId, id(3), 'keys in the order they began to wait, whatever their ids');
    await s.capacity.unwait(0, 'api', id(3), 'key-3');
    assert.equal((await s.capacity.head(0, 'api'))?.orderId, id(1));
    // One not waiting there: nothing changes.
    await s.capacity.unwait(0, 'api', id(9), 'key-9');
    await s.capacity.unwait(1, 'api', id(1), 'key-1');
    const [state] = await s.capacity.states([0]);
    assert.deepEqual(
      [state!.served, state!.headsServed],
      [
        { api: 1, bot: 0 },
        { api: 1, bot: 0 },
      ],
    );
    assert.equal((await s.capacity.head(0, 'api'))?.orderId, id(1));
  });

  scenario(make, known, "an order's wait is read by its shard, channel, id and key, until its admission takes it", async (s) => {
    await s.capacity.wait(waiter(1, { token: START_AT_ADMISSION }));
    assert.deepEqual(await s.capacity.waiter(0, 'api', id(1), 'key-1'), recorded(waiter(1, { token: START_AT_ADMISSION }), 1, { head: 1 }));
    assert.deepEqual(
      [await s.capacity.waiter(0, 'bot', id(1), 'key-1'), await s.capacity.waiter(1, 'api', id(1), 'key-1'), await s.capacity.waiter(0, 'api', id(2), 'key-2')],
      [undefined, undefined, undefined],
    );
    assert.equal(await admit(s, waiter(1, { token: START_AT_ADMISSION }), 0, T0), true);
    assert.equal(await s.capacity.waiter(0, 'api', id(1), 'key-1'), undefined);
  });

  scenario(make, known, "a claim that promotes its key's next head fails when heads were handed out since its read", async (s) => {
    const a = (n: number) => waiter(n, { key: 'A' });
    for (const w of [a(1), a(2), waiter(3, { key: 'B' })]) await s.capacity.wait(w);
    const [read] = await s.capacity.states([0]);
    await s.capacity.wait(waiter(4, { key: 'C' }));
    const head = (await s.capacity.head(0, 'api'))!;
    assert.equal(await claimAs(s, head, 0, T0, { queue: read! }), false, "A's next would be numbered before C's head");
    assert.equal(await claimAs(s, head, 0, T0), true, 'read again: admitted');
    const line = [];
    for (let n = 0; n < 3; n++) {
      const next = (await s.capacity.head(0, 'api'))!;
      line.push(next.key);
      await s.capacity.unwait(0, 'api', next.orderId, next.key);
    }
    assert.deepEqual(line, ['B', 'C', 'A'], "A's next joins behind every head there was");
  });

  scenario(make, known, 'a claim gives the slot to the waiter, all at once: the slot, the wait, the counters, the hold', async (s) => {
    assert.equal(await admit(s, waiter(1), 2, T0), true);
    assert.deepEqual(await s.capacity.slots([2]), [
      { n: 2, holder: id(1), channel: 'api', leaseUntil: after(T0, 10 * MINUTE).getTime(), since: T0.toISOString(), videoSeconds: 30 },
    ]);
    assert.equal(await s.capacity.head(0, 'api'), undefined);
    assert.equal(await s.capacity.holding(id(1)), 2);
    const [state] = await s.capacity.states([0]);
    assert.deepEqual(state, {
      ...emptyShardState(),
      issued: { api: 1, bot: 0 },
      served: { api: 1, bot: 0 },
      headsIssued: { api: 1, bot: 0 },
      headsServed: { api: 1, bot: 0 },
      busy: 1,
      busyVideoSeconds: 30,
      busySinceMs: T0.getTime(),
    });
  });

  scenario(make, known, 'a claim fails, writing nothing, when the slot, the wait or the bot run moved since the read', async (s) => {
    assert.equal(await admit(s, waiter(1), 0, T0), true);
    const before = async () => [await s.capacity.slots([0, 1]), await s.capacity.states([0]), await s.capacity.head(0, 'api')];
    // Slot 0 was read free, but it is held.
    await s.capacity.wait(waiter(2));
    const two = recorded(waiter(2), 2, { head: 2 });
    const snapshot = await before();
    const queue = (snapshot[1] as ReturnType<typeof emptyShardState>[])[0]!;
    const base = { slotShard: 0, leaseUntil: T0, now: T0, queue };
    assert.equal(await admittedBy(s, { ...base, slot: { n: 0 }, waiter: two, streak: { from: 0, to: 0 } }), false);
    // The wait's token is another (its execution waits again).
    assert.equal(await admittedBy(s, { ...base, slot: { n: 1 }, waiter: { ...two, token: 'old' }, streak: { from: 0, to: 0 } }), false);
    // The shard's bot run is not the one read.
    assert.equal(await admittedBy(s, { ...base, slot: { n: 1 }, waiter: two, streak: { from: 2, to: 0 } }), false);
    // No such wait.
    assert.equal(await admittedBy(s, { ...base, slot: { n: 1 }, waiter: recorded(waiter(7), 9, { head: 9 }), streak: { from: 0, to: 0 } }), false);
    assert.deepEqual(await before(), snapshot);
    assert.equal(await s.capacity.holding(id(2)), undefined);
  });

  scenario(make, known, "a bot admission's run is written with it; the next claim must read it", async (s) => {
    assert.equal(await admit(s, waiter(1, { channel: 'bot' }), 0, T0), true);
    assert.equal((await s.capacity.states([0]))[0]!.botRun, 1);
    assert.equal(await admit(s, waiter(2, { channel: 'bot' }), 1, T0), true);
    assert.equal((await s.capacity.states([0]))[0]!.botRun, 2);
    assert.equal(await admit(s, waiter(3), 2, T0), true, 'an API admission resets it');
    assert.equal((await s.capacity.states([0]))[0]!.botRun, 0);
  });

  scenario(make, known, 'a slot whose lease ended is taken over as read; before its end it is not', async (s) => {
    assert.equal(await admit(s, waiter(1), 0, T0), true);
    const [held] = await s.capacity.slots([0]);
    const end = new Date(held!.leaseUntil!);
    await s.capacity.wait(waiter(2));
    const [queue] = await s.capacity.states([0]);
    const claim = {
      slot: held!,
      slotShard: 0,
      waiter: recorded(waiter(2), 2, { head: 2 }),
      leaseUntil: after(end, 10 * MINUTE),
      streak: { from: 0, to: 0 },
      queue: queue!,
    };
    assert.equal(await admittedBy(s, { ...claim, now: end }), false, 'the lease ends after its last millisecond');
    assert.equal(await admittedBy(s, { ...claim, now: after(end, 1) }), true);
    assert.equal((await s.capacity.slots([0]))[0]!.holder, id(2));
    assert.deepEqual([await s.capacity.holding(id(1)), await s.capacity.holding(id(2))], [undefined, 0]);
    const [state] = await s.capacity.states([0]);
    assert.deepEqual([state!.busy, state!.busyVideoSeconds, state!.busySinceMs], [1, 30, after(end, 1).getTime()], "the old holder's counts left");
  });

  scenario(make, known, 'a lease is renewed only by its holder', async (s) => {
    assert.equal(await admit(s, waiter(1), 0, T0), true);
    const later = after(T0, 30 * MINUTE);
    assert.equal(await s.capacity.renew(0, id(2), later), false);
    assert.equal(await s.capacity.renew(1, id(1), later), false, 'a slot it does not hold');
    assert.equal(await s.capacity.renew(0, id(1), later), true);
    assert.equal((await s.capacity.slots([0]))[0]!.leaseUntil, later.getTime());
  });

  scenario(make, known, 'a release frees the slot as read, takes its counts out and sets the rate; a stale one does nothing', async (s) => {
    assert.equal(await admit(s, waiter(1), 0, T0), true);
    const [held] = await s.capacity.slots([0]);
    assert.equal(await s.capacity.release({ ...held!, holder: id(2) }, 0), false);
    assert.equal(await s.capacity.release({ ...held!, since: after(T0, -SECOND).toISOString() }, 0), false, 'admitted at another time');
    assert.equal(await s.capacity.release(held!, 0, 0.75), true);
    assert.deepEqual(await s.capacity.slots([0]), [{ n: 0 }]);
    assert.equal(await s.capacity.holding(id(1)), undefined);
    const [state] = await s.capacity.states([0]);
    assert.deepEqual([state!.busy, state!.busyVideoSeconds, state!.busySinceMs, state!.rate], [0, 0, 0, 0.75]);
    assert.equal(await s.capacity.release(held!, 0), false, 'released once');
    assert.equal(await s.capacity.release({ n: 1 }, 0), false, 'a free slot');
    assert.equal(await admit(s, waiter(2), 0, T0), true, 'the freed slot is free to claim');
  });

  scenario(make, known, "a steal: the slot's own shard counts the holder, the waiter's shard its admission", async (s) => {
    const w = waiter(1, { shard: 1 });
    await s.capacity.wait(w);
    const [queue] = await s.capacity.states([1]);
    const stolen = { slot: { n: 0 }, slotShard: 0, waiter: recorded(w, 1, { head: 1 }), leaseUntil: after(T0, MINUTE), now: T0, queue: queue! };
    assert.equal(await admittedBy(s, { ...stolen, streak: { from: 0, to: 0 } }), true);
    const [own, theirs] = await s.capacity.states([0, 1]);
    assert.deepEqual([own!.busy, own!.served.api, theirs!.busy, theirs!.served.api], [1, 0, 0, 1]);
    const [held] = await s.capacity.slots([0]);
    assert.equal(await s.capacity.release(held!, 0), true);
    assert.equal((await s.capacity.states([0]))[0]!.busy, 0);
  });

  scenario(make, known, "the tickets of a shard's channel's waits are read back; a recount writes only while its counter and mark are as read", async (s) => {
    for (const n of [1, 2, 3]) await s.capacity.wait(waiter(n));
    await s.capacity.wait(waiter(4, { channel: 'bot' }));
    const ticketsOf = async (shard: number, channel: Channel) => (await s.capacity.tickets(shard, channel)).map((t) => t.ticket).sort();
    assert.deepEqual(await ticketsOf(0, 'api'), [1, 2, 3]);
    assert.deepEqual([await ticketsOf(0, 'bot'), await ticketsOf(1, 'api')], [[1], []]);
    const mark = { issued: 3, atMs: T0.getTime() };
    const at = (r: Omit<Parameters<typeof s.capacity.recount>[0], 'shard' | 'channel'>) => s.capacity.recount({ shard: 0, channel: 'api', ...r });
    assert.equal(await at({ from: { served: 1 }, to: { served: 1, mark } }), false, 'served is not as read');
    assert.equal(await at({ from: { served: 0, issued: 2 }, to: { served: 0, mark } }), false, 'issued is not as read');
    assert.equal(await at({ from: { served: 0, mark }, to: { served: 0, mark } }), false, 'a mark where none was');
    assert.equal(await at({ from: { served: 0, issued: 3 }, to: { served: 0, mark } }), true);
    const later = { issued: 3, atMs: after(T0, MINUTE).getTime() };
    assert.equal(await at({ from: { served: 0 }, to: { served: 1, mark: later } }), false, 'the mark another recount wrote');
    assert.equal(await at({ from: { served: 0, mark: { ...mark, atMs: 1 } }, to: { served: 1, mark: later } }), false, 'a mark of another time');
    assert.equal(await at({ from: { served: 0, mark }, to: { served: 1, mark: later } }), true);
    const [state] = await s.capacity.states([0]);
    assert.deepEqual([state!.issued, state!.served, state!.marks], [{ api: 3, bot: 1 }, { api: 1, bot: 0 }, { api: later }]);
  });

  /** The domain's render queue over the store, one shard, its clock `at`. */
  const queueOf = (s: Stores, at: () => Date) =>
    new RenderQueue({ store: s.capacity, wakeup: { wake: async () => true }, slots: 1, leaseSeconds: 600, botRun: 3, now: at });
  const counted = async (s: Stores) => waitingIn((await s.capacity.states([0]))[0]!, 'api');
  /** The sweep run whose turn is shard 0's API channel. */
  const API = CHANNELS.indexOf('api');

  scenario(make, known, 'a ticket counted with no wait (its write failed after it) is counted served by the recount a mark later', async (s) => {
    let now = T0;
    const queue = queueOf(s, () => now);
    await s.capacity.wait(waiter(1));
    await s.ticketOnly(waiter(2));
    await s.capacity.wait(waiter(3));
    assert.equal(await counted(s), 3, 'the ghost is counted: two wait');
    assert.equal(await queue.recount(API), 0, 'the first recount marks the tickets handed out');
    now = after(T0, WAIT_WRITE_SECONDS * SECOND - 1);
    assert.equal(await queue.recount(API), 0, 'a mark younger than a wait may take to be written is left');
    now = after(T0, WAIT_WRITE_SECONDS * SECOND);
    assert.equal(await queue.recount(API), 1, 'one ghost, counted served');
    assert.equal(await counted(s), 2);
    assert.equal(keysIn((await s.capacity.states([0]))[0]!, 'api'), 2, "the ghost's key no longer counted waiting");
    assert.deepEqual((await s.capacity.tickets(0, 'api')).map((t) => t.ticket).sort(), [1, 3]);
    now = after(now, WAIT_WRITE_SECONDS * SECOND);
    assert.equal(await queue.recount(API), 0, 'healed once');
    assert.equal(await counted(s), 2);
  });

  scenario(make, known, 'a wait written while a recount runs, before or after its mark, is never counted out', async (s) => {
    let now = T0;
    const queue = queueOf(s, () => now);
    // Its ticket before the first mark, its write just before that mark's age.
    const first = await s.ticketOnly(waiter(1));
    assert.equal(await queue.recount(API), 0);
    now = after(T0, WAIT_WRITE_SECONDS * SECOND - 1);
    await first();
    now = after(T0, WAIT_WRITE_SECONDS * SECOND);
    // Its ticket after the mark, its write after the recount that reads that mark.
    const second = await s.ticketOnly(waiter(2));
    assert.equal(await queue.recount(API), 0, 'neither counted out');
    await second();
    assert.equal(await counted(s), 2);
    // A ghost whose ticket is younger than the mark waits for the next one.
    await s.capacity.unwait(0, 'api', id(2), 'key-2');
    await s.ticketOnly(waiter(3));
    now = after(now, WAIT_WRITE_SECONDS * SECOND);
    assert.equal(await queue.recount(API), 0, 'the ghost (ticket 3) is younger than the mark: left for the next');
    assert.deepEqual([await counted(s), (await s.capacity.tickets(0, 'api')).length], [2, 1]);
    now = after(now, WAIT_WRITE_SECONDS * SECOND);
    assert.equal(await queue.recount(API), 1);
    assert.deepEqual([await counted(s), (await s.capacity.tickets(0, 'api')).length], [1, 1]);
  });
}
