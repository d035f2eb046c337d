/** GET /balance: answered from the account the key lookup already loaded. */
import { balanceView } from '../core/balance.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.getBalance)(async (req) => ({ status: 200, body: balanceView(req.account, req.now) }));
