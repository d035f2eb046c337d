/**
 * The OpenAPI 3.1 document of the contract, built from the operations (functions/http/operations.ts), the zod schemas
 * that validate the requests and describe the answers (functions/contract), and the one error mapping. GET
 * /openapi.json serves it; the docs page and the clients read it. Nothing here is specific to one operation.
 */
import * as z from 'zod/mini';
import * as balance from '../contract/balance.ts';
import * as assets from '../contract/assets.ts';
import * as orders from '../contract/orders.ts';
import { orderRecord } from '../contract/order-record.ts';
import { listOrdersQuery, orderList } from '../contract/order-list.ts';
import * as review from '../contract/review.ts';
import * as webhooks from '../contract/webhooks.ts';
import '../contract/zod.ts';
import { STATUS_OF } from './errors.ts';
import { type AnswerHeader, type Operation, OPERATIONS, rateWindowOf } from './operations.ts';

type Schema = z.core.$ZodType;
type Json = Record<string, unknown>;

const errorCode = z
  .enum(Object.keys(STATUS_OF) as [keyof typeof STATUS_OF, ...(keyof typeof STATUS_OF)[]])
  .check(
    z.describe(
      'A machine-readable error code, stable in v1, each with one HTTP status. Every operation lists the codes it can answer with, and what they mean there.',
    ),
  );
const errorEnvelope = z
  .object({
    error: z
      .object({
        code: errorCode.check(z.describe('What went wrong, for programs: branch on this, not on the message.')),
        message: z
          .string()
          .check(z.describe('What went wrong, for humans; its wording may change. A 422 names the field first (`placement.product: is required`).')),
        request_id: z.optional(z.string().check(z.describe('The request’s id, as its X-Request-Id header: quote it when asking about a failure (additive).'))),
      })
      .check(z.describe('The failure: its code, a message, and the request id.')),
  })
  .check(z.describe('The body of every error the service answers: `{error: {code, message, request_id}}`.'));
const gatewayMessage = z
  .object({ message: z.string().check(z.describe("API Gateway's own text, such as `Too Many Requests`.")) })
  .check(z.describe('What API Gateway answers by itself on AWS (its throttling, and some 500, 503 and 504): `{message}`, not the error envelope.'));

const HEADERS: Record<AnswerHeader | 'X-Request-Id' | 'RateLimit-Policy' | 'RateLimit', Json> = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': { description: '`true` on the answer to a repeated Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  Location: { description: 'Where the file is', schema: { type: 'string', format: 'uri' } },
  'X-Request-Id': { description: 'The request id, also in error envelopes', schema: { type: 'string' } },
  'RateLimit-Policy': {
    description:
      'The key’s limit of this kind of request (IETF RateLimit headers), per minute window: `"posts";q=<POSTs>;w=60` on a POST or a DELETE (one window for both), `"gets";q=<GETs>;w=60` on a GET',
    schema: { type: 'string', example: '"posts";q=30;w=60' },
  },
  RateLimit: {
    description: 'What is left of it: `"<policy>";r=<remaining>;t=<seconds until the window resets>`',
    schema: { type: 'string', example: '"posts";r=29;t=41' },
  },
};
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit'] as const;
/** The operations counted per key, each in its key's window of POSTs (DELETEs too) or of GETs. */
const countedPerKey = ({ route }: Operation) => rateWindowOf(route) !== undefined;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The gateway's own throttling answer, beside the service's 429s: every route has a ceiling on AWS. */
const GATEWAY_THROTTLE = "API Gateway's own throttling on AWS (the stage's per-route ceiling): `{message}`, not the envelope";
/** Where the deployment has the edge (AWS WAF in front of the API), an address past its limit, on any route. */
const EDGE_LIMIT = '`rate_limited` from the edge where the deployment has one: more requests a minute from one address than it allows';

