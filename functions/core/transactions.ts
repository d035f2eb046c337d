/**
 * GET /balance/transactions: the ledger as the client sees it, newest first, a page at a time. Each entry keeps the
 * balance after it, written with it: every ledger write follows the user's ledger head (how many entries it holds and
 * the balance after the last) and is committed only while that head is still the one it read, so the entries form one
 * sequence in commit order and a page needs no other entry to show its balances.
 */
import type { Transaction } from '../contract/balance.ts';
import type { AccountStore } from './ports.ts';
import type { RetryPolicy } from './retry.ts';

/** An entry of a user's ledger, as stored. */
export interface LedgerEntry {
  amount: number;
  kind: 'top_up' | 'charge' | 'refund';
  orderId?: string;
  trial?: boolean;
  /** The order's heavy extras were taken from the plan's monthly allowance (given back with its refund). */
  allowance?: boolean;
  /** A refund's reason: the order's error code (`canceled`, `generation_failed`, ...). */
  reason?: string;
  /** The balance once this entry was committed: the entry before it's plus this amount. */
  balanceAfter: number;
  createdAt: string;
}

/** An entry with its id (core/ids.ts `ledgerEntryId`: its place in the ledger, then random bits). */
export type LedgerLine = LedgerEntry & { id: string };

/**
 * Ledger writes tried while the head moves on (each loss means another write of the user's committed): bounded by the
 * user's concurrent writes, a few dozen at most, with a short jittered pause (below 1, 2, 4 ... 16 ms) so that writers
 * that lost together do not meet again at once.
 */
export const LEDGER_MOVED: RetryPolicy = { attempts: 50, baseMs: 1, capMs: 16 };
/** Writes of the user item tried while another transaction holds it, backed off. */
export const ACCOUNT_CONFLICTS: RetryPolicy = { attempts: 12, baseMs: 10, capMs: 400 };

/** Where a user's ledger stands: the entries it holds (the last one's place) and the balance after the last. */
export interface LedgerHead {
  seq: number;
  balance: number;
}

/** The entry that follows `head`: its place and the balance after it. */
export const nextEntry = (head: LedgerHead, entry: Omit<LedgerEntry, 'balanceAfter'>): { seq: number; entry: LedgerEntry } => ({
  seq: head.seq + 1,
  entry: { ...entry, balanceAfter: head.balance + entry.amount },
});

export const transactionId = (entryId: string) => `txn_${entryId.toLowerCase()}`;
/** The entry id a cursor (a transaction id) names. */
export const entryIdOf = (transaction: string) => transaction.slice('txn_'.length).toUpperCase();

/** What the client calls an entry: a charge paid by a trial video or the plan's allowance says so. */
const kindOf = (l: LedgerLine): Transaction['kind'] => (l.kind !== 'charge' ? l.kind : l.trial ? 'trial' : l.allowance ? 'plan_allowance' : 'charge');

/**
 * One page of the key's ledger, read as one bounded query. A cursor not in the ledger (another key's, say) starts
 * after the entries at or newer than it, as ids sort.
 */
export async function transactionsPage(
  ledger: Pick<AccountStore, 'ledgerPage'>,
  userId: string,
  q: { limit: number; startingAfter?: string },
): Promise<{ data: Transaction[]; hasMore: boolean; next?: string }> {
  const page = await ledger.ledgerPage(userId, { limit: q.limit, ...(q.startingAfter ? { below: entryIdOf(q.startingAfter) } : {}) });
  const data = page.lines.map(
    (l): Transaction => ({
      id: transactionId(l.id),
      kind: kindOf(l),
      amount: l.amount,
      balance_after: l.balanceAfter,
      ...(l.orderId ? { order_id: l.orderId } : {}),
      ...(l.reason ? { reason: l.reason } : {}),
      created_at: l.createdAt,
    }),
  );
  return { data, hasMore: page.more, ...(page.more && data.length ? { next: data.at(-1)!.id } : {}) };
}
