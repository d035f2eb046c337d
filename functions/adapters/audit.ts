/** Where the audit sweep's walks stand, kept between runs in one small item (written once a run). */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AuditCursor } from '../core/sweep.ts';
import { keys } from './keys.ts';

export class AuditCursors {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async load(): Promise<AuditCursor> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.auditCursor, ConsistentRead: true }));
    return {
      ...(typeof out.Item?.orders === 'string' ? { orders: out.Item.orders } : {}),
      ...(typeof out.Item?.events === 'string' ? { events: out.Item.events } : {}),
      ...(typeof out.Item?.deadlines === 'number' ? { deadlines: out.Item.deadlines } : {}),
    };
  }

  async save(cursor: AuditCursor): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.auditCursor, ...cursor, at: new Date().toISOString() } }));
  }
}
