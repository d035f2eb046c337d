/** Recorded order events and their delivery attempts; and the delivery workflow that carries each event. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { DeleteCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DeliveryAttempt, DeliveryStatus, EventRef, EventStore, EventWorkflow, Reopened, Reopening, StoredEvent } from '../core/deliveries.ts';
import { eventExecution } from '../core/executions.ts';
import { SHARDS, shardOf } from '../core/ids.ts';
import type { ExecutionState, MarkerPage } from '../core/ports.ts';
import { executionArn, executionState, startExecution } from './workflow.ts';
import { markersPage, queryAll, transact, transactPastConflicts, windowCountUpdate, writeIf, getRecord } from './dynamo.ts';
import { deliveryAttemptOf, storedEventOf } from './records.ts';
import { expiresAt, inPartition, keys, TABLE_KEYS } from './keys.ts';

const ATTEMPT_TTL_DAYS = 30;

export class DeliveryEvents implements EventStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(orderId: string, eventId: string): Promise<StoredEvent | undefined> {
    return getRecord(this.ddb, this.tableName, keys.event(orderId, eventId), storedEventOf);
  }

  async record(event: StoredEvent, attempt: DeliveryAttempt, userId: string): Promise<boolean> {
    const cancelled = await transact(this.ddb, [
      [
        'event',
        {
          Update: {
            TableName: this.tableName,
            Key: keys.event(event.orderId, event.id),
            UpdateExpression: 'SET attempts = :n, delivery = :d, lastAttemptAt = :at',
            // One record per attempt number, even if the step runs twice.
            ConditionExpression: 'attribute_not_exists(attempts) OR attempts = :prev',
            ExpressionAttributeValues: { ':n': attempt.attempt, ':prev': attempt.attempt - 1, ':d': attempt.outcome, ':at': attempt.at },
          },
        },
      ],
      [
        'attempt',
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.deliveryAttempt(userId, attempt.at, event.id, attempt.attempt),
              ...attempt,
              ...expiresAt(new Date(Date.parse(attempt.at) + ATTEMPT_TTL_DAYS * 86_400_000)),
            },
          },
        },
      ],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('event')) return false;
    throw cancelled.error;
  }

  async settled(event: EventRef): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.pendingEvent(shardOf(event.orderId), event.id) }));
  }

  async restartAs(event: StoredEvent, execution: string): Promise<boolean> {
    return writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.event(event.orderId, event.id),
          UpdateExpression: 'SET execution = :e',
          // Only while no attempt was recorded since it was read: a delivery that moved on is alive.
          ...(event.attempts === undefined
            ? { ConditionExpression: 'attribute_not_exists(attempts)', ExpressionAttributeValues: { ':e': execution } }
            : { ConditionExpression: 'attempts = :n', ExpressionAttributeValues: { ':e': execution, ':n': event.attempts } }),
        }),
      ),
    );
  }

  async reopen(event: StoredEvent, r: Reopening): Promise<Reopened> {
    // Two resends of one key share its budget's counter: a conflict between them is tried again.
    const cancelled = await transactPastConflicts(this.ddb, [
      [
        'event',
        {
          Update: {
            TableName: this.tableName,
            Key: keys.event(event.orderId, event.id),
            UpdateExpression: 'SET delivery = :pending, lastAttempt = :last, execution = :e, resentAt = :at',
            // Only from the settled state it was read in: of two resends one reopens it.
            ConditionExpression: `delivery = :was AND ${event.attempts === undefined ? 'attribute_not_exists(attempts)' : 'attempts = :n'}`,
            ExpressionAttributeValues: {
              ':pending': 'pending',
              ':last': r.lastAttempt,
              ':e': r.execution,
              ':at': r.now.toISOString(),
              ':was': event.delivery,
              ...(event.attempts === undefined ? {} : { ':n': event.attempts }),
            },
          },
        },
      ],
      // Until its delivery settles again, the sweep keeps a workflow behind it.
      [
        'pending',
        {
          Put: {
            TableName: this.tableName,
            Item: { ...keys.pendingEvent(shardOf(event.orderId), event.id), orderId: event.orderId, eventId: event.id, at: r.now.toISOString() },
          },
        },
      ],
      // Counted in the key's hourly budget, or not reopened at all.
      ['budget', { Update: windowCountUpdate(this.tableName, keys.resends(r.budget.owner, r.budget.window.start), r.budget.window.end, r.budget.limit) }],
    ]);
    if (!cancelled) return 'reopened';
    if (cancelled.failed('event')) return 'moved';
    if (cancelled.failed('budget')) return 'over_budget';
    throw cancelled.error;
  }

  async droppedSince(userId: string, since: Date): Promise<EventRef[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      FilterExpression: 'outcome = :dropped',
      ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
      ExpressionAttributeValues: {
        ':pk': keys.userPartition(userId),
        ':from': `${keys.deliveryPrefix}${since.toISOString()}`,
        ':to': `${keys.deliveryPrefix}~`,
        ':dropped': 'dropped',
      },
      ConsistentRead: true,
    });
    const seen = new Map<string, EventRef>();
    for (const i of items) seen.set(String(i.eventId), { id: String(i.eventId), orderId: String(i.orderId) });
    return [...seen.values()];
  }

  async pendingPage(before: Date, from: string | undefined, limit: number): Promise<MarkerPage<EventRef>> {
    const page = await markersPage(this.ddb, this.tableName, keys.pendingPartition, SHARDS, 'at', before, from, limit);
    return { ...page, items: page.items.map(({ item, after }) => ({ ref: { id: String(item.eventId), orderId: String(item.orderId) }, after })) };
  }

  async mark(event: StoredEvent, delivery: DeliveryStatus): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.event(event.orderId, event.id),
        UpdateExpression: 'SET delivery = :d',
        ExpressionAttributeValues: { ':d': delivery },
      }),
    );
  }

  /** The user's most recent delivery attempts, newest first. */
  async attemptsOfUser(userId: string, limit: number): Promise<DeliveryAttempt[]> {
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        ...inPartition(keys.userPartition(userId), keys.deliveryPrefix),
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(deliveryAttemptOf);
  }
}

/** Starts the delivery workflow of an event; starting it again for the same event is a no-op. */
export class DeliveryWorkflow implements EventWorkflow {
  constructor(
    private readonly sfn: () => Promise<SFNClient>,
    private readonly stateMachineArn: () => string,
  ) {}

  async state(event: EventRef & { execution?: string }): Promise<ExecutionState> {
    return executionState(await this.sfn(), executionArn(this.stateMachineArn(), eventExecution(event)));
  }

  async start(event: EventRef & { execution?: string }): Promise<boolean> {
    const input = JSON.stringify({ orderId: event.orderId, eventId: event.id });
    return startExecution(await this.sfn(), { stateMachineArn: this.stateMachineArn(), name: eventExecution(event), input });
  }
}
