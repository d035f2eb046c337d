/**
 * The key's assets in the single table: the asset in its user's partition (GET /assets reads these newest first) and
 * the id -> owner item that tells 403 from 404, written and deleted together, both with the asset's TTL.
 */
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Asset, AssetCheck, AssetStore } from '../core/assets.ts';
import type { Budget } from '../core/limits.ts';
import { writeIf, queryAll, transactPastConflicts, getRecord, windowCountUpdate } from './dynamo.ts';
import { assetOf } from './records.ts';
import { expiresAt, isHeld, ITEM, inPartition, keys, TABLE_KEYS } from './keys.ts';

export class Assets implements AssetStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(asset: Asset, budget: Budget): Promise<boolean> {
    const { expiresAt: until, ...fields } = asset;
    const ttl = expiresAt(new Date(until));
    const { window, limit, owner } = budget;
    const cancelled = await transactPastConflicts(this.ddb, [
      ['asset', { Put: { TableName: this.tableName, Item: { ...keys.asset(asset.userId, asset.id), ...fields, ...ttl }, ConditionExpression: ITEM.isNew } }],
      ['owner', { Put: { TableName: this.tableName, Item: { ...keys.assetOwner(asset.id), userId: asset.userId, ...ttl }, ConditionExpression: ITEM.isNew } }],
      ['budget', { Update: windowCountUpdate(this.tableName, keys.assetBudget(owner, window.start), window.end, limit) }],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('budget')) return false;
    throw cancelled.error;
  }

  async get(userId: string, assetId: string, now: Date): Promise<Asset | undefined> {
    const item = await getRecord(this.ddb, this.tableName, keys.asset(userId, assetId), (i) => i);
    // TTL deletes lazily: an expired asset may still be read, and is gone all the same.
    return item && isHeld(item, now) ? assetOf(item) : undefined;
  }

  async ownerOf(assetId: string, now: Date): Promise<string | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.tableName, Key: keys.assetOwner(assetId), ConsistentRead: true }));
    return out.Item && isHeld(out.Item, now) ? (out.Item.userId as string) : undefined;
  }

  async ofUser(userId: string, range: { below?: string; limit: number }, now: Date): Promise<{ assets: Asset[]; more: boolean }> {
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :below',
        ExpressionAttributeNames: { '#pk': TABLE_KEYS.pk, '#sk': TABLE_KEYS.sk },
        // '~' sorts after every id; the cursor's own asset is dropped below.
        ExpressionAttributeValues: { ':pk': keys.userPartition(userId), ':from': keys.assetSk('ast_'), ':below': keys.assetSk(range.below ?? 'ast_~') },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: range.limit + 2,
      }),
    );
    const held = (out.Items ?? []).filter((i) => isHeld(i, now) && i.id !== range.below).map(assetOf);
    return { assets: held.slice(0, range.limit), more: held.length > range.limit || (out.LastEvaluatedKey !== undefined && held.length === range.limit) };
  }

  async recordCheck(asset: Asset, check: AssetCheck): Promise<void> {
    await writeIf(
      this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.asset(asset.userId, asset.id),
          UpdateExpression: 'SET #check = :check',
          ConditionExpression: ITEM.exists,
          ExpressionAttributeNames: { '#check': 'check' },
          ExpressionAttributeValues: { ':check': check },
        }),
      ),
    );
  }

  async delete(asset: Pick<Asset, 'id' | 'userId'>): Promise<boolean> {
    const cancelled = await transactPastConflicts(this.ddb, [
      ['asset', { Delete: { TableName: this.tableName, Key: keys.asset(asset.userId, asset.id), ConditionExpression: ITEM.exists } }],
      ['owner', { Delete: { TableName: this.tableName, Key: keys.assetOwner(asset.id) } }],
    ]);
    if (!cancelled) return true;
    if (cancelled.failed('asset')) {
      // Gone already (or expired and deleted by TTL): its owner item may be left.
      await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: keys.assetOwner(asset.id) }));
      return false;
    }
    throw cancelled.error;
  }

  async idsOfUser(userId: string): Promise<string[]> {
    const items = await queryAll(this.ddb, {
      TableName: this.tableName,
      ...inPartition(keys.userPartition(userId), keys.assetPrefix),
      ProjectionExpression: 'id',
      ConsistentRead: true,
    });
    return items.map((i) => String(i.id));
  }
}
