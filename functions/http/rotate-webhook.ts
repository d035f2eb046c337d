/** POST /webhooks/{id}/rotate: a new secret; the old one keeps signing beside it for the overlap asked for. */
import { toView } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.rotateWebhookSecret)(async (req) => {
  const webhook = await services().webhooks.rotate(req.account.userId, req.pathParameters.id, req.body.overlap_seconds, req.now);
  const overlap = webhook.previousUntil ? { previous_secret_expires_at: webhook.previousUntil } : {};
  return { status: 200, body: { ...toView(webhook), secret: webhook.secret, ...overlap } };
});
