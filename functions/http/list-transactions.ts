/** GET /balance/transactions: the key's ledger, newest first, a page at a time. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.listTransactions)(async (req) => {
  const page = await services().transactions(req.account.userId, {
    limit: req.query.limit,
    ...(req.query.starting_after ? { startingAfter: req.query.starting_after } : {}),
  });
  return { status: 200, body: { data: page.data, has_more: page.hasMore, ...(page.next ? { next_starting_after: page.next } : {}) } };
});
