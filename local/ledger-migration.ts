/**
 * Data folders from before ledger entries kept the balance after them (issue 25): their entries are keyed by a ULID
 * (the time they were written) and their user items hold no ledger count. Once, at start, each such user's entries
 * are written again in that order as the ledger's sequence, each with the balance after it, the count set on the
 * user item, and the old entries deleted. A start stopped midway does the rest at the next: the new entries' keys
 * are made from the old ones, and old entries go only once their user's count is set.
 */
import { BatchWriteCommand, type BatchWriteCommandOutput, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ledgerEntryId } from '../functions/core/ids.ts';
import { keys, TABLE_KEYS } from '../functions/adapters/keys.ts';

type Requests = NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string];

/** Migrates what needs it; the number of users whose ledger was written again. */
export async function migrateLedgers(ddb: DynamoDBDocumentClient, tableName: string): Promise<number> {
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '(#sk = :profile AND attribute_not_exists(ledgerSeq)) OR (begins_with(#sk, :ledger) AND attribute_not_exists(balanceAfter))',
        ExpressionAttributeNames: { '#sk': TABLE_KEYS.sk },
        ExpressionAttributeValues: { ':profile': keys.user('').SK, ':ledger': keys.ledgerPrefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    found.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const isLedger = (i: Record<string, unknown>) => String(i[TABLE_KEYS.sk]).startsWith(keys.ledgerPrefix);
  const old = found.filter(isLedger);
  const users = found.filter((i) => !isLedger(i));
  for (const user of users) {
    const userId = String(user.userId);
    const pk = keys.userPartition(userId);
    const entries = old.filter((e) => e[TABLE_KEYS.pk] === pk).sort((a, b) => String(a[TABLE_KEYS.sk]).localeCompare(String(b[TABLE_KEYS.sk])));
    let balance = 0;
    for (const [i, e] of entries.entries()) {
      const { [TABLE_KEYS.pk]: _pk, [TABLE_KEYS.sk]: sk, ...entry } = e;
      balance += Number(entry.amount);
      // The old id's random part: a second run writes the same keys.
      const id = ledgerEntryId(i + 1, String(sk).slice(keys.ledgerPrefix.length + 10));
      await ddb.send(new PutCommand({ TableName: tableName, Item: { ...keys.ledger(userId, id), ...entry, balanceAfter: balance } }));
    }
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.user(userId),
        UpdateExpression: 'SET ledgerSeq = :n',
        ConditionExpression: 'attribute_not_exists(ledgerSeq)',
        ExpressionAttributeValues: { ':n': entries.length },
      }),
    );
  }
  // Every old entry's user now has its count (and its entries again): the old ones go.
  for (let i = 0; i < old.length; i += 25) {
    const batch = old.slice(i, i + 25).map((e) => ({ DeleteRequest: { Key: { [TABLE_KEYS.pk]: e[TABLE_KEYS.pk], [TABLE_KEYS.sk]: e[TABLE_KEYS.sk] } } }));
    let pending: Requests | undefined = batch;
    while (pending?.length) {
      const out: BatchWriteCommandOutput = await ddb.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = out.UnprocessedItems?.[tableName];
    }
  }
  return users.length;
}
