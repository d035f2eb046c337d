/**
 * GET /balance/transactions: the ledger as the client sees it, newest first, each entry with the balance after it.
 * The balance is the sum of the ledger, so each entry's balance_after is the running sum in the ledger's order (its
 * ids are time-ordered); that needs the whole ledger, whose entries are small (its amounts, a few per order).
 */
import type { Transaction } from '../contract/balance.ts';

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
  createdAt: string;
}

/** An entry with its id: a ULID, the time it was written. */
export type LedgerLine = LedgerEntry & { id: string };

export const transactionId = (entryId: string) => `txn_${entryId.toLowerCase()}`;

/** What the client calls an entry: a charge paid by a trial video or the plan's allowance says so. */
const kindOf = (l: LedgerLine): Transaction['kind'] => (l.kind !== 'charge' ? l.kind : l.trial ? 'trial' : l.allowance ? 'plan_allowance' : 'charge');

export function transactionsPage(lines: LedgerLine[], q: { limit: number; startingAfter?: string }): { data: Transaction[]; hasMore: boolean; next?: string } {
  let balance = 0;
  const all = [...lines]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((l): Transaction => {
      balance += l.amount;
      return {
        id: transactionId(l.id),
        kind: kindOf(l),
        amount: l.amount,
        balance_after: balance,
        ...(l.orderId ? { order_id: l.orderId } : {}),
        ...(l.reason ? { reason: l.reason } : {}),
        created_at: l.createdAt,
      };
    })
    .reverse();
  // A cursor not in the ledger (another key's, say) starts after the entries at or newer than it, as ids sort.
  const from = q.startingAfter === undefined ? 0 : all.findIndex((t) => t.id < q.startingAfter!);
  const rest = from === -1 ? [] : all.slice(from);
  const data = rest.slice(0, q.limit);
  const hasMore = rest.length > q.limit;
  return { data, hasMore, ...(hasMore ? { next: data.at(-1)!.id } : {}) };
}
