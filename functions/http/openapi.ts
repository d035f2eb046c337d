/**
 * The OpenAPI 3.1 document of the contract, built from the route table, the zod schemas that validate the requests
 * and describe the answers (functions/contract), and the one error mapping. GET /openapi.json serves it; the docs
 * page and the clients read it. Each route's operation is described once, here.
 */
import * as z from 'zod/mini';
import { balanceResponse, listTransactionsQuery, transactionKind, transactionList } from '../contract/balance.ts';
import {
  billing,
  channel,
  creationResponse,
  createVideoRequest,
  language,
  music,
  listOrdersQuery,
  orderList,
  orderRecord,
  orderStatus,
  quickVideoBody,
  quoteRequest,
  quoteResponse,
  tone,
  voice,
} from '../contract/orders.ts';
import { reviewApprove, reviewBody, reviewEdit, reviewRegen } from '../contract/review.ts';
import {
  createWebhookBody,
  deliveryList,
  resendBody,
  resendResult,
  rotateWebhookBody,
  webhookCreated,
  webhookEvent,
  webhookList,
  webhookRotated,
  webhookTestEvent,
  webhookTestResult,
} from '../contract/webhooks.ts';
import '../contract/zod.ts';
import { STATUS_OF } from './errors.ts';
import { ROUTES, type Route } from './routes.ts';

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

interface Operation {
  id: string;
  summary: string;
  description: string;
  tag: 'Orders' | 'Webhooks' | 'Account' | 'Files' | 'Contract';
  body?: Schema;
  /** The query string's schema: each property is a query parameter (described in QUERY_PARAMS). */
  query?: Schema;
  /** Success answers: status -> schema (undefined: no body). */
  ok: Record<number, { description: string; schema?: Schema; headers?: string[] }>;
  /** The error codes this operation can answer with, beyond those every operation shares. */
  errors?: (keyof typeof STATUS_OF)[];
  /** What an error code means here, beyond its name. */
  notes?: Partial<Record<keyof typeof STATUS_OF, string>>;
  idempotent?: boolean;
  examples?: { curl: string; js: string; python: string };
}

const example = (curl: string, js: string, python: string) => ({ curl, js, python });

/** What both creation routes answer: 201, or 200 for a repeated Idempotency-Key, and the pricing refusals. */
const CREATION: Pick<Operation, 'ok' | 'errors' | 'notes' | 'idempotent'> = {
  ok: {
    201: { description: 'Order accepted', schema: creationResponse },
    200: { description: 'Idempotent repeat: the original order', schema: creationResponse, headers: ['Idempotent-Replayed'] },
  },
  // generator_unavailable: reserved by the contract for a planner that cannot be reached.
  errors: [
    'insufficient_funds',
    'fair_use_exceeded',
    'active_tasks_exceeded',
    'review_limit_exceeded',
    'generator_unavailable',
    'quote_invalid',
    'max_cost_exceeded',
  ],
  notes: {
    invalid_params:
      'also an Idempotency-Key used with a different request in the last 24 hours, and a paid extra the service cannot make now; the message names the field',
  },
  idempotent: true,
};

