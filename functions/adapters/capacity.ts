/**
 * Render slots and the orders waiting for one, in the single table, by shard: a slot per partition, a shard's waits
 * in its own partitions and its state in its own item (core/capacity.ts); the wake-up of a wait through Step Functions.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  CHANNELS,
  type Claim,
  type Lane,
  type NewWait,
  placeOf,
  type Placed,
  slotsOf,
  START_AT_ADMISSION,
  type CapacityStore,
  type QueuePlace,
  type Recount,
  emptyShardState,
  type ShardState,
  type Slot,
  type Waiter,
  type Wakeup,
} from '../core/capacity.ts';
import { Contended } from '../core/errors.ts';
import { AGAIN, type RetryPolicy, untilDone } from '../core/retry.ts';
import type { ShardReader } from '../core/eta.ts';
import type { Channel, Order } from '../core/orders.ts';
import { sdk } from './aws.ts';
import { isGoneToken } from './workflow.ts';
import { batchGet, Cancelled, queryAll, type TransactItem, transact, transactPastConflicts, writeIf, writePastConflicts, updateExpression } from './dynamo.ts';
import { slotOf, waiterOf } from './records.ts';
import { inPartition, keys, TABLE_KEYS } from './keys.ts';
import { present } from '../core/present.ts';

/** The state item's counter attributes, per channel. */
const issuedOf = (channel: Channel) => `issued_${channel}`;
const servedOf = (channel: Channel) => `served_${channel}`;
const headsIssuedOf = (channel: Channel) => `headsIssued_${channel}`;
const headsServedOf = (channel: Channel) => `headsServed_${channel}`;
/** A channel's recount mark (core's RecountMark): the tickets it counted, and when. */
const markOf = (channel: Channel) => `mark_${channel}`;
const markAtOf = (channel: Channel) => `markAt_${channel}`;
/** Tries of a wait whose transaction another writer's held (a cancel of the same order, a claim of its wait). */
export const WAIT_LOSSES: RetryPolicy = { attempts: 8, baseMs: 10 };

function stateOf(item: Record<string, unknown> | undefined): ShardState {
  const s = emptyShardState();
  if (!item) return s;
  const num = (k: string) => Number(item[k] ?? 0);
  s.botRun = num('botRun');
  for (const c of CHANNELS) {
    s.issued[c] = num(issuedOf(c));
    s.served[c] = num(servedOf(c));
    s.headsIssued[c] = num(headsIssuedOf(c));
    s.headsServed[c] = num(headsServedOf(c));
    if (item[markOf(c)] !== undefined) s.marks[c] = { issued: num(markOf(c)), atMs: num(markAtOf(c)) };
  }
  s.busy = num('busy');
  s.busyVideoSeconds = num('busyVideoSeconds');
  s.busySinceMs = num('busySinceMs');
  if (item.rate !== undefined) s.rate = Number(item.rate);
  return s;
}

