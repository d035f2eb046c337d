/**
 * The reference webhook receiver: reads the raw body, checks X-Service-Signature on those bytes in constant time
 * before parsing anything (401 on a mismatch), deduplicates by order id plus status, and hands each new event on.
 */
import { createServer, type Server } from 'node:http';
import { PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER, verifyWebhook } from '../functions/core/webhook-signature.ts';

export interface ReceivedEvent {
  id: string;
  status: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export interface ReceiverOptions {
  secret: () => string;
  onEvent: (event: ReceivedEvent) => void;
  /** Largest body accepted (the service's order records are a few KB). */
  maxBytes?: number;
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
    // During a secret rotation's overlap the previous secret signs in its own header: either may be this receiver's.
    const signatures = [SIGNATURE_HEADER, PREVIOUS_SIGNATURE_HEADER].map((h) => [req.headers[h]].flat()[0]);
    if (req.method !== 'POST' || !signatures.some((s) => verifyWebhook(raw, s, opts.secret()))) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const key = `${String(body.id)}:${String(body.status)}`;
    res.writeHead(204).end();
    if (seen.has(key)) return;
    seen.add(key);
    opts.onEvent({ id: String(body.id), status: String(body.status), body, headers: req.headers });
  });
}