function errorResponses(op: Operation): Record<string, Json> {
  const codes = new Set<keyof typeof STATUS_OF>(['internal_error', 'service_unavailable', ...(op.errors ?? [])]);
  if (op.route.auth) codes.add('unauthorized');
  if (op.body) for (const c of ['bad_request', 'invalid_params'] as const) codes.add(c);
  if (op.query) codes.add('invalid_params');
  if (countedPerKey(op)) codes.add('rate_limited');
  const byStatus = new Map<number, string[]>([[429, []]]);
  for (const code of codes) byStatus.set(STATUS_OF[code], [...(byStatus.get(STATUS_OF[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => {
      const described = list.map((c) => `\`${c}\`${op.notes?.[c as keyof typeof STATUS_OF] ? ` (${op.notes[c as keyof typeof STATUS_OF]})` : ''}`);
      const envelope = ref('ErrorResponse');
      const schema = status !== 429 ? envelope : { oneOf: [envelope, ref('GatewayMessage')] };
      return [
        String(status),
        {
          description: [...described, ...(status === 429 ? [EDGE_LIMIT, GATEWAY_THROTTLE] : [])].join('; '),
          headers: {
            'X-Request-Id': HEADERS['X-Request-Id'],
            ...(status === 429 || status === 503 ? { 'Retry-After': HEADERS['Retry-After'] } : {}),
            ...(status === 429 && countedPerKey(op) ? Object.fromEntries(RATE_LIMIT_HEADERS.map((h) => [h, HEADERS[h]])) : {}),
          },
          content: { 'application/json': { schema } },
        },
      ];
    }),
  );
}

/** The query parameters of a query schema (named in components), one per property, described by the schema. */
function queryParams(schema: Schema): Json[] {
  const js = componentSchemas()[nameOf(schema)!]!;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.entries(js.properties as Record<string, Json>).map(([name, { description, ...property }]) => {
    if (!description) throw new Error(`The query parameter ${name} has no description (z.describe on its schema)`);
    // An object is sent as `name[KEY]=VALUE` (the middleware's deepObject).
    const style = property.type === 'object' ? { style: 'deepObject', explode: true } : {};
    return { name, in: 'query', required: required.has(name) && property.default === undefined, description, ...style, schema: property };
  });
}

const PATH_PARAMS: Record<string, Json> = {
  id: { description: 'Order id (vid_...), webhook id (wh_...) or asset id (ast_...)', schema: { type: 'string' } },
  file: { description: 'video.mp4 or cover.jpg', schema: { type: 'string' } },
  asset: { description: 'swagger-ui-bundle.js or swagger-ui.css', schema: { type: 'string' } },
};

/**
 * The schemas named under components, by the zod schema they come from: requests (strict: an unknown field is a 400),
 * answers (open: a later additive field breaks no client that validates them), and what both share.
 */
const REQUESTS: [string, Schema][] = [
  ['QuickVideoRequest', orders.quickVideoBody],
  ['CreateVideoRequest', orders.createVideoRequest],
  ['ReviewRequest', review.reviewBody],
  ['ReviewApprove', review.reviewApprove],
  ['ReviewEdit', review.reviewEdit],
  ['ReviewRegen', review.reviewRegen],
  ['CreateWebhookRequest', webhooks.createWebhookBody],
  ['QuoteRequest', orders.quoteRequest],
  ['RotateWebhookRequest', webhooks.rotateWebhookBody],
  ['ResendRequest', webhooks.resendBody],
  ['BalanceAlertRequest', balance.balanceAlertBody],
  ['CreateAssetRequest', assets.createAssetBody],
];
/** Query strings: made with the requests (their enums by name), then spread into parameters, not published. */
const QUERIES: [string, Schema][] = [
  ['ListVideosQuery', listOrdersQuery],
  ['ListTransactionsQuery', balance.listTransactionsQuery],
  ['ListAssetsQuery', assets.listAssetsQuery],
];
const ANSWERS: [string, Schema][] = [
  ['CreationResponse', orders.creationResponse],
  ['Order', orderRecord],
  ['OrderList', orderList],
  ['Quote', orders.quoteResponse],
  ['WebhookCreated', webhooks.webhookCreated],
  ['WebhookList', webhooks.webhookList],
  ['DeliveryList', webhooks.deliveryList],
  ['WebhookRotated', webhooks.webhookRotated],
  ['WebhookTestResult', webhooks.webhookTestResult],
  ['WebhookTestEvent', webhooks.webhookTestEvent],
  ['ResendResult', webhooks.resendResult],
  ['Balance', balance.balanceResponse],
  ['BalanceLowEvent', balance.balanceLowEvent],
  ['TransactionList', balance.transactionList],
  ['AssetCreated', assets.assetCreated],
  ['Asset', assets.assetView],
  ['AssetList', assets.assetList],
  ['ErrorResponse', errorEnvelope],
  ['GatewayMessage', gatewayMessage],
];
const SHARED: [string, Schema][] = [
  ['OrderStatus', orders.orderStatus],
  ['Language', orders.language],
  ['Tone', orders.tone],
  ['Music', orders.music],
  ['Voice', orders.voice],
  ['Billing', orders.billing],
  ['Channel', orders.channel],
  ['WebhookEvent', webhooks.webhookEvent],
  ['TransactionKind', balance.transactionKind],
  ['AssetContentType', assets.assetContentType],
  ['ErrorCode', errorCode],
];
/**
 * An operation's schema the tables above do not name is named after the operation (`GetVideoScriptRequest`,
 * `...Query`, `...Response`, a second answer's `...Response201`), so a new route needs no entry here.
 */
function unnamed(kind: 'body' | 'query' | 'answers'): [string, Schema][] {
  const named = new Set<Schema>([...REQUESTS, ...QUERIES, ...ANSWERS].map(([, s]) => s));
  const found: [string, Schema][] = [];
  const add = (name: string, schema: Schema | undefined) => {
    if (schema && !named.has(schema)) {
      named.add(schema);
      found.push([name, schema]);
    }
  };
  for (const op of OPERATIONS) {
    const base = op.id[0]!.toUpperCase() + op.id.slice(1);
    if (kind === 'body') add(`${base}Request`, op.body);
    if (kind === 'query') add(`${base}Query`, op.query);
    if (kind === 'answers') for (const [i, [status, a]] of Object.entries(op.answers).entries()) add(`${base}Response${i ? status : ''}`, a.schema);
  }
  return found;
}
REQUESTS.push(...unnamed('body'));
QUERIES.push(...unnamed('query'));
ANSWERS.push(...unnamed('answers'));
const NAMED = [...REQUESTS, ...QUERIES, ...ANSWERS, ...SHARED];
/** Each named component with the zod schema it comes from (the document's tests check examples with them). */
export const namedSchemas = (): readonly (readonly [string, Schema])[] => NAMED;

/** Drops every `additionalProperties: false` below `node`: an answer may carry fields added later. */
function openToAdditions(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  if (o.additionalProperties === false) delete o.additionalProperties;
  for (const v of Object.values(o)) openToAdditions(v);
}

let components: Record<string, Json> | undefined;

/** components.schemas: each named schema once, referring to the others by name. */
function componentSchemas(): Record<string, Json> {
  if (components) return components;
  const schemas: Record<string, Json> = {};
  for (const [io, named] of [
    ['input', [...REQUESTS, ...QUERIES, ...SHARED]],
    ['output', [...ANSWERS, ...SHARED]],
  ] as const) {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of named) registry.add(schema, { id });
    const made = z.toJSONSchema(registry, {
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
      // A time's format says it all; zod's pattern for it only makes the document harder to read.
      override: ({ jsonSchema }) => {
        if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
      },
    }).schemas as Record<string, Json>;
    for (const [id, { $schema: _s, $id: _i, ...schema }] of Object.entries(made)) {
      if (io === 'output') openToAdditions(schema);
      schemas[id] = schema;
    }
  }
  const branches = { approve: 'ReviewApprove', edit: 'ReviewEdit', regen: 'ReviewRegen' };
  schemas.ReviewRequest = {
    ...schemas.ReviewRequest,
    discriminator: { propertyName: 'action', mapping: Object.fromEntries(Object.entries(branches).map(([a, n]) => [a, `#/components/schemas/${n}`])) },
  };
  components = schemas;
  return schemas;
}
const nameOf = (schema: Schema) => NAMED.find(([, s]) => s === schema)?.[0];
const schemaRef = (schema: Schema) => {
  const name = nameOf(schema);
  if (!name) throw new Error('A schema of the API is not named in the OpenAPI components');
  return ref(name);
};

const codeSamples = (op: Operation) =>
  op.examples
    ? {
        'x-codeSamples': [
          { lang: 'Shell', label: 'curl', source: op.examples.curl },
          { lang: 'JavaScript', label: 'JavaScript client', source: op.examples.js },
          { lang: 'Python', label: 'Python client', source: op.examples.python },
        ],
      }
    : {};

const samplesMarkdown = (op: Operation) =>
  op.examples
    ? `\n\n**curl**\n\n\`\`\`sh\n${op.examples.curl}\n\`\`\`\n\n**JavaScript**\n\n\`\`\`js\n${op.examples.js}\n\`\`\`\n\n**Python**\n\n\`\`\`python\n${op.examples.python}\n\`\`\``
    : '';

function operation(op: Operation): Json {
  const params: Json[] = [...op.route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, ...PATH_PARAMS[m[1]!] }));
  if (op.query) params.push(...queryParams(op.query));
  for (const q of op.checkedQuery ?? []) params.push({ name: q.name, in: 'query', required: true, description: q.description, schema: q.schema });
  if (op.idempotent) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Your key for this order, 1 to 255 characters, remembered 24 hours: a repeat returns the original order (200) and charges nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return {
    operationId: op.id,
    summary: op.summary,
    description: op.description + samplesMarkdown(op),
    tags: [op.tag],
    ...(op.route.auth ? {} : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    // A body whose fields are all optional may be left out (functions/http/middleware.ts).
    ...(op.body ? { requestBody: { required: !z.safeParse(op.body, {}).success, content: { 'application/json': { schema: schemaRef(op.body) } } } } : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(op.answers).map(([status, r]) => [
          status,
          {
            description: r.description,
            headers: Object.fromEntries(
              ['X-Request-Id' as const, ...(r.headers ?? []), ...(countedPerKey(op) ? RATE_LIMIT_HEADERS : [])].map((h) => [h, HEADERS[h]]),
            ),
            ...(r.schema ? { content: { 'application/json': { schema: schemaRef(r.schema) } } } : {}),
            ...(r.content ? { content: r.content } : {}),
          },
        ]),
      ),
      ...errorResponses(op),
    },
    ...codeSamples(op),
  };
}

