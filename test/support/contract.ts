/**
 * Checks an answer of the service against the OpenAPI document it serves: the route's operation must list the status
 * (and, for an error, its code), and the body must validate (with Ajv, JSON Schema 2020-12) against the schema listed there. An error answer must be
 * the error envelope whatever the route. The published answers are open to fields added later; here every object is
 * held closed, so that the service sends no field its document does not describe.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { API_PREFIX, ROUTES } from '../../functions/http/routes.ts';
import { type Prism, startPrism } from './prism.ts';

type Json = Record<string, any>;
const doc = openApiDocument('http://localhost/v1') as Json;

/** The schema with every object that lists its properties closed to others. */
export function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const o = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)])) as Json;
  if (o.type === 'object' && o.properties && !('additionalProperties' in o)) o.additionalProperties = false;
  return o;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'openapi', components: closed(doc.components) });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const validatorOf = (schema: Json) => {
  const key = JSON.stringify(schema);
  if (!validators.has(key)) {
    // Component references point into the document registered as `openapi`.
    const fixed = JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/'));
    validators.set(key, ajv.compile(fixed));
  }
  return validators.get(key)!;
};

/** Why `value` does not match the document's schema `name` (its objects closed as above), or undefined when it does. */
export function componentErrors(name: string, value: unknown): string | undefined {
  const ok = validatorOf({ $ref: `#/components/schemas/${name}` });
  return ok(value) ? undefined : ajv.errorsText(ok.errors);
}

/** A path segment as the service reads it: decoded once (`videos%3Aquick` is `videos:quick`), or as sent when it cannot be. */
const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

function operationOf(method: string, path: string): Json | undefined {
  const segments = path.split('?')[0]!.replace(API_PREFIX, '').split('/').map(decoded);
  const route = ROUTES.find((r) => {
    const parts = r.path.split('/');
    return (
      r.method === method.toUpperCase() && parts.length === segments.length && parts.every((p, i) => (/^\{\w+\}$/.test(p) ? !!segments[i] : p === segments[i]))
    );
  });
  return route ? doc.paths[route.path][route.method.toLowerCase()] : undefined;
}

/** Throws when the answer is not what the document promises. */
export function checkAgainstContract(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
  const op = operationOf(method, path);
  const where = `${method} ${path} -> ${status}`;
  if (status >= 400) {
    const ok = validatorOf({ $ref: '#/components/schemas/ErrorResponse' });
    if (!ok(body)) throw new Error(`${where}: not the error envelope: ${ajv.errorsText(ok.errors)}`);
  }
  if (!op) {
    if (status < 400) throw new Error(`${where}: no operation in the OpenAPI document`);
    return;
  }
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${where}: status not in the OpenAPI document (${Object.keys(op.responses).join(', ')})`);
  // The operation lists the error codes each status may carry, each named in backquotes in its description.
  const code = status >= 400 ? (body as Json | undefined)?.error?.code : undefined;
  if (code !== undefined && !String(response.description).includes(`\`${code}\``)) {
    throw new Error(`${where}: error code ${code} is not among those the operation documents (${response.description})`);
  }
  const schema = response.content?.['application/json']?.schema;
  if (schema && contentType?.startsWith('application/json')) {
    const ok = validatorOf(schema);
    if (!ok(body)) throw new Error(`${where}: body does not match the OpenAPI document: ${ajv.errorsText(ok.errors)}`);
  }
}

const checkedBases = new Set<string>();
let realFetch: typeof fetch | undefined;

/**
 * From now on in this process, every fetch to `baseUrl` (the tests' own calls and the JavaScript client's) has its
 * answer checked against the document, so that no end-to-end test can receive an answer the contract does not
 * describe. A violation rejects the fetch. Answers that came from storage after the download redirect are not the
 * API's and are not checked.
 */
