/** DELETE /webhooks/{id}: 204; deliveries stop at once. */
import { deleteWebhook } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.deleteWebhook)(async (req) => {
  await deleteWebhook(services().webhooks, req.account.userId, req.pathParameters.id);
  return { status: 204 };
});