const EVENTS = {
  'video.awaiting_review': 'Director mode: the script waits for a decision (POST /videos/{id}/review).',
  'video.done': 'The video is ready; the body carries result_url and metadata.',
  'video.error':
    'Generation failed (or the order was canceled); the doubloons are already refunded, as the body’s `refund` says (amount 0 in test mode, which moves no money).',
  'balance.low':
    'A charge left the balance below the key’s threshold (POST /balance/alerts): sent once per crossing, and again only after a top-up lifts the balance to the threshold or more and a charge crosses it again. Not an order event: its body is a BalanceLowEvent; retried and resendable like the order events.',
  'webhook.test': 'A test delivery asked for with POST /webhooks/{id}/test: not an order event; sent once, not retried.',
} as const;

/** The body each webhook event carries: the order (GET /videos/{id}), or an event's own. */
const EVENT_BODY: Partial<Record<keyof typeof EVENTS, string>> = { 'balance.low': 'BalanceLowEvent', 'webhook.test': 'WebhookTestEvent' };

function webhook(event: keyof typeof EVENTS): Json {
  return {
    post: {
      // video.awaiting_review -> videoAwaitingReview: the name generated receivers give the handler.
      operationId: event.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase()),
      summary: event,
      // Signed by the service, not called with a key.
      security: [],
      description:
        event === 'webhook.test'
          ? `${EVENTS[event]} Signed as every event is.`
          : event === 'balance.low'
            ? `${EVENTS[event]} Verify X-Service-Signature (or the Standard Webhooks headers) over the raw body before parsing it; the idempotency key is the event id (X-Service-Event-Id, webhook-id, the body's \`id\`).`
            : `${EVENTS[event]} The body is the order as GET /videos/{id} returns it. Verify X-Service-Signature (or the Standard Webhooks headers) over the raw body before parsing it; the idempotency key of an event is the order id plus status (X-Service-Event-Id, webhook-id).`,
      parameters: [
        {
          name: 'X-Service-Signature',
          in: 'header',
          required: true,
          description: 'Lowercase hex HMAC-SHA256 of the raw body bytes with the webhook secret as key',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        {
          name: 'X-Service-Signature-Previous',
          in: 'header',
          required: false,
          description: 'During a secret rotation’s overlap: the same signature with the previous secret',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: 'Standard Webhooks: the event id, stable across attempts',
          schema: { type: 'string' },
        },
        { name: 'webhook-timestamp', in: 'header', required: true, description: 'Standard Webhooks: unix seconds of this attempt', schema: { type: 'string' } },
        {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description:
            'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed by the secret’s base64 part decoded; two during a rotation’s overlap',
          schema: { type: 'string' },
        },
        { name: 'X-Service-Event', in: 'header', required: true, description: 'The event type', schema: { type: 'string', enum: [event] } },
        { name: 'X-Service-Event-Id', in: 'header', required: true, description: 'Stable across the attempts of one event', schema: { type: 'string' } },
        { name: 'X-Service-Timestamp', in: 'header', required: true, description: 'Unix time of this attempt', schema: { type: 'string' } },
        {
          name: 'X-Service-Delivery-Attempt',
          in: 'header',
          required: true,
          description: '1 to 5 (a manual resend adds one attempt: 6 at the first)',
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(EVENT_BODY[event] ?? 'Order') } } },
      responses: { '2XX': { description: 'Received. Anything else, or no answer within 5 seconds, is retried (5 attempts, the gap doubling from 30 s).' } },
    },
  };
}