/** By handler name (the route table's). */
const OPERATIONS: Record<string, Operation> = {
  'create-quick': {
    id: 'createQuickVideo',
    summary: 'Order a video from a one-line prompt',
    description:
      "The planner turns the prompt into order parameters (shown under `params` of the order). Charged at once; 200 with the original order when the Idempotency-Key repeats. A prompt asking for a paid extra the service cannot make now (AI visuals, a cloned voice) gets 422 `invalid_params` naming the extra's field, before any charge.",
    tag: 'Orders',
    body: quickVideoBody,
    ...CREATION,
    examples: example(
      `curl -s -X POST "$BASE/videos:quick" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: 7f0c...' -d '{"prompt": "Funny 20 second video about cats with a song"}'`,
      `const order = await client.createQuick('Funny 20 second video about cats with a song');`,
      `order = client.create_quick("Funny 20 second video about cats with a song")`,
    ),
  },
  'create-video': {
    id: 'createVideo',
    summary: 'Order a video with explicit parameters',
    description:
      'Every field but `topic` is optional. With `director_mode: true` the order stops at `awaiting_review` until POST /videos/{id}/review. ' +
      'A paid extra the service cannot make now is refused with 422 `invalid_params` naming its field, before any charge: today `ai_visual: true` and `voice: "clone"` (no image generator or voice-cloning speech provider is configured).',
    tag: 'Orders',
    body: createVideoRequest,
    ...CREATION,
    examples: example(
      `curl -s -X POST "$BASE/videos" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\\n  -d '{"topic": "Green tea", "duration_seconds": 15, "director_mode": true}'`,
      `const order = await client.createVideo({ topic: 'Green tea', duration_seconds: 15, director_mode: true });`,
      `order = client.create_video({"topic": "Green tea", "duration_seconds": 15, "director_mode": True})`,
    ),
  },
  'quote-video': {
    id: 'quoteVideo',
    summary: 'Price an order before placing it, and hold that price',
    description:
      'Takes the body of POST /videos or of POST /videos:quick and answers what that order would cost this key now, item by item (the base, each paid extra, whether a trial video or the plan’s allowance pays), its eta_seconds, and a `quote_id`. ' +
      'The same request with `quote_id` within 15 minutes (`expires_at`) is charged exactly `cost`, even if prices change meanwhile; a quote prices one order. It is refused with 409 `quote_invalid` when it has expired or was used, was made for another request, or counted on a trial video or a plan allowance that is no longer there. Nothing is charged by a quote. ' +
      'A request the creation would refuse for what it asks (an extra the service cannot make now, a used-up plan allowance) is refused alike.',
    tag: 'Orders',
    body: quoteRequest,
    ok: { 200: { description: 'The price and the quote that holds it', schema: quoteResponse } },
    errors: ['fair_use_exceeded'],
    examples: example(
      `curl -s -X POST "$BASE/videos:quote" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"topic": "Green tea", "music": "song"}'`,
      `const { quote_id, cost } = await client.quote({ topic: 'Green tea', music: 'song' });`,
      `quote = client.quote({"topic": "Green tea", "music": "song"})`,
    ),
  },
  'get-video': {
    id: 'getVideo',
    summary: 'Read an order',
    description:
      'The same JSON is every webhook body. A done order carries a fresh 7-day `result_url` on every read (`expires_at`). While the order is active it shows `eta_seconds`, its `queue_position` (queued) or `progress` (running), and `Retry-After` says when polling again is worthwhile.',
    tag: 'Orders',
    ok: { 200: { description: 'The order', schema: orderRecord, headers: ['Retry-After'] } },
    errors: ['forbidden', 'not_found'],
    examples: example(
      `curl -s "$BASE/videos/vid_..." -H "X-API-Key: $KEY"`,
      `const order = await client.getVideo('vid_...');`,
      `order = client.get_video("vid_...")`,
    ),
  },
  'list-videos': {
    id: 'listVideos',
    summary: "List the key's orders, newest first",
    description:
      'A page of orders (each as GET /videos/{id} answers it), newest first. Pass `next_starting_after` as `starting_after` for the next page while `has_more` is true. ' +
      'Read strongly consistent: an order is listed as soon as its creation has answered. The time filters narrow the read; a `status` filter looks at no more than three times `limit` orders per request, so a page may be short, even empty, with `has_more: true` and a cursor to go on from. ' +
      '`created_gte` after `created_lt` is 422; times outside the data (before 1970, far ahead) and a cursor older than `created_gte` give an empty page.',
    tag: 'Orders',
    query: listOrdersQuery,
    ok: { 200: { description: 'A page of orders', schema: orderList } },
    examples: example(
      `curl -s "$BASE/videos?limit=10&status=done" -H "X-API-Key: $KEY"`,
      `for await (const order of client.listVideos({ status: 'done' })) console.log(order.id);`,
      `for order in client.list_videos(status="done"): print(order["id"])`,
    ),
  },
  'review-video': {
    id: 'reviewVideo',
    summary: 'Approve, edit or regenerate the script of an order in awaiting_review',
    description:
      "approve and edit continue to rendering; regen rewrites the script along the note and the order comes back to awaiting_review. Each decision makes the order `running` again, which takes one of the key's active tasks: at the limit it is 429 `active_tasks_exceeded` with Retry-After and the order stays in awaiting_review. An order's script is rewritten at most 3 times (then 409 `regen_limit_reached`: approve it, edit it or cancel the order).",
    tag: 'Orders',
    body: reviewBody,
    ok: { 200: { description: 'The order, now running', schema: orderRecord } },
    errors: ['forbidden', 'not_found', 'not_awaiting_review', 'regen_limit_reached', 'active_tasks_exceeded'],
    examples: example(
      `curl -s -X POST "$BASE/videos/vid_.../review" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"action": "approve"}'`,
      `await client.review('vid_...', { action: 'approve' });`,
      `client.review("vid_...", {"action": "approve"})`,
    ),
  },
  'cancel-video': {
    id: 'cancelVideo',
    summary: 'Cancel an order that is queued or awaiting review, with a full refund',
    description:
      'The order ends in `error` with `error.code` `canceled`: its doubloons (or trial video, or plan allowance) are given back, its active-task slot is freed, and the `video.error` event is sent. A repeated cancel answers the same order. A running, done or failed order is 409 `not_cancelable`: a render in progress cannot be stopped (an order created with `deadline_seconds` is canceled by its deadline until its render starts).',
    tag: 'Orders',
    ok: { 200: { description: 'The canceled order', schema: orderRecord } },
    errors: ['forbidden', 'not_found', 'not_cancelable'],
    examples: example(
      `curl -s -X POST "$BASE/videos/vid_.../cancel" -H "X-API-Key: $KEY"`,
      `const order = await client.cancel('vid_...');`,
      `order = client.cancel("vid_...")`,
    ),
  },
  'create-webhook': {
    id: 'createWebhook',
    summary: 'Register (or replace) the webhook',
    description: 'One webhook per key; a repeat replaces the url and issues a new secret, shown only in this answer. The url must be public HTTPS.',
    tag: 'Webhooks',
    body: createWebhookBody,
    ok: { 201: { description: 'The webhook with its signing secret', schema: webhookCreated } },
    examples: example(
      `curl -s -X POST "$BASE/webhooks" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"url": "https://example.com/hooks/video"}'`,
      `const { secret } = await client.createWebhook('https://example.com/hooks/video');`,
      `secret = client.create_webhook("https://example.com/hooks/video")["secret"]`,
    ),
  },
  'list-webhooks': {
    id: 'listWebhooks',
    summary: 'The webhook of the key',
    description: 'A list of at most one webhook, without its secret.',
    tag: 'Webhooks',
    ok: { 200: { description: 'The webhooks', schema: webhookList } },
    examples: example(
      `curl -s "$BASE/webhooks" -H "X-API-Key: $KEY"`,
      `const { data } = await client.listWebhooks();`,
      `webhooks = client.list_webhooks()["data"]`,
    ),
  },
  'delete-webhook': {
    id: 'deleteWebhook',
    summary: 'Delete the webhook',
    description: 'Events from then on are not delivered.',
    tag: 'Webhooks',
    ok: { 204: { description: 'Deleted' } },
    errors: ['forbidden', 'not_found'],
    examples: example(
      `curl -s -X DELETE "$BASE/webhooks/wh_..." -H "X-API-Key: $KEY"`,
      `await client.deleteWebhook('wh_...');`,
      `client.delete_webhook("wh_...")`,
    ),
  },
  'list-deliveries': {
    id: 'listDeliveries',
    summary: 'Recent delivery attempts of the webhook',
    description: 'The latest 50 attempts, newest first: time, HTTP status or error, latency and outcome.',
    tag: 'Webhooks',
    ok: { 200: { description: 'Delivery attempts', schema: deliveryList } },
    errors: ['forbidden', 'not_found'],
    examples: example(
      `curl -s "$BASE/webhooks/wh_.../deliveries" -H "X-API-Key: $KEY"`,
      `const { data } = await client.listDeliveries('wh_...');`,
      `attempts = client.list_deliveries("wh_...")["data"]`,
    ),
  },
  'rotate-webhook': {
    id: 'rotateWebhookSecret',
    summary: 'Rotate the webhook secret, with an overlap',
    description:
      'A new secret, shown only in this answer. The previous one keeps signing beside it for `overlap_seconds` (default a day, at most 7 days; 0 stops it at once): X-Service-Signature-Previous and a second `webhook-signature` entry carry it, so a receiver verifies with either secret until `previous_secret_expires_at`, and only with the new one after.',
    tag: 'Webhooks',
    body: rotateWebhookBody,
    ok: { 200: { description: 'The webhook with its new secret', schema: webhookRotated } },
    errors: ['forbidden', 'not_found'],
    examples: example(
      `curl -s -X POST "$BASE/webhooks/wh_.../rotate" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"overlap_seconds": 3600}'`,
      `const { secret } = await client.rotateWebhookSecret('wh_...', { overlap_seconds: 3600 });`,
      `secret = client.rotate_webhook_secret("wh_...", overlap_seconds=3600)["secret"]`,
    ),
  },
  'test-webhook': {
    id: 'testWebhook',
    summary: 'Send a test event to the webhook now',
    description:
      'One `webhook.test` delivery, signed as every event is, sent now and not retried; the answer says whether the receiver took it (2xx within 5 s), its HTTP status or the kind of error (`connection refused`, `timed out: no answer within 5 s`, a TLS error, ...; never an address), and the latency.',
    tag: 'Webhooks',
    ok: { 200: { description: 'The attempt', schema: webhookTestResult } },
    errors: ['forbidden', 'not_found'],
    examples: example(
      `curl -s -X POST "$BASE/webhooks/wh_.../test" -H "X-API-Key: $KEY"`,
      `const { delivered } = await client.testWebhook('wh_...');`,
      `result = client.test_webhook("wh_...")`,
    ),
  },
  'resend-events': {
    id: 'resendEvents',
    summary: 'Deliver events again: one, or every dropped one since a time',
    description:
      '`{"event_id": "vid_...:done"}` sends that event again (delivered, dropped or never sent for want of a webhook; 409 `delivery_in_progress` while its attempts go on); `{"since": "<ISO 8601>"}` sends again every event whose delivery was dropped since then (attempts are kept 30 days), at most 100 a call (`has_more`: call again). Each gets one attempt (it ends delivered, or dropped again), to the webhook as it is now, with the same event id (deduplicate on it) and the order record of its moment. A key may have at most 100 events resent per hour (a deployment setting): past that budget, 429 `rate_limited` with Retry-After (the seconds to the hour’s end); a replay sends what the budget has left and says `has_more`.',
    tag: 'Webhooks',
    body: resendBody,
    ok: { 202: { description: 'The events being sent again', schema: resendResult } },
    errors: ['forbidden', 'not_found', 'delivery_in_progress'],
    examples: example(
      `curl -s -X POST "$BASE/webhooks/wh_.../resend" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"since": "2026-11-24T00:00:00Z"}'`,
      `const { resent } = await client.resendEvents('wh_...', { since: '2026-11-24T00:00:00Z' });`,
      `resent = client.resend_events("wh_...", since="2026-11-24T00:00:00Z")["resent"]`,
    ),
  },
  'get-balance': {
    id: 'getBalance',
    summary: 'The balance in doubloons',
    description: 'Doubloons, trial videos left and, for users with a plan, the heavy videos left this month.',
    tag: 'Account',
    ok: { 200: { description: 'The balance', schema: balanceResponse } },
    examples: example(`curl -s "$BASE/balance" -H "X-API-Key: $KEY"`, `const balance = await client.getBalance();`, `balance = client.get_balance()`),
  },
  'list-transactions': {
    id: 'listTransactions',
    summary: 'Where the money went: the ledger, newest first',
    description:
      'Every entry of the balance: charges (`charge`; `trial` when a trial video paid the base, `plan_allowance` when the plan paid the heavy extras), refunds with their reason (the order’s error code), top-ups; each with the balance after it (the older entry’s plus its amount, in the order the entries were committed) and its order. Pass `next_starting_after` as `starting_after` for the next page while `has_more` is true.',
    tag: 'Account',
    query: listTransactionsQuery,
    ok: { 200: { description: 'A page of ledger entries', schema: transactionList } },
    examples: example(
      `curl -s "$BASE/balance/transactions?limit=20" -H "X-API-Key: $KEY"`,
      `for await (const t of client.listTransactions()) console.log(t.kind, t.amount, t.balance_after);`,
      `for t in client.list_transactions(): print(t["kind"], t["amount"], t["balance_after"])`,
    ),
  },
  'download-file': {
    id: 'downloadFile',
    summary: 'Download an order file through its signed link',
    description:
      'The target of `result_url` and `cover_url`: no key. A valid link redirects to the file; a tampered or expired one is 403, a file past its 30 days 404.',
    tag: 'Files',
    ok: {
      302: { description: 'Redirect to the file', headers: ['Location'] },
      200: { description: 'The file itself, where the redirect leads (a client that follows redirects gets this): the mp4 or the JPEG cover' },
    },
    errors: ['forbidden', 'not_found'],
  },
  'get-openapi': {
    id: 'getOpenApi',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of the contract. No key.',
    tag: 'Contract',
    ok: { 200: { description: 'The OpenAPI document' } },
  },
  'get-docs': {
    id: 'getDocs',
    summary: 'The interactive reference',
    description: 'An HTML page rendering this document, served with its assets by the service. No key.',
    tag: 'Contract',
    ok: { 200: { description: 'The reference page (HTML)' } },
    errors: ['not_found'],
  },
};

