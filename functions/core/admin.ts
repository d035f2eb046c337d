/** The chat bot's operations, run by operators through bin/admin.ts. */
import { Contended, InvalidParams, notFound } from './errors.ts';
import { AGAIN, type RetryPolicy, untilDone } from './retry.ts';
import type { AccountStore, FileStore, OrderStore } from './ports.ts';
import type { AssetFiles, AssetStore } from './assets.ts';
import type { WebhookStore } from './webhooks.ts';

export interface AdminPorts {
  accounts: Pick<AccountStore, 'get' | 'revokeKey' | 'deletePartition'>;
  orders: Pick<OrderStore, 'idsOfUser' | 'delete'>;
  files: Pick<FileStore, 'deleteAll'>;
  webhooks: Pick<WebhookStore, 'ofUser' | 'delete'>;
  /** The user's assets: records and bytes (an order's copies go with its files). */
  assets?: { assets: Pick<AssetStore, 'idsOfUser' | 'delete'>; files: Pick<AssetFiles, 'delete'> };
}

/** Deletions of a user's webhook while requests in flight replace it. */
const WEBHOOK_REPLACED: RetryPolicy = { attempts: 8, baseMs: 10, capMs: 200 };

/**
 * Deletes a user irrevocably: the key first (so nothing new starts), the webhook, every order with its files, the
 * assets with their bytes, then the user's partition (profile, ledger, idempotency records, counters).
 */
export async function deleteUser(p: AdminPorts, userId: string): Promise<{ orders: number; files: number }> {
  const account = await p.accounts.get(userId);
  if (!account) throw notFound('user');
  if (account.testOf) throw new InvalidParams('user', `is a test-mode account: it goes with its live account ${account.testOf}`);
  // The test-mode account first (its orders and webhook), then the live one; a run that died after the test-mode
  // account went leaves the link to an account that is not there: nothing to delete of it.
  const test = account.testAccount && (await p.accounts.get(account.testAccount)) ? await deleteAccount(p, account.testAccount) : { orders: 0, files: 0 };
  const live = await deleteAccount(p, userId);
  return { orders: test.orders + live.orders, files: test.files + live.files };
}

async function deleteAccount(p: AdminPorts, userId: string): Promise<{ orders: number; files: number }> {
  await p.accounts.revokeKey(userId);
  // A request in flight may replace it meanwhile: delete whatever is there until nothing is.
  await untilDone(
    WEBHOOK_REPLACED,
    async () => {
      const webhook = await p.webhooks.ofUser(userId);
      return webhook && !(await p.webhooks.delete(webhook)) ? AGAIN : undefined;
    },
    () => new Contended(`The webhook of user ${userId} kept changing while it was deleted; run the deletion again`),
  );
  const ids = await p.orders.idsOfUser(userId);
  let files = 0;
  for (const id of ids) {
    files += await p.files.deleteAll(id);
    await p.orders.delete(id);
  }
  for (const id of (await p.assets?.assets.idsOfUser(userId)) ?? []) {
    await p.assets!.files.delete({ id, userId });
    await p.assets!.assets.delete({ id, userId });
  }
  await p.accounts.deletePartition(userId);
  return { orders: ids.length, files };
}

export function positiveAmount(value: unknown, field: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidParams(field, 'must be a positive whole number of doubloons');
  return n;
}

/** The operator's `set-limit --monthly N|none`: a whole number of doubloons, 0 or more (0: the key may spend none), or none. */
export function spendLimitOf(value: unknown, field: string): number | undefined {
  if (value === 'none') return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isSafeInteger(n) || n < 0) {
    throw new InvalidParams(field, 'must be a whole number of doubloons, 0 or more, or none');
  }
  return n;
}
