/** GET /videos: the key's orders, newest first, a page at a time. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.listVideos)(async (req) => {
  const q = req.query;
  const page = await services().orders.list(
    req.account.userId,
    {
      limit: q.limit,
      ...(q.starting_after ? { startingAfter: q.starting_after } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.created_gte ? { createdGte: new Date(q.created_gte) } : {}),
      ...(q.created_lt ? { createdLt: new Date(q.created_lt) } : {}),
      ...(q.metadata ? { metadata: Object.entries(q.metadata)[0]! } : {}),
    },
    req.now,
  );
  return { status: 200, body: { data: page.records, has_more: page.hasMore, ...(page.next ? { next_starting_after: page.next } : {}) } };
});