/** Freezes `node` and everything below it. */
function deepFreeze<T>(node: T): T {
  if (node && typeof node === 'object' && !Object.isFrozen(node)) {
    Object.freeze(node);
    for (const v of Object.values(node)) deepFreeze(v);
  }
  return node;
}

let built: Json | undefined;

/**
 * The document; `serverUrl` is the API's base address, /v1 included. Each call returns a copy of its own: a tool that
 * edits the document it is given (openapi-typescript rewrites a discriminated union's `const` into an `enum`, in
 * place) cannot change what this process serves or builds afterwards; the one built is frozen.
 */
export function openApiDocument(serverUrl: string): Json {
  built ??= deepFreeze({
    openapi: '3.1.0',
    info: {
      title: 'Video generation service',
      version: '1.0.0',
      description:
        'Short vertical videos (mp4) ordered by text, paid in doubloons (1 doubloon = 1 ruble). Follow an order by polling GET /videos/{id} or by signed webhooks; download the result through its 7-day link. Errors answer `{error: {code, message}}`. Each key’s POSTs and DELETEs (in one window) and its GETs (in another) are counted per minute (the RateLimit headers show what is left; past it, 429 `rate_limited`). Clients should retry GET with exponential backoff and jitter, follow Retry-After on 429 and 5xx, and send an Idempotency-Key on every order. v1 changes only by additions (new routes, new optional request fields, new fields in answers): ignore answer fields you do not know. On AWS, API Gateway itself may answer 429, 500, 503 or 504 with `{message}` instead of the envelope; where the deployment has the edge, one address past its requests a minute gets 429 `rate_limited` (the envelope, with Retry-After) on any route.',
      contact: { name: 'The service operators, through the chat bot that issues API keys' },
      license: { name: 'Proprietary: for the holders of an API key', identifier: 'LicenseRef-Proprietary' },
    },
    tags: [
      { name: 'Orders', description: 'Order a video, follow it, review its script' },
      { name: 'Assets', description: "The key's own pictures (product, logo), uploaded through presigned URLs and named by orders" },
      { name: 'Webhooks', description: "The key's webhook: registration and delivery attempts" },
      { name: 'Account', description: 'Balance, trial videos and plan' },
      { name: 'Files', description: 'Downloads through signed links, no key' },
      { name: 'Contract', description: 'This document and its reference page, no key' },
    ],
    security: [{ ApiKey: [] }],
    // Paths are relative to the base address, which ends with /v1 (spec: Endpoints).
    paths: OPERATIONS.reduce<Json>((paths, op) => {
      const { path, method } = op.route;
      paths[path] = { ...(paths[path] as Json | undefined), [method.toLowerCase()]: operation(op) };
      return paths;
    }, {}),
    webhooks: Object.fromEntries((Object.keys(EVENTS) as (keyof typeof EVENTS)[]).map((e) => [e, webhook(e)])),
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Issued by the chat bot (/apikey); shown once.' } },
      schemas: Object.fromEntries(Object.entries(componentSchemas()).filter(([name]) => !QUERIES.some(([q]) => q === name))),
    },
  });
  // The servers entry is this deployment's, in its documented place after info.
  const { openapi, info, ...rest } = structuredClone(built);
  return { openapi, info, servers: [{ url: serverUrl, description: 'This deployment' }], ...rest };
}
