/** Render slots and the orders waiting for one, in the single table; the wake-up of a wait through Step Functions. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CapacityStore, Slot, Waiter, Wakeup } from '../core/capacity.ts';
import type { QueueView } from '../core/eta.ts';
import type { Channel } from '../core/orders.ts';
import { sdk } from './aws.ts';
import { isGoneToken } from './workflow.ts';
import { queryAll, recordOf, transact, writeIf } from './dynamo.ts';
import { inPartition, keys, TABLE_KEYS } from './keys.ts';

export class Capacity implements CapacityStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async slots(count: number): Promise<Slot[]> {
    const items = await queryAll(this.ddb, { TableName: this.tableName, ...inPartition(keys.capacityPartition, keys.slotPrefix), ConsistentRead: true });
    const byN = new Map(items.map((i) => [Number(String(i[TABLE_KEYS.sk]).slice(keys.slotPrefix.length)), recordOf<Slot>(i)]));
    return Array.from({ length: count }, (_, n) => ({ ...byN.get(n), n }));
  }

  async head(channel: Channel): Promise<Waiter | undefined> {
    const out = await this.ddb.send(
      new QueryCommand({ TableName: this.tableName, ...inPartition(keys.waitingPartition(channel)), Limit: 1, ConsistentRead: true }),
    );
    const item = out.Items?.[0];
    return item ? recordOf<Waiter>(item) : undefined;
  }

  async waitingCount(channel: Channel): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.ddb.send(
        new QueryCommand({ TableName: this.tableName, ...inPartition(keys.waitingPartition(channel)), Select: 'COUNT', ExclusiveStartKey: start }),
      );
      count += out.Count ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return count;
  }

  async unwait(channel: Channel, orderId: string): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.waiting(channel, orderId) }));
  }

  async wait(w: Waiter): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.waiting(w.channel, w.orderId), ...w } }));
  }

  async claim(n: number, w: Waiter, leaseUntil: Date, now: Date, streak: { from: number; to: number }): Promise<boolean> {
    const T = this.tableName;
    const cancelled = await transact(this.ddb, [
      [
        'slot',
        {
          Put: {
            TableName: T,
            Item: {
              ...keys.slot(n),
              holder: w.orderId,
              channel: w.channel,
              leaseUntil: leaseUntil.getTime(),
              since: now.toISOString(),
              ...(w.videoSeconds !== undefined ? { videoSeconds: w.videoSeconds } : {}),
            },
            ConditionExpression: 'attribute_not_exists(holder) OR leaseUntil < :now',
            ExpressionAttributeValues: { ':now': now.getTime() },
          },
        },
      ],
      [
        'waiter',
        {
          Delete: {
            TableName: T,
            Key: keys.waiting(w.channel, w.orderId),
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': w.token },
          },
        },
      ],
      [
        'run',
        {
          Update: {
            TableName: T,
            Key: keys.admissions,
            UpdateExpression: 'SET botRun = :to',
            ConditionExpression: streak.from === 0 ? 'attribute_not_exists(botRun) OR botRun = :from' : 'botRun = :from',
            ExpressionAttributeValues: { ':from': streak.from, ':to': streak.to },
          },
        },
      ],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('slot') || cancelled.failed('waiter') || cancelled.failed('run') || cancelled.conflict) return false;
    throw cancelled.error;
  }

  async renew(n: number, orderId: string, leaseUntil: Date): Promise<boolean> {
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.slot(n),
          UpdateExpression: 'SET leaseUntil = :until',
          ConditionExpression: 'holder = :order',
          ExpressionAttributeValues: { ':until': leaseUntil.getTime(), ':order': orderId },
        }),
      ),
    );
  }

  async release(n: number, orderId: string): Promise<boolean> {
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.slot(n),
          UpdateExpression: 'REMOVE holder, channel, leaseUntil, since, videoSeconds',
          ConditionExpression: 'holder = :order',
          ExpressionAttributeValues: { ':order': orderId },
        }),
      ),
    );
  }

  async rate(): Promise<number | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.queueStats, ConsistentRead: true }));
    return out.Item?.secondsPerVideoSecond === undefined ? undefined : Number(out.Item.secondsPerVideoSecond);
  }

  async saveRate(secondsPerVideoSecond: number): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.queueStats, secondsPerVideoSecond, at: new Date().toISOString() } }));
  }

  /** The ids of a channel's waiting orders, oldest first. */
  async waitingIds(channel: Channel): Promise<string[]> {
    const items = await queryAll(this.ddb, { TableName: this.tableName, ...inPartition(keys.waitingPartition(channel)), ProjectionExpression: 'orderId' });
    return items.map((i) => String(i.orderId));
  }

  async botRun(): Promise<number> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.admissions, ConsistentRead: true }));
    return Number(out.Item?.botRun ?? 0);
  }
}

/** Completes a slot wait's task token; false when the wait is gone. */
export class StepFunctionsWakeup implements Wakeup {
  constructor(private readonly sfn: () => Promise<SFNClient>) {}

  async wake(token: string, slot: number): Promise<boolean> {
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

/** The queue as eta_seconds reads it (core's QueueViews keeps it for a few seconds per process). */
export class QueueReader {
  constructor(
    private readonly store: Capacity,
    private readonly settings: { slots: number; botRun: number; defaultSecondsPerVideoSecond: number },
  ) {}

  async read(now = Date.now()): Promise<QueueView> {
    const [slots, api, bot, rate] = await Promise.all([
      this.store.slots(this.settings.slots),
      this.store.waitingIds('api'),
      this.store.waitingIds('bot'),
      this.store.rate(),
    ]);
    return {
      slots: this.settings.slots,
      busy: slots
        .filter((s) => s.holder && (s.leaseUntil ?? 0) >= now)
        .map((s) => ({ holder: s.holder!, since: s.since ? Date.parse(s.since) : now, ...(s.videoSeconds ? { videoSeconds: s.videoSeconds } : {}) })),
      waiting: { api, bot },
      secondsPerVideoSecond: rate ?? this.settings.defaultSecondsPerVideoSecond,
      botRun: this.settings.botRun,
    };
  }
}
