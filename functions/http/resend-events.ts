/** POST /webhooks/{id}/resend: one event delivered again, or every event dropped since a time. */
import { resendDropped, resendEvent } from '../core/deliveries.ts';
import { ownWebhookId } from '../core/webhooks.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.resendEvents)(async (req) => {
  const { webhooks, deliveries, config } = services();
  const userId = req.account.userId;
  await ownWebhookId(webhooks, userId, req.pathParameters.id);
  const ports = { events: deliveries.events, delivery: deliveries.workflow, resendsPerHour: config.resendsPerHour, now: () => new Date() };
  const body = req.body;
  const result =
    'event_id' in body ? { resent: await resendEvent(ports, userId, body.event_id), hasMore: false } : await resendDropped(ports, userId, new Date(body.since));
  return { status: 202, body: { resent: result.resent, has_more: result.hasMore } };
});