const HEADERS: Record<string, Json> = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': { description: '`true` on the answer to a repeated Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
  Location: { description: 'Where the file is', schema: { type: 'string', format: 'uri' } },
  'X-Request-Id': { description: 'The request id, also in error envelopes', schema: { type: 'string' } },
  'RateLimit-Policy': {
    description:
      'The key’s limit of this kind of request (IETF RateLimit headers), per minute window: `"posts";q=<POSTs>;w=60` on a POST, `"gets";q=<GETs>;w=60` on a GET',
    schema: { type: 'string', example: '"posts";q=30;w=60' },
  },
  RateLimit: {
    description: 'What is left of it: `"<policy>";r=<remaining>;t=<seconds until the window resets>`',
    schema: { type: 'string', example: '"posts";r=29;t=41' },
  },
};
const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit'];
/** The routes counted per key, each in its key's window of POSTs or of GETs. */
const countedPerKey = (route: Route) => route.auth && (route.method === 'POST' || route.method === 'GET');

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The gateway's own throttling answer, beside the service's 429s: every route has a ceiling on AWS. */
const GATEWAY_THROTTLE = "API Gateway's own throttling on AWS (the stage's per-route ceiling): `{message}`, not the envelope";
/** Where the deployment has the edge (AWS WAF in front of the API), an address past its limit, on any route. */
const EDGE_LIMIT = '`rate_limited` from the edge where the deployment has one: more requests a minute from one address than it allows';

