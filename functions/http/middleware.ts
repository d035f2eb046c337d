/**
 * The middy chain every route handler runs in: request id and the error envelope, the maintenance switch, API-key
 * authentication, the count in the key's window (of POSTs, which DELETEs share, or of GETs), and the JSON body
 * validated by the route's schema (as Powertools' parser does). A handler receives a request typed by its route's
 * options and returns a reply; it never formats an error itself.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { AppError, badRequest, rateLimited, serviceUnavailable, unauthorized } from '../core/errors.ts';
import { limitsOwner, minuteWindow } from '../core/limits.ts';
import type { Account } from '../core/pricing.ts';
import { publishMetrics } from '../adapters/metrics.ts';
import { logger, services } from '../app/services.ts';
import { isTransient } from '../adapters/transient.ts';
import { errorResponse, type HttpResponse } from './errors.ts';
import { validate } from '../app/validate.ts';
import { type Operation, type Route, rateWindowOf } from './operations.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/** What every route's handler receives. */
export interface HttpRequest {
  event: APIGatewayProxyEventV2;
  requestId: string;
  now: Date;
  pathParameters: Record<string, string>;
  header(name: string): string | undefined;
}

/** What a route with auth adds: the key's account, loaded by the key lookup. */
export interface AuthedRequest extends HttpRequest {
  account: Account;
  /** The window (of POSTs and DELETEs, or of GETs) after this request: shown in the RateLimit headers. */
  rateLimit?: { policy: 'posts' | 'gets'; limit: number; remaining: number; resetSeconds: number };
}

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers) of a keyed request: the policy (`q` requests
 * of the kind per `w` seconds per key) and what is left of it (`r`) with the seconds until the window resets (`t`).
 */
export function rateLimitHeaders(r: AuthedRequest['rateLimit']): Record<string, string> {
  if (!r) return {};
  return { 'ratelimit-policy': `"${r.policy}";q=${r.limit};w=60`, ratelimit: `"${r.policy}";r=${r.remaining};t=${r.resetSeconds}` };
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The body is a string sent as it is, with the content-type of `headers` (the docs page and its assets). */
  raw?: boolean;
  /** A `deferred` POST that the handler's own transaction counted in its rate window (a new order). */
  postCounted?: boolean;
}

/** What the chain needs of an operation (functions/http/operations.ts); the 404 of no route has only `auth`. */
export type RouteOptions = { route: Pick<Route, 'auth'> & Partial<Pick<Route, 'method'>> } & Pick<Operation, 'body' | 'query' | 'countPost'> &
  Partial<Pick<Operation, 'answers'>>;

/** The request a route's options promise its handler: the account only with auth, the typed body only with a schema. */
export type RequestOf<O extends RouteOptions> = (O extends { route: { auth: true } } ? AuthedRequest : HttpRequest) &
  (O extends { body: infer S extends z.ZodMiniType } ? { body: z.output<S> } : unknown) &
  (O extends { query: infer Q extends z.ZodMiniType } ? { query: z.output<Q> } : unknown);

/** The replies an operation declares: for each success status, its schema's body (or, with none, any body). */
export type ReplyOf<O extends RouteOptions> = O extends { answers: infer A }
  ? {
      [S in keyof A & number]: A[S] extends { schema: infer B extends z.ZodMiniType }
        ? { status: S; body: z.output<B>; headers?: Record<string, string>; postCounted?: boolean }
        : { status: S; body?: unknown; headers?: Record<string, string>; raw?: boolean };
    }[keyof A & number]
  : never;

/** The request as the chain fills it in; a handler sees it as its route's RequestOf. */
type Filling = HttpRequest & Partial<Omit<AuthedRequest, keyof HttpRequest>> & { body?: unknown; query?: unknown };

/** `reply`: what the handler returned, once it has. */
type Ctx = Context & { req: Filling; reply?: Reply };
type Req = middy.Request<APIGatewayProxyEventV2, HttpResponse, Error, Ctx>;

const requestIdOf = (event: APIGatewayProxyEventV2) => event.requestContext?.requestId ?? 'unknown';

