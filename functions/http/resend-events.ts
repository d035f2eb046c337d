/** POST /webhooks/{id}/resend: one event delivered again, or every event dropped since a time. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.resendEvents)(async (req) => {
  const body = req.body;
  const asked = 'event_id' in body ? { eventId: body.event_id } : { since: new Date(body.since) };
  const result = await services().webhooks.resend(req.account, req.pathParameters.id, asked);
  return { status: 202, body: { resent: result.resent, has_more: result.hasMore } };
});