function errorResponses(route: Route, op: Operation): Record<string, Json> {
  const codes = new Set<keyof typeof STATUS_OF>(['internal_error', 'service_unavailable', ...(op.errors ?? [])]);
  if (route.auth) codes.add('unauthorized');
  if (op.body) for (const c of ['bad_request', 'invalid_params'] as const) codes.add(c);
  if (op.query) codes.add('invalid_params');
  if (countedPerKey(route)) codes.add('rate_limited');
  if (route.handler === 'not-found') codes.add('not_found');
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
            ...(status === 429 && countedPerKey(route) ? Object.fromEntries(RATE_LIMIT_HEADERS.map((h) => [h, HEADERS[h]])) : {}),
          },
          content: { 'application/json': { schema } },
        },
      ];
    }),
  );
}

const QUERY_PARAMS: Record<string, string> = {
  limit: 'Entries on a page, 1 to 100 (20 by default)',
  starting_after: 'The cursor: the page starts after this id (the previous page’s `next_starting_after`)',
  status: 'Only orders in this status',
  created_gte: 'Only orders created at or after this time (ISO 8601)',
  created_lt: 'Only orders created before this time (ISO 8601)',
};

/** The query parameters of a query schema (named in components), one per property. */
function queryParams(schema: Schema): Json[] {
  const js = componentSchemas()[nameOf(schema)!]!;
  const required = new Set((js.required as string[] | undefined) ?? []);
  return Object.entries(js.properties as Record<string, Json>).map(([name, { description: _d, ...property }]) => {
    const described = QUERY_PARAMS[name];
    if (!described) throw new Error(`The query parameter ${name} has no description in QUERY_PARAMS`);
    return { name, in: 'query', required: required.has(name) && property.default === undefined, description: described, schema: property };
  });
}

