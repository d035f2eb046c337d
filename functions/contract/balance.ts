import * as z from 'zod/mini';
import { pageLimit, pageOf } from './orders.ts';
import { explainedEnum, timestamp } from './zod.ts';

export const balanceResponse = z
  .object({
    balance: z
      .int()
      .check(
        z.describe(
          'Doubloons on the account (1 doubloon = 1 ruble), topped up in the chat bot. An order that costs more is refused with 402 `insufficient_funds`.',
        ),
      ),
    trial_videos_left: z
      .int()
      .check(
        z.describe("Free trial videos left. Each pays an order's base price (its video carries the trial watermark); they are used first, automatically."),
      ),
    plan: z.optional(z.string().check(z.describe("The user's plan, for a user with one: `creator` (20 heavy videos a month) or `studio` (100)."))),
    heavy_videos_left: z.optional(
      z
        .int()
        .check(
          z.describe(
            "For a user with a plan: the heavy videos (a song, a cloned voice, AI visuals) the plan's allowance still pays this month (UTC calendar month).",
          ),
        ),
    ),
    livemode: z
      .boolean()
      .check(
        z.describe(
          'False for a test-mode key (`vgk_test_...`): its account has no money (balance 0, no trial videos), and its orders cost nothing. True otherwise.',
        ),
      ),
  })
  .check(
    z.meta({
      description: "The account's balance (GET /balance): doubloons, trial videos left and, for a user with a plan, the heavy videos left this month.",
      examples: [
        { balance: 830, trial_videos_left: 0, livemode: true },
        { balance: 1250, trial_videos_left: 2, plan: 'creator', heavy_videos_left: 17, livemode: true },
        { balance: 0, trial_videos_left: 0, livemode: false },
      ],
    }),
  );
export type BalanceResponse = z.infer<typeof balanceResponse>;

export const transactionKind = explainedEnum('The kind of a ledger entry.', {
  charge: 'doubloons taken for an order',
  refund: 'what a failed or canceled order took, given back (`reason`)',
  top_up: 'doubloons added in the chat bot',
  trial: 'a charge whose base price a trial video paid (its amount covers only the extras: 0 without any)',
  plan_allowance: "a charge whose heavy extras the plan's monthly allowance paid",
});

export const transaction = z
  .object({
    id: z.string().check(z.describe('The entry’s id (`txn_...`): ids sort in the order the entries were committed. Pass it as `starting_after`.')),
    kind: transactionKind.check(z.describe('What the entry is (see TransactionKind).')),
    amount: z
      .int()
      .check(z.describe('Doubloons: negative for a charge, positive for a refund or a top-up (0 when a trial video or the allowance paid it all).')),
    balance_after: z.int().check(z.describe('The balance after this entry: the older entry’s `balance_after` plus this amount.')),
    order_id: z.optional(z.string().check(z.describe('The order the entry is for (charges and refunds).'))),
    reason: z.optional(z.string().check(z.describe('A refund’s reason: the order’s error code (`canceled`, `generation_failed`, ...).'))),
    created_at: timestamp.check(z.describe('When the entry was committed.')),
  })
  .check(z.describe('One entry of the ledger: a change of the balance, or a trial video or plan allowance taken or given back.'));
export type Transaction = z.infer<typeof transaction>;

export const transactionList = pageOf(transaction, 'entries', 'A page of the key’s ledger (GET /balance/transactions, additive), newest first.');

export const listTransactionsQuery = z
  .strictObject({
    limit: pageLimit,
    starting_after: z.optional(
      z
        .string()
        .check(
          z.regex(/^txn_[0-9a-hjkmnp-tv-z]{26}$/, 'must be a transaction id (txn_...)'),
          z.describe('The cursor: the entries older than this one (its `next_starting_after`, or the last id of a page).'),
        ),
    ),
  })
  .check(z.describe('The query of GET /balance/transactions.'));
