/** The user's webhook and the id -> owner item that tells 403 from 404. */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Webhook, WebhookStore } from '../core/webhooks.ts';
import { recordOf } from './dynamo.ts';
import { keys } from './keys.ts';

export class Webhooks implements WebhookStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async ofUser(userId: string): Promise<Webhook | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.webhookOfUser(userId), ConsistentRead: true }));
    return out.Item ? recordOf<Webhook>(out.Item) : undefined;
  }

  async ownerOf(webhookId: string): Promise<string | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.webhookOwner(webhookId), ConsistentRead: true }));
    return out.Item?.userId as string | undefined;
  }

  async save(w: Webhook): Promise<void> {
    await this.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { ...keys.webhookOfUser(w.userId), ...w } } },
          { Put: { TableName: this.tableName, Item: { ...keys.webhookOwner(w.id), userId: w.userId } } },
        ],
      }),
    );
  }

  async delete(w: { id: string; userId: string }): Promise<void> {
    await this.ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: this.tableName, Key: keys.webhookOfUser(w.userId) } },
          { Delete: { TableName: this.tableName, Key: keys.webhookOwner(w.id) } },
        ],
      }),
    );
  }
}
