/** GET /webhooks/{id}/deliveries: the recent delivery attempts of the key's webhook (additive route). */
import { services } from '../app/services.ts';
import { isOrderEvent } from '../core/deliveries.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';
import { present } from '../core/present.ts';

export const handler = httpRoute(operations.listDeliveries)(async (req) => {
  const attempts = await services().webhooks.attempts(req.account.userId, req.pathParameters.id);
  return {
    status: 200,
    body: {
      data: attempts.map((a) => ({
        event_id: a.eventId,
        event: a.type,
        ...(isOrderEvent(a.type) ? { order_id: a.orderId } : {}),
        attempt: a.attempt,
        at: a.at,
        url: a.url,
        ...present({ http_status: a.status }),
        ...(a.error ? { error: a.error } : {}),
        latency_ms: a.latencyMs,
        outcome: a.outcome,
      })),
    },
  };
});