/** A shard state's update: counters added (ADD), values set (SET), with an optional condition on its attributes. */
function stateUpdate(
  tableName: string,
  lane: Lane,
  shard: number,
  add: Record<string, number>,
  set: Record<string, unknown> = {},
  condition?: { expr: string; names: Record<string, string>; values: Record<string, unknown> },
) {
  const names: Record<string, string> = { ...condition?.names };
  const values: Record<string, unknown> = { ...condition?.values };
  const adds = Object.entries(add).map(([k, v], i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = v;
    return `#a${i} :a${i}`;
  });
  const sets = Object.entries(set).map(([k, v], i) => {
    names[`#s${i}`] = k;
    values[`:s${i}`] = v;
    return `#s${i} = :s${i}`;
  });
  return {
    TableName: tableName,
    Key: keys.queueState(shard, lane),
    UpdateExpression: updateExpression(sets, adds),
    ...(condition ? { ConditionExpression: condition.expr } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** The condition that a state attribute is still `value` as read (never written reads as 0). */
const still = (attribute: string, value: number, tag = 'c') => ({
  expr: value === 0 ? `(attribute_not_exists(#${tag}) OR #${tag} = :${tag})` : `#${tag} = :${tag}`,
  names: { [`#${tag}`]: attribute },
  values: { [`:${tag}`]: value } as Record<string, unknown>,
});

/** Conditions of one item (each with a placeholder of its own), all to hold. */
const both = (...cs: (ReturnType<typeof still> | undefined)[]) => {
  const all = cs.filter((c) => c !== undefined);
  return {
    expr: all.map((c) => c.expr).join(' AND '),
    names: Object.assign({}, ...all.map((c) => c.names)),
    values: Object.assign({}, ...all.map((c) => c.values)),
  };
};

/** A held slot's share of its shard's busy counters, signed. */
const busyOf = (s: Pick<Slot, 'since' | 'videoSeconds'>, sign: 1 | -1): Record<string, number> => ({
  busy: sign,
  busyVideoSeconds: sign * (s.videoSeconds ?? 0),
  busySinceMs: sign * (s.since ? Date.parse(s.since) : 0),
});

/** Two counter sets of one item as one. */
function sum(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** A key's waits in a shard's channel, as its item (keys.queueKey) says: how many, and which is its head. */
export interface KeyState {
  n: number;
  head?: { orderId: string; number: number };
}

export function keyStateOf(item: Record<string, unknown> | undefined): KeyState {
  if (!item) return { n: 0 };
  const n = Number(item.n ?? 0);
  return item.head === undefined ? { n } : { n, head: { orderId: String(item.head), number: Number(item.headNumber) } };
}

/** The condition that a key's item is as read (never written reads as no wait, no head). */
function keyAsRead(kx: KeyState) {
  return kx.n === 0 && !kx.head
    ? { expr: 'attribute_not_exists(#n) OR (#n = :n AND attribute_not_exists(head))', values: { ':n': 0 } }
    : kx.head
      ? { expr: '#n = :n AND head = :head', values: { ':n': kx.n, ':head': kx.head.orderId } }
      : { expr: '#n = :n AND attribute_not_exists(head)', values: { ':n': kx.n } };
}

/** Whether a wait of this key, as its item reads, is its key's head: the key has none waiting. */
export const headOfKey = (kx: KeyState) => kx.n === 0 && !kx.head;

/** A new wait as its counters' update (ticketUpdate's answer) and its key's item as read make it. */
export function takenWait(w: NewWait, kx: KeyState, counted: Record<string, unknown>): Waiter {
  const ticket = Number(counted[issuedOf(w.channel)]);
  return { ...w, ticket, ...(headOfKey(kx) ? { head: Number(counted[headsIssuedOf(w.channel)]) } : { behind: kx.n }) };
}

/**
 * The key of a wait's item: a head's by its number, a parked one's by its key. A wait recorded before the rotation
 * (records.ts reads its key as its order id) keeps its bare order id, so it is still admitted or forgotten.
 */
export const waitKey = (w: Pick<Waiter, 'shard' | 'channel' | 'key' | 'orderId' | 'head'>, lane: Lane) =>
  w.head !== undefined
    ? keys.waitingHead(w.shard, w.channel, w.head, w.orderId, lane)
    : w.key === w.orderId
      ? { PK: keys.waitingPartition(w.shard, w.channel, lane), SK: w.orderId }
      : keys.waitingParked(w.shard, w.channel, w.key, w.orderId, lane);

/**
 * A new wait's items, for the key's waits as read: the wait (its key's head when the key had none, else parked) and
 * the key's item counting it, written only while the key's item is as read.
 */
export function waitItems(tableName: string, w: Waiter, kx: KeyState, lane: Lane = 'live'): [string, TransactItem][] {
  const read = keyAsRead(kx);
  const head = w.head !== undefined;
  return [
    ['waiter', { Put: { TableName: tableName, Item: { ...waitKey(w, lane), ...w }, ConditionExpression: `attribute_not_exists(${TABLE_KEYS.pk})` } }],
    [
      'key',
      {
        Update: {
          TableName: tableName,
          Key: keys.queueKey(w.shard, w.channel, w.key, lane),
          UpdateExpression: head ? 'SET #n = :one, head = :id, headNumber = :number' : 'SET #n = :more',
          ConditionExpression: read.expr,
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ...read.values, ...(head ? { ':one': 1, ':id': w.orderId, ':number': w.head } : { ':more': kx.n + 1 }) },
        },
      },
    ],
  ];
}

/**
 * The next ticket of a shard's channel (and, for a key's head, the next head number): its counters, added to in place
 * and read back, so that waits of one shard take tickets at once, none ever refused for another's (a read and a
 * condition would let one commit at a time).
 */
export function ticketUpdate(tableName: string, shard: number, channel: Channel, lane: Lane = 'live', head = false) {
  return {
    ...stateUpdate(tableName, lane, shard, { [issuedOf(channel)]: 1, ...(head ? { [headsIssuedOf(channel)]: 1 } : {}) }),
    ReturnValues: 'UPDATED_NEW' as const,
  };
}

/** A ticket handed out but never used for a wait: counted served (a head's too), so that the counters stay exact. */
export function ticketBack(tableName: string, shard: number, channel: Channel, lane: Lane = 'live', head = false) {
  return stateUpdate(tableName, lane, shard, { [servedOf(channel)]: 1, ...(head ? { [headsServedOf(channel)]: 1 } : {}) });
}

/** A new order's place in the queue, while it is still queued, and the end of its unstarted marker (core's enqueue). */
export function placeItems(tableName: string, order: Pick<Order, 'id' | 'queueShard'>, place: QueuePlace): [string, TransactItem][] {
  return [
    [
      'order',
      {
        Update: {
          TableName: tableName,
          Key: keys.order(order.id),
          UpdateExpression: 'SET queuePlace = :place',
          ConditionExpression: '#s = :queued',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':place': place, ':queued': 'queued' },
        },
      },
    ],
    ['unstarted', { Delete: { TableName: tableName, Key: keys.unstartedOrder(order.queueShard, order.id) } }],
  ];
}

export class Capacity implements CapacityStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Whose slots, waits and state: each lane's are items of their own (keys.ts). */
    private readonly lane: Lane = 'live',
  ) {}

  /** Items by key, in batches of 100. */
  private async items(list: Record<string, string>[]): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < list.length; i += 100) out.push(...(await batchGet(this.ddb, this.tableName, list.slice(i, i + 100))));
    return out;
  }

  async slots(ns: readonly number[]): Promise<Slot[]> {
    const items = await this.items(ns.map((n) => keys.slot(n, this.lane)));
    const byPk = new Map(items.map((i) => [String(i[TABLE_KEYS.pk]), i]));
    // A slot never held has no item: free.
    return ns.map((n) => {
      const item = byPk.get(keys.slot(n, this.lane).PK);
      return item ? slotOf(item, n) : { n };
    });
  }

  async states(shards: readonly number[]): Promise<ShardState[]> {
    const items = await this.items(shards.map((k) => keys.queueState(k, this.lane)));
    const byPk = new Map(items.map((i) => [String(i[TABLE_KEYS.pk]), i]));
    return shards.map((k) => stateOf(byPk.get(keys.queueState(k, this.lane).PK)));
  }

  async head(shard: number, channel: Channel): Promise<Waiter | undefined> {
    // Heads sort first (A#), by number; a parked wait comes up only when no head is left.
    const out = await this.ddb.send(
      new QueryCommand({ TableName: this.tableName, ...inPartition(keys.waitingPartition(shard, channel, this.lane)), Limit: 1, ConsistentRead: true }),
    );
    const item = out.Items?.[0];
    return item ? waiterOf(item) : undefined;
  }

  /** A key's waits in a shard's channel, read strongly consistent. */
  private async keyState(shard: number, channel: Channel, key: string): Promise<KeyState> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.queueKey(shard, channel, key, this.lane), ConsistentRead: true }));
    return keyStateOf(out.Item);
  }

  /**
   * An order's wait, read strongly consistent: parked, else its key's head. In that order, since a promotion moves a
   * parked wait to its head in one transaction: a parked wait not found was never there or is the head by the time
   * the key's item is read (else it is gone). Read the other way, a promotion in between would hide it.
   */
  async waiter(shard: number, channel: Channel, orderId: string, key: string): Promise<Waiter | undefined> {
    return (await this.lookup(shard, channel, orderId, key)).found;
  }

  /** `waiter`'s reads, with its key's item when it read it (a wait not parked), so its caller does not read it twice. */
  private async lookup(shard: number, channel: Channel, orderId: string, key: string): Promise<{ found?: Waiter; kx?: KeyState }> {
    const get = async (Key: Record<string, string>) => (await this.ddb.send(new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }))).Item;
    const parked = await get(keys.waitingParked(shard, channel, key, orderId, this.lane));
    if (parked) return { found: waiterOf(parked) };
    const kx = await this.keyState(shard, channel, key);
    if (kx.head?.orderId !== orderId) return { kx };
    const head = await get(keys.waitingHead(shard, channel, kx.head.number, orderId, this.lane));
    return head ? { found: waiterOf(head), kx } : { kx };
  }

  async wait(w: NewWait): Promise<Placed> {
    return untilDone(
      WAIT_LOSSES,
      async () => {
        // The same order waiting already (a wait run again): the new token, the same place.
        const { found: before, kx: read } = await this.lookup(w.shard, w.channel, w.orderId, w.key);
        if (before) {
          const out = await this.ddb
            .send(
              new UpdateCommand({
                TableName: this.tableName,
                Key: waitKey(before, this.lane),
                UpdateExpression: 'SET #token = :token, since = :since',
                ConditionExpression: `attribute_exists(${TABLE_KEYS.pk})`,
                ExpressionAttributeNames: { '#token': 'token' },
                ExpressionAttributeValues: { ':token': w.token, ':since': w.since },
                ReturnValues: 'ALL_NEW',
              }),
            )
            .catch((err: Error) => {
              if (err.name !== 'ConditionalCheckFailedException') throw err;
            });
          // Moved meanwhile (promoted, or admitted): read again.
          return out ? placeOf(waiterOf(out.Attributes!)) : AGAIN;
        }
        // Not waiting: the key's item was read after the parked wait was not found.
        const kx = read!;
        // Its wait recorded meanwhile as its key's head: read again.
        if (kx.head?.orderId === w.orderId) return AGAIN;
        const recorded = await this.record(w, kx, () => []);
        // This order's wait was recorded meanwhile, or the key's waits moved, or another transaction held an item.
        return recorded instanceof Cancelled ? AGAIN : recorded;
      },
      () => this.lost(w),
    );
  }

  async enqueue(w: NewWait, order: Pick<Order, 'id' | 'queueShard'>): Promise<Placed | undefined> {
    const T = this.tableName;
    return untilDone(
      WAIT_LOSSES,
      async () => {
        const kx = await this.keyState(w.shard, w.channel, w.key);
        // Its wait recorded already, as its key's head, by an earlier try whose answer was lost.
        if (kx.head?.orderId === w.orderId) return undefined;
        const recorded = await this.record(w, kx, (place) => placeItems(T, order, { shard: w.shard, ...place }));
        if (!(recorded instanceof Cancelled)) return recorded;
        // Closed first (canceled), or its wait recorded already (parked) by an earlier try: nothing to do.
        return recorded.failed('order') || recorded.failed('waiter') ? undefined : AGAIN;
      },
      () => this.lost(w),
    );
  }

  private lost(w: NewWait) {
    return new Contended(`render queue shard ${w.shard}: the wait of ${w.orderId} lost ${WAIT_LOSSES.attempts} times to other writers`);
  }

  /**
   * A new wait with its shard's next ticket, its key's head when the key's item (as read) says none waits, else parked,
   * and the items `also` makes for its place, in one transaction. Its place; else the cancellation (the wait was
   * recorded meanwhile, the key's waits moved, an item of `also` failed its condition, or another transaction held an
   * item), read by the caller, and the ticket given back.
   */
  private async record(w: NewWait, kx: KeyState, also: (place: Placed) => [string, TransactItem][]): Promise<Placed | Cancelled<string>> {
    const T = this.tableName;
    const head = headOfKey(kx);
    const counted = await writePastConflicts('the render queue shard counter', async () => {
      const out = await this.ddb.send(new UpdateCommand(ticketUpdate(T, w.shard, w.channel, this.lane, head)));
      return out.Attributes!;
    });
    const waiter = takenWait(w, kx, counted);
    const place = placeOf(waiter);
    const extra = also(place);
    const cancelled = await transact(this.ddb, [...waitItems(T, waiter, kx, this.lane), ...extra]);
    if (!cancelled) return place;
    // A process that dies here, or a transaction that throws, leaves the shard counting one wait too many: one more
    // place in the eta of the orders after it, until the sweep's recount finds it (docs/decisions.md, "Render queue at scale").
    await writePastConflicts('the render queue shard counter', () => this.ddb.send(new UpdateCommand(ticketBack(T, w.shard, w.channel, this.lane, head))));
    if (cancelled.failed('waiter') || cancelled.failed('key') || cancelled.conflict || extra.some(([name]) => cancelled.failed(name))) return cancelled;
    throw cancelled.error;
  }

  /**
   * The writes of a wait that leaves (admitted, or forgotten): its item deleted while it waits (with this token, when
   * given), its key's item counting one less, and, when it was its key's head and the key has more waiting, the key's
   * oldest parked wait made its head at the rotation's end. Its shard's counters to add, for the caller's state write.
   */
  private async leave(w: Waiter, token: string | undefined, queue: ShardState | undefined, asRead?: KeyState) {
    const T = this.tableName;
    const kx = asRead ?? (await this.keyState(w.shard, w.channel, w.key));
    const items: [string, TransactItem][] = [
      [
        'waiter',
        {
          Delete: {
            TableName: T,
            Key: waitKey(w, this.lane),
            ...(token !== undefined
              ? { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': token } }
              : { ConditionExpression: `attribute_exists(${TABLE_KEYS.pk})` }),
          },
        },
      ],
    ];
    const add: Record<string, number> = { [servedOf(w.channel)]: 1, ...(w.head !== undefined ? { [headsServedOf(w.channel)]: 1 } : {}) };
    const read = keyAsRead(kx);
    const key = { TableName: T, Key: keys.queueKey(w.shard, w.channel, w.key, this.lane), ConditionExpression: read.expr };
    const names = { '#n': 'n' };
    const isHead = kx.head?.orderId === w.orderId;
    const next = isHead && kx.n > 1 ? await this.nextParked(w) : undefined;
    /** The heads handed out as read, when a promotion numbers its head from them, and the head it makes. */
    let heads: number | undefined;
    let promoted: Waiter | undefined;
    if (next) {
      const state = queue ?? (await this.states([w.shard]))[0]!;
      // The next number, while the counter is as read (the caller's state write checks it): never before a head
      // that began to wait meanwhile.
      promoted = { ...next, head: state.headsIssued[w.channel] + 1 };
      delete promoted.behind;
      add[headsIssuedOf(w.channel)] = 1;
      heads = state.headsIssued[w.channel];
      items.push(
        ['parked', { Delete: { TableName: T, Key: waitKey(next, this.lane), ConditionExpression: `attribute_exists(${TABLE_KEYS.pk})` } }],
        ['promoted', { Put: { TableName: T, Item: { ...waitKey(promoted, this.lane), ...promoted } } }],
        [
          'key',
          {
            Update: {
              ...key,
              UpdateExpression: 'SET #n = :less, head = :next, headNumber = :number',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ...read.values, ':less': kx.n - 1, ':next': next.orderId, ':number': promoted.head },
            },
          },
        ],
      );
    } else if (isHead) {
      // Its key's last wait (or, counted more with none parked, a count put right).
      items.push([
        'key',
        {
          Update: {
            ...key,
            UpdateExpression: 'SET #n = :zero REMOVE head, headNumber',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...read.values, ':zero': 0 },
          },
        },
      ]);
    } else {
      items.push([
        'key',
        {
          Update: {
            ...key,
            UpdateExpression: 'SET #n = :less',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...read.values, ':less': Math.max(0, kx.n - 1) },
          },
        },
      ]);
    }
    return { items, add, heads, promoted };
  }

  /**
   * A promoted head's new place on its order, once the transaction that promoted it committed, so that its eta counts
   * the heads ahead of it; a write of its own (an order gone or closed meanwhile only misses it), the price one write.
   */
  async place(w: Waiter): Promise<void> {
    if (w.head === undefined) return;
    await writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.order(w.orderId),
          UpdateExpression: 'SET queuePlace = :place',
          ConditionExpression: '#s IN (:queued, :running)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':place': { shard: w.shard, ticket: w.ticket, head: w.head }, ':queued': 'queued', ':running': 'running' },
        }),
      ),
    );
  }

  /** The oldest parked wait of a key in its shard's channel. */
  private async nextParked(w: Waiter): Promise<Waiter | undefined> {
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        ...inPartition(keys.waitingPartition(w.shard, w.channel, this.lane), keys.parkedPrefix(w.key)),
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? waiterOf(item) : undefined;
  }

  async unwait(shard: number, channel: Channel, orderId: string, key: string): Promise<void> {
    await untilDone(
      WAIT_LOSSES,
      async () => {
        const { found, kx } = await this.lookup(shard, channel, orderId, key);
        if (!found) return undefined;
        const { items, add, heads, promoted } = await this.leave(found, undefined, undefined, kx);
        const asRead = heads === undefined ? undefined : still(headsIssuedOf(channel), heads);
        items.push(['state', { Update: stateUpdate(this.tableName, this.lane, shard, add, {}, asRead) }]);
        const cancelled = await transact(this.ddb, items);
        if (!cancelled) return void (promoted && (await this.place(promoted)));
        // Gone meanwhile (admitted), or its key's waits moved: read again.
        if (['waiter', 'key', 'parked', 'state'].some((name) => cancelled.failed(name)) || cancelled.conflict) return AGAIN;
        throw cancelled.error;
      },
      () => new Contended(`render queue shard ${shard}: forgetting the wait of ${orderId} lost ${WAIT_LOSSES.attempts} times to other writers`),
    );
  }

  async claim(c: Claim): Promise<false | { promoted?: Waiter }> {
    const T = this.tableName;
    const w = c.waiter;
    const since = c.now.toISOString();
    const old = c.slot.holder ? c.slot : undefined;
    // The slot's shard's busy counters: this holder in, an expired one out.
    let busy = busyOf({ since, ...present({ videoSeconds: w.videoSeconds }) }, 1);
    if (old) busy = sum(busy, busyOf(old, -1));
    const left = await this.leave(w, w.token, c.queue);
    const items: [string, TransactItem][] = [
      [
        'slot',
        {
          Put: {
            TableName: T,
            Item: {
              ...keys.slot(c.slot.n, this.lane),
              holder: w.orderId,
              channel: w.channel,
              leaseUntil: c.leaseUntil.getTime(),
              since,
              ...present({ videoSeconds: w.videoSeconds }),
            },
            // Free, or still the expired holder as read (whose counts leave with it).
            ...(old
              ? { ConditionExpression: 'holder = :old AND leaseUntil < :now', ExpressionAttributeValues: { ':old': old.holder, ':now': c.now.getTime() } }
              : { ConditionExpression: 'attribute_not_exists(holder)' }),
          },
        },
      ],
      ...left.items,
      [
        'queue',
        {
          Update: stateUpdate(
            T,
            this.lane,
            w.shard,
            c.slotShard === w.shard ? sum(left.add, busy) : left.add,
            { botRun: c.streak.to },
            both(still('botRun', c.streak.from), left.heads === undefined ? undefined : still(headsIssuedOf(w.channel), left.heads, 'h')),
          ),
        },
      ],
      ['hold', { Put: { TableName: T, Item: { ...keys.slotHold(w.orderId), n: c.slot.n } } }],
    ];
    // A steal: the slot's own shard counts the holder.
    if (c.slotShard !== w.shard) items.push(['busy', { Update: stateUpdate(T, this.lane, c.slotShard, busy) }]);
    if (old?.holder) items.push(['oldHold', { Delete: { TableName: T, Key: keys.slotHold(old.holder) } }]);
    const cancelled = await transact(this.ddb, items);
    if (!cancelled) return left.promoted ? { promoted: left.promoted } : {};
    if (['slot', 'waiter', 'queue', 'key', 'parked'].some((name) => cancelled.failed(name)) || cancelled.conflict) return false;
    throw cancelled.error;
  }

  async renew(n: number, orderId: string, leaseUntil: Date): Promise<boolean> {
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.slot(n, this.lane),
          UpdateExpression: 'SET leaseUntil = :until',
          ConditionExpression: 'holder = :order',
          ExpressionAttributeValues: { ':until': leaseUntil.getTime(), ':order': orderId },
        }),
      ),
    );
  }

  async release(slot: Slot, slotShard: number, rate?: number): Promise<boolean> {
    if (!slot.holder) return false;
    const T = this.tableName;
    const cancelled = await transactPastConflicts(this.ddb, [
      [
        'slot',
        {
          Update: {
            TableName: T,
            Key: keys.slot(slot.n, this.lane),
            UpdateExpression: 'REMOVE holder, channel, leaseUntil, since, videoSeconds',
            // The holder as read, admitted when read: the counts taken out are the ones it put in.
            ConditionExpression: slot.since ? 'holder = :order AND since = :since' : 'holder = :order',
            ExpressionAttributeValues: { ':order': slot.holder, ...(slot.since ? { ':since': slot.since } : {}) },
          },
        },
      ],
      ['state', { Update: stateUpdate(T, this.lane, slotShard, busyOf(slot, -1), rate === undefined ? {} : { rate }) }],
      ['hold', { Delete: { TableName: T, Key: keys.slotHold(slot.holder) } }],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('slot')) return false;
    throw cancelled.error;
  }

  async holding(orderId: string): Promise<number | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.slotHold(orderId), ConsistentRead: true }));
    return out.Item ? Number(out.Item.n) : undefined;
  }

  async tickets(shard: number, channel: Channel): Promise<{ ticket: number; head: boolean }[]> {
    const q = inPartition(keys.waitingPartition(shard, channel, this.lane));
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...q,
      ExpressionAttributeNames: { ...q.ExpressionAttributeNames, '#t': 'ticket', '#h': 'head' },
      ProjectionExpression: '#t, #h',
      ConsistentRead: true,
    });
    return items.map((i) => ({ ticket: Number(i.ticket), head: i.head !== undefined }));
  }

  async recount(r: Recount): Promise<boolean> {
    const { channel, from, to } = r;
    const values: Record<string, unknown> = { ':to': to.served, ':toMark': to.mark.issued, ':toAt': to.mark.atMs };
    // Each attribute as read: a counter never written reads as 0, a mark never written as none.
    const is = (name: string, value: number) => {
      values[`:${name}`] = value;
      return value === 0 ? `(attribute_not_exists(#${name}) OR #${name} = :${name})` : `#${name} = :${name}`;
    };
    const conditions = [is('served', from.served)];
    if (from.issued !== undefined) conditions.push(is('issued', from.issued));
    if (from.mark) conditions.push(is('mark', from.mark.issued), is('markAt', from.mark.atMs));
    else conditions.push('attribute_not_exists(#mark)');
    const heads = from.heads && to.headsServed !== undefined;
    if (heads) {
      conditions.push(is('headsIssued', from.heads!.issued), is('headsServed', from.heads!.served));
      values[':toHeads'] = to.headsServed;
    }
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.queueState(r.shard, this.lane),
          UpdateExpression: `SET #served = :to, #mark = :toMark, #markAt = :toAt${heads ? ', #headsServed = :toHeads' : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: {
            '#served': servedOf(channel),
            '#mark': markOf(channel),
            '#markAt': markAtOf(channel),
            ...(from.issued !== undefined ? { '#issued': issuedOf(channel) } : {}),
            ...(heads ? { '#headsIssued': headsIssuedOf(channel), '#headsServed': headsServedOf(channel) } : {}),
          },
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }
}

/** Completes a slot wait's task token; false when the wait is gone. */
export class StepFunctionsWakeup implements Wakeup {
  constructor(
    private readonly sfn: () => Promise<SFNClient>,
    /** Starts the execution of an order admitted with no execution behind its wait (START_AT_ADMISSION). */
    private readonly startAdmitted: (orderId: string, slot: number) => Promise<void>,
  ) {}

  async wake(token: string, slot: number, orderId: string): Promise<boolean> {
    if (token === START_AT_ADMISSION) {
      await this.startAdmitted(orderId, slot);
      return true;
    }
    const { SendTaskSuccessCommand } = await sdk.sfn();
    try {
      await (await this.sfn()).send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify({ slot }) }));
      return true;
    } catch (err) {
      if (isGoneToken(err)) return false;
      throw err;
    }
  }
}

/**
 * The queue as eta_seconds reads it: the state items of the shards asked for, one batch (core's QueueViews asks for an
 * order's own shard and keeps it for a few seconds).
 */
export const shardReader =
  (store: Pick<CapacityStore, 'states'>, settings: { slots: number; shards: number }): ShardReader =>
  async (ks) =>
    (await store.states(ks)).map((s, i) => ({ ...s, slots: slotsOf(ks[i]!, settings.slots, settings.shards).length }));