export function checkFetchesTo(baseUrl: string): () => void {
  checkedBases.add(baseUrl);
  if (!realFetch) {
    realFetch = globalThis.fetch;
    const original = realFetch;
    globalThis.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const res = await original(input, init);
      const base = [...checkedBases].find((b) => url.startsWith(b));
      if (base && new URL(res.url).origin === new URL(base).origin) {
        const type = res.headers.get('content-type');
        const text = type?.startsWith('application/json') ? await res.clone().text() : '';
        checkAgainstContract(method, new URL(url).pathname, res.status, type, text ? JSON.parse(text) : undefined);
      }
      return res;
    };
  }
  return () => checkedBases.delete(baseUrl);
}

export interface ContractProxy {
  /** The address to give a client in another process, /v1 included. */
  baseUrl: string;
  /** How many answers were checked, and what broke the document (Prism's findings too, each marked `Prism:`). */
  checked: number;
  violations: string[];
  /** Prism in the chain (test/support/prism.ts): its exchanges, and the requests it found outside the document. */
  prism?: Prism;
  /** Why Prism is not in the chain, when it is not. */
  prismSkipped?: string;
  close(): void;
}

/**
 * A loopback proxy in front of `baseUrl` that checks every answer against the document, for clients in another
 * process (the Python client, the CLI), whose fetches this process does not see. Behind it, Prism checks each request
 * and answer again against docs/openapi.json (`prism: false` leaves it out); its findings on the answers join
 * `violations`. When Prism cannot start, the proxy goes straight to the service and says why once.
 */
export async function contractProxy(baseUrl: string, opts: { prism?: boolean; prismDocument?: string } = {}): Promise<ContractProxy> {
  const target = new URL(baseUrl);
  const prefix = target.pathname.replace(/\/$/, '');
  let prism: Prism | undefined;
  let prismSkipped: string | undefined;
  if (opts.prism !== false) {
    try {
      prism = await startPrism(baseUrl, opts.prismDocument ? { document: opts.prismDocument } : {});
    } catch (err) {
      prismSkipped = (err as Error).message;
      console.log(`# skip Prism (the answers are checked by this proxy only): ${prismSkipped}`);
    }
  }
  const prismAt = prism ? new URL(prism.baseUrl) : undefined;
  // What Prism saw, told once at the end whether or not the suite closes the proxy.
  if (prism)
    process.once('exit', () => {
      const { exchanges, violations, requestViolations } = prism!;
      console.log(
        `# Prism (${basename(process.argv[1] ?? '')}): ${exchanges} exchanges, ${violations.length} answers in breach of docs/openapi.json, ${requestViolations.length} requests outside it${requestViolations.length ? `:\n${[...new Set(requestViolations)].map((v) => `#   ${v}`).join('\n')}` : ''}`,
      );
    });
  const close = () => {
    server.closeAllConnections();
    server.close();
    void prism?.close();
  };
  const proxy: ContractProxy = { baseUrl: '', checked: 0, violations: [], ...(prism ? { prism } : {}), ...(prismSkipped ? { prismSkipped } : {}), close };
  const server = createServer((req, res) => {
    // Through Prism, a path of the document (`/v1/videos` as `/videos`: Prism serves them from its root and appends
    // them to the upstream's /v1); a request for anything else goes straight to the service.
    const viaPrism = prismAt && req.url!.startsWith(`${prefix}/`) ? prismAt : undefined;
    const hop = viaPrism
      ? { host: viaPrism.hostname, port: viaPrism.port, path: req.url!.slice(prefix.length) }
      : { host: target.hostname, port: target.port, path: req.url };
    const upstream = request({ ...hop, method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => {
          const body = Buffer.concat(chunks);
          const type = answer.headers['content-type'] ?? null;
          if (viaPrism && prism) {
            const before = prism.violations.length;
            prism.note(req.method!, req.url!, answer.statusCode!, answer.headers);
            proxy.violations.push(...prism.violations.slice(before).map((v) => `Prism: ${v}`));
          }
          try {
            proxy.checked++;
            checkAgainstContract(
              req.method!,
              req.url!,
              answer.statusCode!,
              type,
              type?.startsWith('application/json') && body.length ? JSON.parse(body.toString()) : undefined,
            );
          } catch (err) {
            proxy.violations.push((err as Error).message);
          }
          res.writeHead(answer.statusCode!, answer.headers).end(body);
        });
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  proxy.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`;
  return proxy;
}
