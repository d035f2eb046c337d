/** POST /webhooks/{id}/test: one signed webhook.test delivery now, and what the receiver answered. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.testWebhook)(async (req) => {
  return { status: 200, body: await services().webhooks.test(req.account, req.pathParameters.id, req.now) };
});
