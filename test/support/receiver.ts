/** Webhook receivers for tests: HTTP servers on loopback that record every request, closed when the test file ends. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after } from 'node:test';

export interface Hit {
  at: number;
  raw: Buffer;
  headers: IncomingMessage['headers'];
}

const servers: Pick<Server, 'closeAllConnections' | 'close'>[] = [];
// At import, so the hook is the file's (registered inside a test, it would run after that test alone).
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

/** Closes `server` when the test file ends (an HTTPS one too). */
export function closeAtEnd<S extends Pick<Server, 'closeAllConnections' | 'close'>>(server: S): S {
  servers.push(server);
  return server;
}

/** A receiver that records every request and answers as `reply` says (204 by default). */
export async function receiver(reply: (hit: Hit, n: number, res: ServerResponse) => void = (_h, _n, res) => res.writeHead(204).end()) {
  const hits: Hit[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const hit = { at: Date.now(), raw: Buffer.concat(chunks), headers: req.headers };
    hits.push(hit);
    reply(hit, hits.length, res);
  });
  closeAtEnd(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, hits };
}
