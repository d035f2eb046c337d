/**
 * The local gateway: turns each HTTP request into the APIGatewayProxyEventV2 that API Gateway's HTTP API would send,
 * routes it with the routes deployed from the one route table (DEPLOYED_ROUTES, as lib/api.ts builds the HTTP API),
 * and calls the same handler module that runs in Lambda. Given the edge's origin check, it runs it as API Gateway runs
 * the authorizer of a stage with the edge (functions/edge/table.ts): 401 without the header (the check not called), 403
 * when the check says no, each answer kept per header value.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerResult,
  Context,
} from 'aws-lambda';
import { badRequest } from '../functions/core/errors.ts';
import { errorResponse } from '../functions/http/errors.ts';
import { DEFAULT_ROUTE, DEPLOYED_ROUTES } from '../functions/http/routes.ts';
import { ORIGIN_VERIFY } from '../functions/edge/table.ts';
import { invoke } from './invocations.ts';
import { LOCAL_API_ID, recordAwsMetric } from './metrics.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
export type Authorizer = (event: APIGatewayRequestAuthorizerEventV2, context: Context) => Promise<APIGatewaySimpleAuthorizerResult>;

/** API Gateway's own answers around an authorizer: its body, not the contract's envelope. */
const GATEWAY_ANSWERS = { 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal Server Error' } as const;

/** API Gateway's own payload limit; bodies past it are cut off here as there. */
const MAX_PAYLOAD = 10 * 1024 * 1024;

/** A route's path, segment by segment: a literal, a variable `{name}` (one segment), or a greedy `{name+}` (the rest). */
type Segment = { literal: string } | { variable: string; greedy: boolean };

interface CompiledRoute<R> {
  route: R;
  segments: Segment[];
}

const segmentsOf = (path: string) => path.split('/').slice(1);

/** A route ready for matchRoute. */
export function compile<R extends { path: string }>(route: R): CompiledRoute<R> {
  const segments = segmentsOf(route.path).map((part): Segment => {
    const m = /^\{(\w+)(\+?)\}$/.exec(part);
    return m ? { variable: m[1]!, greedy: m[2] === '+' } : { literal: part };
  });
  return { route, segments };
}

/** How specific a segment is, lower first: a literal, then a variable, then a greedy variable. */
const rank = (s: Segment) => ('literal' in s ? 0 : s.greedy ? 2 : 1);

/** The variables' values (as sent) when `c` matches the path's segments, else undefined. */
function valuesOf(c: CompiledRoute<unknown>, parts: string[]): [string, string][] | undefined {
  const values: [string, string][] = [];
  for (const [i, s] of c.segments.entries()) {
    if ('literal' in s) {
      if (parts[i] !== s.literal) return undefined;
    } else if (s.greedy) {
      const rest = parts.slice(i).join('/');
      return rest.replaceAll('/', '') ? [...values, [s.variable, rest]] : undefined;
    } else {
      if (!parts[i]) return undefined;
      values.push([s.variable, parts[i]]);
    }
  }
  return parts.length === c.segments.length ? values : undefined;
}

/** Whether ranks `a` name a more specific route than ranks `b`: the first segment where they differ decides. */
function moreSpecific(a: number[], b: number[]): boolean {
  const i = a.findIndex((r, j) => r !== b[j]);
  return i >= 0 && a[i]! < (b[i] ?? Number.POSITIVE_INFINITY);
}

/**
 * Routes a request as HTTP API documents it: a route is a method and a path; a variable takes one whole segment, a
 * greedy one the rest; of the routes that match, the most specific wins (a literal segment over a variable, a variable
 * over a greedy one, from the left); no match is the $default route. Literal segments compare with the path as sent;
 * variables are decoded once, as API Gateway decodes them. A variable that does not decode matches nothing.
 */
export function matchRoute<R extends { method: string }>(
  routes: readonly CompiledRoute<R>[],
  method: string,
  path: string,
): { route?: R; pathParameters?: Record<string, string> } {
  const parts = segmentsOf(path);
  let best: { route: R; ranks: number[]; values: [string, string][] } | undefined;
  for (const c of routes) {
    if (c.route.method !== method) continue;
    const values = valuesOf(c, parts);
    const ranks = c.segments.map(rank);
    if (values && (!best || moreSpecific(ranks, best.ranks))) best = { route: c.route, ranks, values };
  }
  if (!best) return {};
  try {
    return { route: best.route, pathParameters: Object.fromEntries(best.values.map(([k, v]) => [k, decodeURIComponent(v)])) };
  } catch {
    return {};
  }
}

const COMPILED = DEPLOYED_ROUTES.map(compile);

/**
 * A Lambda context for handlers called in-process, with the time the call has: middy ends a handler just before its
 * remaining time runs out, as Lambda would, so it must be the time the caller gives it (29 s for API Gateway's
 * integration; a step gets its Task's TimeoutSeconds).
 */
export function lambdaContext(functionName: string, requestId: string = randomUUID(), timeoutMs = 29_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/local/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const TEXTUAL = /^(text\/|application\/([\w.+-]+\+)?(json|xml|x-www-form-urlencoded))/i;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_PAYLOAD) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** API Gateway's metrics of one answered request: Count, and 4xx and 5xx as 0 or 1 (it publishes both). */
function countRequest(status: number): void {
  const dimensions = { ApiId: LOCAL_API_ID };
  recordAwsMetric('AWS/ApiGateway', 'Count', dimensions);
  recordAwsMetric('AWS/ApiGateway', '4xx', dimensions, status >= 400 && status < 500 ? 1 : 0);
  recordAwsMetric('AWS/ApiGateway', '5xx', dimensions, status >= 500 ? 1 : 0);
}

export class LocalGateway {
  private readonly server: Server;
  private readonly handlers = new Map<string, Promise<Handler>>();
  /** The origin check's answers by header value, each until it expires (API Gateway's authorizer cache). */
  private readonly decisions = new Map<string, { allowed: boolean; until: number }>();

  /** @param originCheck loads the edge's origin check, which then guards every route; none: a stage without the edge. */
  constructor(
    private readonly loadHandler: (name: string) => Promise<Handler>,
    private readonly originCheck?: () => Promise<Authorizer>,
  ) {
    this.server = createServer((req, res) => void this.serve(req, res));
    this.server.keepAliveTimeout = 30_000;
    // Requests Node's parser refuses (broken framing, control bytes in headers, headers past 16 KB) would get a bare
    // 400 or 431; they get the envelope, as every other refusal does.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
      const reason = err.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are larger than 16 KB' : 'The request is not well-formed HTTP';
      const answer = errorResponse(badRequest(reason), randomUUID());
      const head = Object.entries({ ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)), connection: 'close' }).map(
        ([k, v]) => `${k}: ${v}\r\n`,
      );
      socket.end(`HTTP/1.1 ${answer.statusCode} Bad Request\r\n${head.join('')}\r\n${answer.body}`);
    });
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, resolve);
    });
    return (this.server.address() as { port: number }).port;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The status API Gateway answers with when the origin check refuses the request (or fails); undefined: it passes. */
  private async refusedAtOrigin(event: APIGatewayProxyEventV2): Promise<keyof typeof GATEWAY_ANSWERS | undefined> {
    if (!this.originCheck) return undefined;
    const value = event.headers[ORIGIN_VERIFY.header];
    if (!value) return 401;
    const now = Date.now();
    let decision = this.decisions.get(value);
    if (!decision || decision.until <= now) {
      const check = await this.originCheck();
      const { method, path } = event.requestContext.http;
      // What API Gateway sends an authorizer (payload 2.0): the request without its body.
      const authorizerEvent: APIGatewayRequestAuthorizerEventV2 = {
        version: '2.0',
        type: 'REQUEST',
        routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${method}${path}`,
        identitySource: [value],
        routeKey: event.routeKey,
        rawPath: event.rawPath,
        rawQueryString: event.rawQueryString,
        cookies: [],
        headers: event.headers,
        queryStringParameters: event.queryStringParameters ?? {},
        requestContext: event.requestContext,
        pathParameters: event.pathParameters ?? {},
        stageVariables: {},
      };
      try {
        const { isAuthorized } = await invoke(ORIGIN_VERIFY.handler, () => check(authorizerEvent, lambdaContext(ORIGIN_VERIFY.handler)));
        decision = { allowed: isAuthorized === true, until: now + ORIGIN_VERIFY.cacheSeconds * 1000 };
      } catch (err) {
        // A failed check is not kept: the next request asks again.
        console.error('gateway: the origin check failed', err);
        return 500;
      }
      this.decisions.set(value, decision);
    }
    return decision.allowed ? undefined : 403;
  }

  private handler(name: string): Promise<Handler> {
    let h = this.handlers.get(name);
    if (!h) {
      h = this.loadHandler(name);
      this.handlers.set(name, h);
    }
    return h;
  }

  private async serve(req: IncomingMessage, res: ServerResponse) {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = (req.method ?? 'GET').toUpperCase();
      const { route, pathParameters } = matchRoute(COMPILED, method, url.pathname);
      const name = route?.handler ?? DEFAULT_ROUTE.handler;
      const bytes = await readBody(req).catch(() => undefined);
      // The client went away before its body was whole: there is no one to answer.
      if (!bytes) return void req.socket.destroy();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
      const textual = TEXTUAL.test(headers['content-type'] ?? 'application/json') && isUtf8(bytes);
      const now = new Date();
      const event: APIGatewayProxyEventV2 = {
        version: '2.0',
        routeKey: route ? `${route.method} ${route.path}` : '$default',
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        headers,
        // API Gateway joins a repeated parameter's values with commas.
        ...(url.search
          ? { queryStringParameters: Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k).join(',')])) }
          : {}),
        ...(pathParameters && Object.keys(pathParameters).length ? { pathParameters } : {}),
        requestContext: {
          accountId: '000000000000',
          apiId: LOCAL_API_ID,
          domainName: headers.host ?? 'localhost',
          domainPrefix: 'local',
          http: {
            method,
            path: url.pathname,
            protocol: `HTTP/${req.httpVersion}`,
            sourceIp: req.socket.remoteAddress ?? '',
            userAgent: headers['user-agent'] ?? '',
          },
          requestId,
          routeKey: route ? `${route.method} ${route.path}` : '$default',
          stage: '$default',
          time: now.toUTCString(),
          timeEpoch: now.getTime(),
        },
        ...(bytes.length ? { body: textual ? bytes.toString('utf8') : bytes.toString('base64') } : {}),
        isBase64Encoded: bytes.length > 0 && !textual,
      };
      const refused = await this.refusedAtOrigin(event);
      if (refused) {
        res.writeHead(refused, { 'content-type': 'application/json', 'apigw-requestid': requestId });
        res.end(JSON.stringify({ message: GATEWAY_ANSWERS[refused] }));
        return countRequest(refused);
      }
      const handler = await this.handler(name);
      const result = await invoke(name, () => handler(event, lambdaContext(name, requestId)));
      const body = result.body ?? '';
      res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
      countRequest(result.statusCode ?? 200);
    } catch (err) {
      // Only a handler that crashed outside its own error mapping lands here, as a Lambda error would on AWS.
      console.error('gateway: handler crashed', err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': requestId });
      res.end(JSON.stringify({ error: { code: 'internal_error', message: 'Internal error; retry with backoff', request_id: requestId } }));
      countRequest(500);
    }
  }
}
