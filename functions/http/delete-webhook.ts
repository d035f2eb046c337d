/** DELETE /webhooks/{id}: 204; deliveries stop at once. */
import { deleteWebhook } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

export const handler = httpRoute({ auth: true }, async (req) => {
  await deleteWebhook(services().webhooks, req.account.userId, req.pathParameters.id);
  return { status: 204 };
});
