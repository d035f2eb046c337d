/**
 * The reference webhook receiver, built on the JavaScript client's `unwrap`: reads the raw body, verifies the Standard
 * Webhooks signature on those bytes in constant time before parsing anything (401 on a mismatch) and the timestamp
 * within the tolerance (400 for a replay), deduplicates by event id, and hands each new event on, `webhook.test` and
 * any type it does not know included.
 */
import { createServer, type Server } from 'node:http';
import { unwrap, WebhookTimestampError, WebhookVerificationError, type WebhookEvent } from '../clients/js/src/index.ts';

export interface ReceivedEvent {
  /** The event id (webhook-id). */
  eventId: string;
  /** The event type (`video.done`, `balance.low`, `webhook.test`, ...). */
  type: string;
  /** The body's `id` and `status` (an order's; empty for events without them). */
  id: string;
  status: string;
  body: Record<string, unknown>;
  event: WebhookEvent;
  headers: Record<string, string | string[] | undefined>;
}

export interface ReceiverOptions {
  /** The webhook secret, or the current and the previous one during a rotation. */
  secret: () => string | string[];
  onEvent: (event: ReceivedEvent) => void;
  /** Largest body accepted (the service's order records are a few KB). */
  maxBytes?: number;
  /** How far a delivery's timestamp may be from now (default 300 s), and the clock (for tests). */
  toleranceSeconds?: number;
  now?: () => number;
}

export function createReceiver(opts: ReceiverOptions): Server {
  const seen = new Set<string>();
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    let event: WebhookEvent;
    try {
      if (req.method !== 'POST') throw new WebhookVerificationError('not a POST');
      event = await unwrap(raw, req.headers, opts.secret(), {
        ...(opts.toleranceSeconds !== undefined ? { toleranceSeconds: opts.toleranceSeconds } : {}),
        ...(opts.now ? { now: opts.now } : {}),
      });
    } catch (err) {
      const [status, message] =
        err instanceof WebhookTimestampError
          ? [400, 'timestamp outside the tolerance']
          : err instanceof WebhookVerificationError
            ? [401, 'bad signature']
            : [400, 'not JSON'];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
      return;
    }
    res.writeHead(204).end();
    if (seen.has(event.id)) return;
    seen.add(event.id);
    const body = (typeof event.body === 'object' && event.body !== null ? event.body : {}) as Record<string, unknown>;
    opts.onEvent({
      eventId: event.id,
      type: event.type,
      id: typeof body.id === 'string' ? body.id : '',
      status: typeof body.status === 'string' ? body.status : '',
      body,
      event,
      headers: req.headers,
    });
  });
}
