/** POST /webhooks/{id}/test: one signed webhook.test delivery now, and what the receiver answered. */
import { pingWebhook } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.testWebhook)(async (req) => {
  const { webhooks, sender } = services();
  return { status: 200, body: await pingWebhook({ webhooks, sender }, req.account.userId, req.pathParameters.id, req.now) };
});
