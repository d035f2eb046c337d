import * as z from 'zod/mini';
import { pageLimit, pageOf } from './order-list.ts';
import { explainedEnum, timestamp } from './zod.ts';

const month = z.string().check(z.regex(/^\d{4}-\d{2}$/), z.describe('A UTC calendar month, `YYYY-MM`.'));

export const spendView = z
  .object({
    month: month.check(z.describe('The UTC calendar month (`YYYY-MM`) the figures are for: the current one.')),
    spent: z
      .int()
      .check(
        z.describe(
          "Doubloons the key's orders were charged this month, less the refunds of this month's charges given back within it. Orders the chat bot placed are not counted.",
        ),
      ),
    limit: z.optional(
      z
        .int()
        .check(
          z.describe(
            'The monthly spend limit the operator set for the key, if any: an order that would take `spent` past it is refused with 402 `spend_limit_exceeded`, nothing charged. It renews with each UTC month.',
          ),
        ),
    ),
  })
  .check(z.describe('What the key spent this UTC month, and its monthly spend limit (additive).'));

export const lowBalanceAlert = z
  .object({
    below: z.int().check(z.describe('The threshold: a charge that leaves the balance below it sends `balance.low` to the webhook.')),
    sent: z
      .boolean()
      .check(
        z.describe(
          '`balance.low` was sent and is not sent again until a top-up lifts the balance to `below` or more (setting another threshold arms that one).',
        ),
      ),
  })
  .check(z.describe('The key’s low-balance alert (POST /balance/alerts, additive); absent when none is set.'));

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
    spend: spendView,
    low_balance_alert: z.optional(lowBalanceAlert),
  })
  .check(
    z.meta({
      description:
        "The account's balance (GET /balance): doubloons, trial videos left and, for a user with a plan, the heavy videos left this month; what the key spent this month against its spend limit, and its low-balance alert.",
      examples: [
        { balance: 830, trial_videos_left: 0, livemode: true, spend: { month: '2026-11', spent: 270 } },
        {
          balance: 1250,
          trial_videos_left: 2,
          plan: 'creator',
          heavy_videos_left: 17,
          livemode: true,
          spend: { month: '2026-11', spent: 1500, limit: 5000 },
          low_balance_alert: { below: 500, sent: false },
        },
        { balance: 0, trial_videos_left: 0, livemode: false, spend: { month: '2026-11', spent: 0 } },
      ],
    }),
  );

export const balanceAlertBody = z
  .strictObject({
    below: z.nullable(z.int().check(z.gte(1), z.lte(1_000_000_000), z.describe('The threshold in doubloons, 1 to 1000000000; `null` removes the alert.'))),
  })
  .check(
    z.meta({
      description:
        'Body of POST /balance/alerts (additive): the low-balance threshold of the key. Setting it (again) arms the alert: the next charge that leaves the balance below it sends `balance.low` once, and it is sent again only after a top-up lifts the balance to the threshold or more.',
      examples: [{ below: 500 }, { below: null }],
    }),
  );

export const BALANCE_LOW = 'balance.low';

/** The body of a balance.low webhook event: not an order (those carry GET /videos/{id}'s JSON). */
export const balanceLowEvent = z
  .object({
    id: z.string().check(z.describe('The event’s id, as in the webhook-id and X-Service-Event-Id headers (the same on every attempt and resend).')),
    object: z.literal('event').check(z.describe('Always `event`: tells this body from an order’s, which has no `object`.')),
    type: z.literal(BALANCE_LOW).check(z.describe('Always `balance.low`, as in the X-Service-Event header.')),
    balance: z.int().check(z.describe('The balance right after the charge that crossed the threshold.')),
    threshold: z.int().check(z.describe('The alert’s threshold (`below`) then.')),
    order_id: z.string().check(z.describe('The order whose charge crossed it.')),
    created_at: timestamp.check(z.describe('When the charge was made.')),
    livemode: z.literal(true).check(z.describe('Always true: only live charges move the balance (a test-mode order costs 0).')),
  })
  .check(
    z.meta({
      description:
        'The body of the `balance.low` webhook event (additive): sent once when a charge leaves the balance below the key’s threshold (POST /balance/alerts), again only after a top-up lifts the balance to the threshold or more and a charge crosses it again. Signed and retried like the order events.',
      examples: [
        {
          id: '01JD3Q2ZC8T1Y9W4N7K6M5H2GE:balance.low:1',
          object: 'event',
          type: 'balance.low',
          balance: 80,
          threshold: 100,
          order_id: 'vid_01jd3q2zc8t1y9w4n7k6m5h2ge',
          created_at: '2026-11-25T07:24:51.123Z',
          livemode: true,
        },
      ],
    }),
  );
export type BalanceLowEvent = z.infer<typeof balanceLowEvent>;
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
