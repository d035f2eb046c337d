/**
 * A webhook receiver as a fetch handler, `(request: Request) => Promise<Response>`: the form of Cloudflare Workers,
 * Deno.serve, Bun.serve, Vercel and Netlify edge functions and Next.js route handlers. Web APIs only: the client's
 * `unwrap` verifies with Web Crypto. Read the body as bytes (`arrayBuffer()`), never as parsed JSON.
 */
import { unwrap, WebhookTimestampError, WebhookVerificationError, type WebhookEvent } from '../src/index.ts'; // '@video-service/client'

export function webhookHandler(secrets: string | string[], handle: (event: WebhookEvent) => void | Promise<void>) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return new Response(null, { status: 405 });
    let event: WebhookEvent;
    try {
      event = await unwrap(await request.arrayBuffer(), request.headers, secrets);
    } catch (err) {
      if (err instanceof WebhookTimestampError) return new Response('stale timestamp', { status: 400 });
      if (err instanceof WebhookVerificationError) return new Response('bad signature', { status: 401 });
      throw err;
    }
    await handle(event); // deduplicate on event.id: a resend carries the same
    return new Response(null, { status: 204 });
  };
}

// Cloudflare Workers: export default { fetch: (req: Request, env: { WEBHOOK_SECRET: string }) =>
//   webhookHandler(env.WEBHOOK_SECRET, handle)(req) };
// Deno: Deno.serve(webhookHandler(Deno.env.get('WEBHOOK_SECRET')!, handle));
