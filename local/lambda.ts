/**
 * The local Lambda endpoint: Lambda's synchronous Invoke (`POST /2015-03-31/functions/<name>/invocations`) for the
 * functions other functions invoke (functions/jobs/table.ts INVOKED), run in this process under their own name. As
 * Lambda answers: 200 with the handler's result, or 200 with `X-Amz-Function-Error: Unhandled` and the error's type
 * and message when it threw; an unknown function is 404 ResourceNotFoundException.
 */
import { createServer, type Server } from 'node:http';
import { invoke } from './invocations.ts';

export type InvokedHandler = (event: unknown) => Promise<unknown>;

export class LocalLambda {
  private server: Server | undefined;
  constructor(private readonly functions: Readonly<Record<string, InvokedHandler>>) {}

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
        const name = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(req.url?.split('?')[0] ?? '')?.[1];
        const fn = name && req.method === 'POST' ? this.functions[decodeURIComponent(name)] : undefined;
        if (!name || !fn) {
          return answer(404, { Type: 'User', message: `Function not found: ${name ?? req.url}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
        }
        try {
          const event = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
          answer(200, (await invoke(decodeURIComponent(name), () => fn(event))) ?? null);
        } catch (err) {
          const e = err as Error;
          answer(200, { errorType: e.name ?? 'Error', errorMessage: e.message ?? String(err) }, { 'x-amz-function-error': 'Unhandled' });
        }
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
