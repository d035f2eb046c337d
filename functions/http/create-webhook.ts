/** POST /webhooks: register (or replace) the key's one webhook; the secret is shown in this answer only. */
import { toView } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.createWebhook)(async (req) => {
  const { url } = req.body;
  const webhook = await services().webhooks.register(req.account.userId, url, req.now);
  return { status: 201, body: { ...toView(webhook), secret: webhook.secret } };
});
