/** GET /webhooks: the key's webhook, without its secret. */
import { toView } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.listWebhooks)(async (req) => {
  const webhook = await services().webhooks.of(req.account.userId);
  return { status: 200, body: { data: webhook ? [toView(webhook)] : [] } };
});
