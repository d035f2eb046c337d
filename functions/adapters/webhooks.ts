/**
 * The user's webhook and the id -> owner item that tells 403 from 404, written together; each write is conditional on
 * the user's webhook item as it was read (its version), so a write from a stale read fails.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Webhook, WebhookStore } from '../core/webhooks.ts';
import { transactPastConflicts, getRecord } from './dynamo.ts';
import { webhookOf } from './records.ts';
import { ITEM, keys } from './keys.ts';

/** The condition that the user's webhook item is still as `read` (undefined: none). */
function unchangedSince(read: Webhook | undefined): {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (!read) return { ConditionExpression: ITEM.isNew };
  // An item written before versions: it has none yet, and is still the same webhook.
  if (read.version === undefined) {
    return {
      ConditionExpression: `${ITEM.exists} AND attribute_not_exists(#v) AND #id = :id`,
      ExpressionAttributeNames: { '#v': 'version', '#id': 'id' },
      ExpressionAttributeValues: { ':id': read.id },
    };
  }
  return { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': read.version } };
}

export class Webhooks implements WebhookStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async ofUser(userId: string): Promise<Webhook | undefined> {
    return getRecord(this.ddb, this.tableName, keys.webhookOfUser(userId), webhookOf);
  }

  async ownerOf(webhookId: string): Promise<string | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.webhookOwner(webhookId), ConsistentRead: true }));
    return out.Item?.userId as string | undefined;
  }

  async save(w: Webhook, read: Webhook | undefined): Promise<boolean> {
    const cancelled = await transactPastConflicts(this.ddb, [
      [
        'webhook',
        { Put: { TableName: this.tableName, Item: { ...keys.webhookOfUser(w.userId), ...w, version: (read?.version ?? 0) + 1 }, ...unchangedSince(read) } },
      ],
      ['owner', { Put: { TableName: this.tableName, Item: { ...keys.webhookOwner(w.id), userId: w.userId } } }],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('webhook')) return false;
    throw cancelled.error;
  }

  async delete(w: { id: string; userId: string }): Promise<boolean> {
    const cancelled = await transactPastConflicts(this.ddb, [
      [
        'webhook',
        {
          Delete: {
            TableName: this.tableName,
            Key: keys.webhookOfUser(w.userId),
            ConditionExpression: '#id = :id',
            ExpressionAttributeNames: { '#id': 'id' },
            ExpressionAttributeValues: { ':id': w.id },
          },
        },
      ],
      ['owner', { Delete: { TableName: this.tableName, Key: keys.webhookOwner(w.id) } }],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('webhook')) return false;
    throw cancelled.error;
  }
}
