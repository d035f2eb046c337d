/** DELETE /webhooks/{id}: 204; deliveries stop at once. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.deleteWebhook)(async (req) => {
  await services().webhooks.delete(req.account.userId, req.pathParameters.id);
  return { status: 204 };
});
