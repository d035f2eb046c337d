/** GET /balance: answered from the account the key lookup already loaded. */
import { balanceView } from '../core/balance.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => ({ status: 200, body: balanceView(req.account, req.now) }));
