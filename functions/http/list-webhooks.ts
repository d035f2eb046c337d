/** GET /webhooks: the key's webhook, without its secret. */
import { toView } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  const webhook = await services().webhooks.ofUser(req.account.userId);
  return { status: 200, body: { data: webhook ? [toView(webhook)] : [] } };
});