const PATH_PARAMS: Record<string, Json> = {
  id: { description: 'Order id (vid_...) or webhook id (wh_...)', schema: { type: 'string' } },
  file: { description: 'video.mp4 or cover.jpg', schema: { type: 'string' } },
  asset: { description: 'swagger-ui-bundle.js or swagger-ui.css', schema: { type: 'string' } },
};

/**
 * The schemas named under components, by the zod schema they come from: requests (strict: an unknown field is a 400),
 * answers (open: a later additive field breaks no client that validates them), and what both share.
 */
const REQUESTS: [string, Schema][] = [
  ['QuickVideoRequest', quickVideoBody],
  ['CreateVideoRequest', createVideoRequest],
  ['ReviewRequest', reviewBody],
  ['ReviewApprove', reviewApprove],
  ['ReviewEdit', reviewEdit],
  ['ReviewRegen', reviewRegen],
  ['CreateWebhookRequest', createWebhookBody],
  ['QuoteRequest', quoteRequest],
  ['RotateWebhookRequest', rotateWebhookBody],
  ['ResendRequest', resendBody],
];
/** Query strings: made with the requests (their enums by name), then spread into parameters, not published. */
const QUERIES: [string, Schema][] = [
  ['ListVideosQuery', listOrdersQuery],
  ['ListTransactionsQuery', listTransactionsQuery],
];
const ANSWERS: [string, Schema][] = [
  ['CreationResponse', creationResponse],
  ['Order', orderRecord],
  ['OrderList', orderList],
  ['Quote', quoteResponse],
  ['WebhookCreated', webhookCreated],
  ['WebhookList', webhookList],
  ['DeliveryList', deliveryList],
  ['WebhookRotated', webhookRotated],
  ['WebhookTestResult', webhookTestResult],
  ['WebhookTestEvent', webhookTestEvent],
  ['ResendResult', resendResult],
  ['Balance', balanceResponse],
  ['TransactionList', transactionList],
  ['ErrorResponse', errorEnvelope],
  ['GatewayMessage', gatewayMessage],
];
const SHARED: [string, Schema][] = [
  ['OrderStatus', orderStatus],
  ['Language', language],
  ['Tone', tone],
  ['Music', music],
  ['Voice', voice],
  ['Billing', billing],
  ['Channel', channel],
  ['WebhookEvent', webhookEvent],
  ['TransactionKind', transactionKind],
  ['ErrorCode', errorCode],
];
const NAMED = [...REQUESTS, ...QUERIES, ...ANSWERS, ...SHARED];

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

