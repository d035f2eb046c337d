/** GET /balance/transactions: the key's ledger, newest first, a page at a time. */
import { listTransactionsQuery } from '../contract/balance.ts';
import { transactionsPage } from '../core/transactions.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true, query: listTransactionsQuery }, async (req) => {
  const page = await transactionsPage(services().accounts, req.account.userId, {
    limit: req.query.limit,
    ...(req.query.starting_after ? { startingAfter: req.query.starting_after } : {}),
  });
  return { status: 200, body: { data: page.data, has_more: page.hasMore, ...(page.next ? { next_starting_after: page.next } : {}) } };
});