const envelope = (): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: (request: Req) => {
    const { event } = request;
    const headers = event.headers ?? {};
    // The id clients see in X-Request-Id and the envelope, on every log line of the request.
    logger.appendKeys({ requestId: requestIdOf(event) });
    request.context.req = {
      event,
      requestId: requestIdOf(event),
      now: new Date(),
      pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
      header: (name) => headers[name.toLowerCase()],
    };
  },
  onError: (request: Req) => {
    const requestId = requestIdOf(request.event);
    if (isTransient(request.error)) logger.warn('a store is briefly unavailable', { requestId, error: request.error as Error });
    else if (!(request.error instanceof AppError)) logger.error('unexpected failure', { requestId, error: request.error as Error });
    const response = errorResponse(request.error, requestId);
    const req = request.context.req;
    // A request refused by its window shows it spent; any other refusal (the resend budget's 429 too) the window it
    // was counted in.
    const window = (request.error as AppError).code === 'rate_limited' && req?.account && !req.rateLimit ? spent(req) : req?.rateLimit;
    request.response = { ...response, headers: { ...response.headers, ...rateLimitHeaders(window) } };
  },
});

const maintenance = (): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: () => {
    if (services().config.maintenance) throw serviceUnavailable('The service is under maintenance; retry with backoff', 60);
  },
});

const apiKeyAuth = (): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: async (request: Req) => {
    const req = request.context.req;
    const found = await services().accounts.authenticate(req.header('x-api-key'));
    if (!found) throw unauthorized();
    req.account = found.account;
  },
});

const isGet = (req: Filling) => req.event.requestContext?.http?.method === 'GET';

/** The window of a request its window refused: nothing left until it resets. */
function spent(req: Filling): AuthedRequest['rateLimit'] {
  const { limits } = services().config;
  const [policy, limit] = isGet(req) ? (['gets', limits.getsPerMinute] as const) : (['posts', limits.postsPerMinute] as const);
  return { policy, limit, remaining: 0, resetSeconds: minuteWindow(req.now).retryAfterSeconds };
}

/** Counts the request in its window, or refuses it (429) when the window is full. */
async function count(req: Filling, policy: 'posts' | 'gets' = 'posts') {
  const { accounts, config } = services();
  const window = minuteWindow(req.now);
  const limit = policy === 'posts' ? config.limits.postsPerMinute : config.limits.getsPerMinute;
  // A test-mode key counts in its live key's window: one set of limits per user.
  const held = await accounts.count(policy, limitsOwner(req.account!), window.start, limit);
  if (held === undefined) throw rateLimited(window.retryAfterSeconds, limit, policy);
  req.rateLimit = { policy, limit, remaining: Math.max(0, limit - held), resetSeconds: window.retryAfterSeconds };
}

/** The window a POST was counted in by its handler's own transaction (the creation). */
async function counted(req: Filling) {
  const { accounts, config } = services();
  const window = minuteWindow(req.now);
  const limit = config.limits.postsPerMinute;
  const held = await accounts.postsIn(limitsOwner(req.account!), window.start);
  req.rateLimit = { policy: 'posts', limit, remaining: Math.max(0, limit - held), resetSeconds: window.retryAfterSeconds };
}

const postCounter = (mode: 'before' | 'deferred'): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: async (request: Req) => {
    if (mode === 'before') await count(request.context.req);
  },
  after: async (request: Req) => {
    const req = request.context.req;
    if (mode === 'deferred') await (request.context.reply?.postCounted ? counted(req) : count(req));
    if (request.response) request.response.headers = { ...request.response.headers, ...rateLimitHeaders(req.rateLimit) };
  },
  onError: async (request: Req) => {
    const req = request.context.req;
    // Counted before the handler; or the handler returned, and its answer was counted (or tried) after it.
    if (mode === 'before' || request.context.reply || !req?.account || (request.error as AppError).code === 'rate_limited') return;
    // A full window wins over the handler's own error: the client has to slow down either way.
    await count(req).catch((err: unknown) => {
      request.error = err as Error;
    });
  },
});

/**
 * Every keyed GET counts in its key's GET window, once the key is verified (so no one else's requests fill it), and
 * before the query is checked, as a POST counts whatever its answer. Routes without a key are not counted per key.
 */
