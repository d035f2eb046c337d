/**
 * A webhook receiver on node:http and the client's `unwrap`: the raw bytes, verified (Standard Webhooks signature
 * and timestamp) before anything parses them; 401 for a bad signature, 400 for a replay; each event id handled once;
 * 2xx for every verified event, `webhook.test` and types this code does not know included (else the service retries
 * them). The tests register it and check that POST /webhooks/{id}/test reports it delivered.
 *
 *   WEBHOOK_SECRET=whsec_... node clients/js/examples/receiver-node.ts
 */
import { createServer, type Server } from 'node:http';
import { unwrap, WebhookTimestampError, WebhookVerificationError, type WebhookEvent } from '../src/index.ts'; // '@video-service/client'

/** `secrets`: the webhook's secret, or during a rotation's overlap the new and the previous one. */
export function webhookServer(secrets: () => string | string[], handle: (event: WebhookEvent) => void | Promise<void>): Server {
  const seen = new Set<string>(); // in production: a unique key in your database
  return createServer(async (req, res) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk as Uint8Array);
    let event: WebhookEvent;
    try {
      event = await unwrap(Buffer.concat(chunks), req.headers, secrets());
    } catch (err) {
      if (err instanceof WebhookTimestampError) return void res.writeHead(400).end(); // a replay
      if (err instanceof WebhookVerificationError) return void res.writeHead(401).end(); // forged or another secret
      throw err;
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      await handle(event);
    }
    res.writeHead(204).end();
  });
}

/** What a shop does with each event: here, a line about it. */
export function describeEvent(event: WebhookEvent): string {
  if (!event.known) return `ignored ${event.type}`; // a type added after this code was written
  switch (event.type) {
    case 'video.done':
      return `${event.body.id} ready: ${event.body.result_url}`;
    case 'video.error':
      return `${event.body.id} failed: ${event.body.error?.code}, refunded`;
    case 'video.awaiting_review':
      return `${event.body.id} waits for a review`;
    case 'balance.low':
      return `balance ${event.body.balance} is below ${event.body.threshold}`;
    case 'webhook.test':
      return `test ping for ${event.body.webhook_id}`;
  }
}

if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET ?? '';
  webhookServer(
    () => secret.split(','),
    (event) => console.log(describeEvent(event)),
  ).listen(4000, '127.0.0.1');
}