function operation(route: Route): Json {
  const op = OPERATIONS[route.handler];
  if (!op) throw new Error(`No OpenAPI operation for the route ${route.method} ${route.path}`);
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, ...PATH_PARAMS[m[1]!] }));
  if (op.query) params.push(...(queryParams(op.query) as never[]));
  if (route.handler === 'download-file') {
    params.push(
      { name: 'expires', in: 'query', required: true, description: 'Unix time the link stops working', schema: { type: 'integer' } } as never,
      { name: 'sig', in: 'query', required: true, description: 'The link signature', schema: { type: 'string' } } as never,
    );
  }
  if (op.idempotent) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Your key for this order, 1 to 255 characters, remembered 24 hours: a repeat returns the original order (200) and charges nothing.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    } as never);
  }
  // A handler behind two routes (the docs page and its assets) names its second operation after the path's last part.
  const first = ROUTES.find((r) => r.handler === route.handler) === route;
  const tail = route.path.split('/').at(-1)!.replace(/[{}]/g, '');
  return {
    operationId: first ? op.id : `${op.id}${tail[0]!.toUpperCase()}${tail.slice(1)}`,
    summary: op.summary,
    description: op.description + samplesMarkdown(op),
    tags: [op.tag],
    ...(route.auth ? {} : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    // A body whose fields are all optional may be left out (functions/http/middleware.ts).
    ...(op.body ? { requestBody: { required: !z.safeParse(op.body, {}).success, content: { 'application/json': { schema: schemaRef(op.body) } } } } : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(op.ok).map(([status, r]) => [
          status,
          {
            description: r.description,
            headers: Object.fromEntries(
              ['X-Request-Id', ...(r.headers ?? []), ...(countedPerKey(route) ? RATE_LIMIT_HEADERS : [])].map((h) => [h, HEADERS[h]]),
            ),
            ...(r.schema ? { content: { 'application/json': { schema: schemaRef(r.schema) } } } : {}),
            ...(route.handler === 'get-openapi' ? { content: { 'application/json': { schema: { type: 'object' } } } } : {}),
            ...(route.handler === 'get-docs' ? { content: { 'text/html': { schema: { type: 'string' } } } } : {}),
            ...(route.handler === 'download-file' && status === '200'
              ? { content: Object.fromEntries(['video/mp4', 'image/jpeg'].map((t) => [t, { schema: { type: 'string', contentMediaType: t } }])) }
              : {}),
          },
        ]),
      ),
      ...errorResponses(route, op),
    },
    ...codeSamples(op),
  };
}