const getCounter = (): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: async (request: Req) => {
    await count(request.context.req, 'gets');
  },
  after: (request: Req) => {
    const req = request.context.req;
    if (request.response && req.rateLimit) request.response.headers = { ...request.response.headers, ...rateLimitHeaders(req.rateLimit) };
  },
});

const jsonBody = (schema: z.ZodMiniType): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: (request: Req) => {
    const req = request.context.req;
    const raw = request.event.body ?? '';
    const bytes = request.event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
    if (bytes.length > MAX_BODY_BYTES) throw badRequest(`The body is larger than ${MAX_BODY_BYTES} bytes`);
    const type = req.header('content-type');
    if (type !== undefined && !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(type)) {
      throw badRequest('Content-Type must be application/json');
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw badRequest('The body is not valid UTF-8');
    }
    if (!text.trim()) {
      // A body whose every field is optional (a secret rotation's overlap) may be left out.
      if (schema.safeParse({}).success) {
        req.body = validate(schema, {});
        return;
      }
      throw badRequest('The body must be a JSON object');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest('The body is not valid JSON');
    }
    req.body = validate(schema, parsed);
  },
});

/**
 * OpenAPI's deepObject style: `metadata[campaign]=spring` is `{ metadata: { campaign: 'spring' } }`; any other name is
 * taken as it is.
 */
export function deepObject(params: Record<string, string | undefined>): Record<string, unknown> {
  // Entries, made into objects by Object.fromEntries: a name such as `__proto__` stays an own key (an assignment
  // would set the prototype and hide it from the schema's check).
  const plain: [string, unknown][] = [];
  const groups = new Map<string, [string, string | undefined][]>();
  for (const [name, value] of Object.entries(params)) {
    const m = /^([^[\]]+)\[([^[\]]*)\]$/.exec(name);
    if (!m) plain.push([name, value]);
    else groups.set(m[1]!, [...(groups.get(m[1]!) ?? []), [m[2]!, value]]);
  }
  // A name sent both plain and as a group is the group's; the schema then names what is wrong.
  return Object.fromEntries([...plain.filter(([name]) => !groups.has(name)), ...[...groups].map(([name, pairs]) => [name, Object.fromEntries(pairs)])]);
}

const queryString = (schema: z.ZodMiniType): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse, Error, Ctx> => ({
  before: (request: Req) => {
    request.context.req.query = validate(schema, deepObject(request.event.queryStringParameters ?? {}));
  },
});

/**
 * Wraps a route's logic in the shared chain and turns its reply into an API Gateway response:
 * `httpRoute(operation)(async (req) => reply)`. Curried so the operation fixes the reply's type before the handler is
 * checked: a `status: 200` then stays the literal its answer is declared under.
 */
export function httpRoute<const O extends RouteOptions>(options: O) {
  return (fn: (req: RequestOf<O>) => Promise<ReplyOf<O>>) => {
    const chain = middy<APIGatewayProxyEventV2, HttpResponse, Error, Ctx>()
      .use(injectLambdaContext(logger, { resetKeys: true }))
      .use(publishMetrics())
      .use(envelope())
      .use(maintenance());
    if (options.route.auth) chain.use(apiKeyAuth());
    // Every keyed write counts in its key's POST window, before its handler or (`deferred`) in the handler's own
    // transaction; every keyed GET in its GET window.
    const window = rateWindowOf(options.route);
    if (window === 'posts') chain.use(postCounter(options.countPost ?? 'before'));
    if (window === 'gets') chain.use(getCounter());
    if (options.body) chain.use(jsonBody(options.body));
    if (options.query) chain.use(queryString(options.query));
    return chain.handler(async (_event, context) => {
      // The middlewares above have filled in what the options promise (or failed the request).
      const reply: Reply = await fn(context.req as RequestOf<O>);
      context.reply = reply;
      const headers: Record<string, string> = { 'x-request-id': context.req.requestId, ...reply.headers };
      if (reply.body === undefined) return { statusCode: reply.status, headers, body: '' };
      if (reply.raw) return { statusCode: reply.status, headers, body: String(reply.body) };
      return {
        statusCode: reply.status,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(reply.body),
      };
    });
  };
}
