/** The pages of a listing, and the query and page of GET /videos. */
import * as z from 'zod/mini';
import { METADATA_KEY, ORDER_ID_RE, orderStatus } from './orders.ts';
import { orderRecord } from './order-record.ts';

const INTEGER_1_100 = 'must be an integer from 1 to 100';
const TIME = 'must be an ISO 8601 time, such as 2026-11-25T00:00:00Z';
/**
 * How many entries a page holds. Query values are strings: decimal digits only (Number() would also take `0x10`,
 * `1e1` or ` 5`), then the number is checked.
 */
export const pageLimit = z._default(
  z.pipe(
    z.string({ error: INTEGER_1_100 }).check(z.regex(/^[0-9]{1,3}$/, INTEGER_1_100)),
    z.coerce.number<string>().check(z.gte(1, INTEGER_1_100), z.lte(100, INTEGER_1_100)),
  ),
  20,
);
// Described as the integer it stands for (its digits-only pattern is how a query string spells one).
z.globalRegistry.add(pageLimit, {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  pattern: undefined,
  description: 'Entries on a page, 1 to 100 (20 by default)',
} as never);

/** A page of a listing (`what`: its entries), newest first, and the cursor of the next; `description` says which. */
export const pageOf = <T extends z.core.$ZodType>(items: T, what: string, description: string) =>
  z
    .object({
      data: z.array(items).check(z.describe(`The ${what} of this page, newest first.`)),
      has_more: z.boolean().check(z.describe(`More ${what} may follow: ask again with \`starting_after\` set to \`next_starting_after\`.`)),
      next_starting_after: z.optional(z.string().check(z.describe('The cursor of the next page, present when `has_more` is true.'))),
    })
    .check(z.describe(description));

export const listOrdersQuery = z
  .strictObject({
    limit: pageLimit,
    starting_after: z.optional(
      z
        .string()
        .check(
          z.regex(ORDER_ID_RE, 'must be an order id (vid_...)'),
          z.describe('The cursor: the orders created before this one (its `next_starting_after`, or the last id of a page).'),
        ),
    ),
    status: z.optional(orderStatus.check(z.describe('Only orders in this status'))),
    created_gte: z.optional(z.iso.datetime({ offset: true, error: TIME }).check(z.describe('Only orders created at or after this time (ISO 8601)'))),
    created_lt: z.optional(z.iso.datetime({ offset: true, error: TIME }).check(z.describe('Only orders created before this time (ISO 8601)'))),
    metadata: z.optional(
      z
        .record(
          z.string().check(z.regex(METADATA_KEY, 'keys must be 1 to 40 letters, digits, _ . : or -, beginning with a letter or a digit')),
          z.string().check(z.maxLength(500)),
        )
        .check(
          z.refine((pairs) => Object.keys(pairs).length === 1, 'must name one pair, as metadata[KEY]=VALUE'),
          z.describe('Only orders whose `client_metadata` has this pair: `metadata[KEY]=VALUE`, one pair.'),
        ),
    ),
  })
  .check(z.describe('The query of GET /videos (additive): the key’s orders, newest first.'));
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

export const orderList = pageOf(orderRecord, 'orders', 'A page of the key’s orders (GET /videos), newest first, each as GET /videos/{id} answers it.');