const EVENTS = {
  'video.awaiting_review': 'Director mode: the script waits for a decision (POST /videos/{id}/review).',
  'video.done': 'The video is ready; the body carries result_url and metadata.',
  'video.error': 'Generation failed (or the order was canceled); the doubloons are already refunded.',
  'webhook.test': 'A test delivery asked for with POST /webhooks/{id}/test: not an order event; sent once, not retried.',
} as const;

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
      requestBody: { required: true, content: { 'application/json': { schema: ref(event === 'webhook.test' ? 'WebhookTestEvent' : 'Order') } } },
      responses: { '2XX': { description: 'Received. Anything else, or no answer within 5 seconds, is retried (5 attempts, the gap doubling from 30 s).' } },
    },
  };
}

let built: Json | undefined;

/** The document; `serverUrl` is the API's base address, /v1 included. */
export function openApiDocument(serverUrl: string): Json {
  built ??= {
    openapi: '3.1.0',
    info: {
      title: 'Video generation service',
      version: '1.0.0',
      description:
        'Short vertical videos (mp4) ordered by text, paid in doubloons (1 doubloon = 1 ruble). Follow an order by polling GET /videos/{id} or by signed webhooks; download the result through its 7-day link. Errors answer `{error: {code, message}}`. Each key’s POSTs and GETs are counted per minute, each kind in its own window (the RateLimit headers show what is left; past it, 429 `rate_limited`). Clients should retry GET with exponential backoff and jitter, follow Retry-After on 429 and 5xx, and send an Idempotency-Key on every order. v1 changes only by additions (new routes, new optional request fields, new fields in answers): ignore answer fields you do not know. On AWS, API Gateway itself may answer 429, 500, 503 or 504 with `{message}` instead of the envelope; where the deployment has the edge, one address past its requests a minute gets 429 `rate_limited` (the envelope, with Retry-After) on any route.',
      contact: { name: 'The service operators, through the chat bot that issues API keys' },
      license: { name: 'Proprietary: for the holders of an API key', identifier: 'LicenseRef-Proprietary' },
    },
    tags: [
      { name: 'Orders', description: 'Order a video, follow it, review its script' },
      { name: 'Webhooks', description: "The key's webhook: registration and delivery attempts" },
      { name: 'Account', description: 'Balance, trial videos and plan' },
      { name: 'Files', description: 'Downloads through signed links, no key' },
      { name: 'Contract', description: 'This document and its reference page, no key' },
    ],
    security: [{ ApiKey: [] }],
    // Paths are relative to the base address, which ends with /v1 (spec: Endpoints).
    paths: ROUTES.reduce<Json>((paths, r) => {
      const path = r.path;
      paths[path] = { ...(paths[path] as Json | undefined), [r.method.toLowerCase()]: operation(r) };
      return paths;
    }, {}),
    webhooks: Object.fromEntries((Object.keys(EVENTS) as (keyof typeof EVENTS)[]).map((e) => [e, webhook(e)])),
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Issued by the chat bot (/apikey); shown once.' } },
      schemas: Object.fromEntries(Object.entries(componentSchemas()).filter(([name]) => !QUERIES.some(([q]) => q === name))),
    },
  };
  // The servers entry is this deployment's, in its documented place after info.
  const { openapi, info, ...rest } = built;
  return { openapi, info, servers: [{ url: serverUrl, description: 'This deployment' }], ...rest };
}
