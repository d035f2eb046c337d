import * as z from 'zod/mini';
import { pageLimit } from './orders.ts';
import { timestamp } from './zod.ts';

/** GET /balance. heavy_videos_left appears only for users with a plan. */
export const balanceResponse = z.object({
  balance: z.int(),
  trial_videos_left: z.int(),
  plan: z.optional(z.string()),
  heavy_videos_left: z.optional(z.int()),
});
export type BalanceResponse = z.infer<typeof balanceResponse>;

/** The kinds of ledger entries a client sees. */
export const transactionKind = z.enum(['charge', 'refund', 'top_up', 'trial', 'plan_allowance']);

/** One entry of the ledger: a change of the balance, or a trial video or plan allowance taken or given back. */
export const transaction = z.object({
  id: z.string(),
  /** charge: doubloons for an order; trial: a trial video paid the base; plan_allowance: the plan's monthly allowance paid the heavy extras; refund: what a failed or canceled order took, given back; top_up. */
  kind: transactionKind,
  /** Doubloons: negative for a charge, positive for a refund or a top-up (0 when a trial video or the allowance paid it all). */
  amount: z.int(),
  /** The balance after this entry: the entry before it's (as listed) plus this amount. */
  balance_after: z.int(),
  order_id: z.optional(z.string()),
  /** A refund's reason: the order's error code. */
  reason: z.optional(z.string()),
  created_at: timestamp,
});
export type Transaction = z.infer<typeof transaction>;

/** GET /balance/transactions (additive): the ledger, newest first. */
export const transactionList = z.object({ data: z.array(transaction), has_more: z.boolean(), next_starting_after: z.optional(z.string()) });

/** Its query. */
export const listTransactionsQuery = z.strictObject({
  limit: pageLimit,
  starting_after: z.optional(z.string().check(z.regex(/^txn_[0-9a-hjkmnp-tv-z]{26}$/, 'must be a transaction id (txn_...)'))),
});
