/** POST /balance/alerts: the key's low-balance threshold set and armed, or removed (additive route). */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.setBalanceAlert)(async (req) => ({
  status: 200,
  body: await services().balance.setAlert(req.account.userId, req.body.below, req.now),
}));
