/** GET /assets: the key's assets, newest first, a page at a time. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.listAssets)(async (req) => ({
  status: 200,
  body: await services().assets.list(req.account.userId, req.query, req.now),
}));
