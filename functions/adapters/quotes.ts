/** Quotes (POST /videos:quote): each a binding price in its user's partition, kept until its expiry (TTL). */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Quote, QuoteStore } from '../core/quote-order.ts';
import { quoteOf } from './records.ts';
import { expiresAt, isHeld, keys } from './keys.ts';

export class Quotes implements QuoteStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(q: Quote): Promise<void> {
    // The request's hash is stored as `requestHash`, its attribute since quotes were first kept (records.ts quoteOf).
    const { pricedHash, ...rest } = q;
    await this.ddb.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.quote(q.userId, q.id), ...rest, requestHash: pricedHash, ...expiresAt(new Date(q.expiresAt)) },
      }),
    );
  }

  async get(userId: string, quoteId: string, now: Date): Promise<Quote | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.quote(userId, quoteId), ConsistentRead: true }));
    if (!out.Item || !isHeld(out.Item, now)) return undefined;
    return quoteOf(out.Item);
  }
}
