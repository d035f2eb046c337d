/**
 * The operations of the API, each defined once: its route (method, path, the handler that serves it, whether it takes
 * a key), what it reads (body and query schemas), what it answers (statuses, their schemas and headers, the errors it
 * may return) and how it is documented (summary, description, examples). The route table (routes.ts), the
 * middleware's options (middleware.ts), the OpenAPI document (openapi.ts), the HTTP API and the local gateway (by the
 * route table), and the IAM table's keys (lib/access.ts, by handler) all derive from this list.
 *
 * A new route is one more operation here and its handler, functions/http/<handler>.ts:
 * `export const handler = httpRoute(myOperation)(async (req) => ({ status: 200, body: ... }))`; the body is typed by
 * the answer schema the operation declares for that status.
 */
import type * as z from 'zod/mini';
import { balanceAlertBody, balanceResponse, listTransactionsQuery, transactionList } from '../contract/balance.ts';
import { creationResponse, createVideoRequest, quickVideoBody, quoteRequest, quoteResponse } from '../contract/orders.ts';
import { orderRecord } from '../contract/order-record.ts';
import { listOrdersQuery, orderList } from '../contract/order-list.ts';
import { assetCreated, assetList, assetView, createAssetBody, listAssetsQuery } from '../contract/assets.ts';
import { reviewBody } from '../contract/review.ts';
import {
  createWebhookBody,
  deliveryList,
  resendBody,
  resendResult,
  rotateWebhookBody,
  webhookCreated,
  webhookList,
  webhookRotated,
  webhookTestResult,
} from '../contract/webhooks.ts';
import type { ErrorCode } from '../core/errors.ts';
import { type Access, ADMIT, CHANGE_WITH_EVENT, ETA, GET, POST, USE_ASSETS } from '../app/grants.ts';

/** The answer headers an operation may name; openapi.ts describes each once. */
export type AnswerHeader = 'Retry-After' | 'Idempotent-Replayed' | 'Location';

/** A success answer of an operation. */
export interface Answer {
  description: string;
  /** The JSON body's schema (the handler's reply body is typed by it). */
  schema?: z.ZodMiniType;
  /** A body that is not a schema's JSON (a page, a file, this document): its media types as OpenAPI writes them. */
  content?: Readonly<Record<string, { schema: Readonly<Record<string, unknown>> }>>;
  headers?: readonly AnswerHeader[];
}

/** A query parameter the handler checks by itself (a signed link's, refused 403 rather than 422): documented only. */
export interface CheckedQueryParameter {
  name: string;
  description: string;
  schema: Readonly<Record<string, unknown>>;
}

/** Where an operation is served: the route table's entry (routes.ts). */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to the /v1 prefix. */
  path: string;
  /** functions/http/<handler>.ts exports `handler`; one function per handler (two operations may share one). */
  handler: string;
  /** false only for the routes that need no key (this document, the docs page, download links). */
  auth: boolean;
}

/**
 * The key's window a route counts in, whatever its answer: a GET in the key's GETs; a write (POST, DELETE) in its
 * POSTs, the window the spec limits (policy `posts`). Routes without a key count in none.
 */
export function rateWindowOf(route: Pick<Route, 'auth'> & Partial<Pick<Route, 'method'>>): 'posts' | 'gets' | undefined {
  if (!route.auth || !route.method) return undefined;
  return route.method === 'GET' ? 'gets' : 'posts';
}

export interface Operation {
  /** The OpenAPI operationId, and the clients' method name. */
  id: string;
  route: Route;
  /** What its function may do on AWS (lib/access.ts makes it the function's IAM policy; the access test checks it). */
  access: Access;
  /**
   * A keyed POST or DELETE counts against the key's POSTs a minute before its handler runs; `deferred`: the handler counts it
   * inside its own transaction (creation), and whatever it did not count is counted when it returns or fails.
   */
  countPost?: 'deferred';
  /** The JSON body's schema: the chain parses and validates the body (422 naming the field) before the handler runs. */
  body?: z.ZodMiniType;
  /** The query string's schema, validated the same way (its values arrive as strings); each property is a parameter. */
  query?: z.ZodMiniType;
  checkedQuery?: readonly CheckedQueryParameter[];
  /** It takes an Idempotency-Key header: a repeat answers the original result and charges nothing. */
  idempotent?: boolean;
  /** Success answers by status. */
  answers: Readonly<Record<number, Answer>>;
  /** The error codes it can answer with, beyond those every operation shares and those its key, body and query add. */
  errors?: readonly ErrorCode[];
  /** What an error code means here, beyond its name. */
  notes?: Readonly<Partial<Record<ErrorCode, string>>>;
  summary: string;
  description: string;
  tag: 'Orders' | 'Assets' | 'Webhooks' | 'Account' | 'Files' | 'Contract';
  examples?: { curl: string; js: string; python: string };
}

/** What both creation routes answer: 201, or 200 for a repeated Idempotency-Key, and the pricing refusals. */
const creation = {
  // The creation transaction: order, debit, slot, count, ledger, queue shard, idempotency record; a replay reads.
  // The creation: the transaction, the queue's snapshot; the start of a director-mode order, or any other queued and
  // admitted (its execution started with its slot, or a running wait completed); the order's unstarted marker deleted.
  // A charge crossing the key's low-balance threshold records balance.low with it and starts its delivery; the assets
  // it names checked before the transaction and copied into the order after it (one gone meanwhile: the order closed
  // in error and refunded, as a cancel does).
  access: {
    table: [...POST, ...ADMIT, ...ETA],
    orderMachine: ['StartExecution', 'SendTaskSuccess'],
    startDelivery: true,
    takesOrders: true,
    ...USE_ASSETS,
  },
  countPost: 'deferred',
  idempotent: true,
  answers: {
    201: { description: 'Order accepted', schema: creationResponse },
    200: { description: 'Idempotent repeat: the original order', schema: creationResponse, headers: ['Idempotent-Replayed'] },
  },
  // generator_unavailable: reserved by the contract for a planner that cannot be reached.
  errors: [
    'insufficient_funds',
    'spend_limit_exceeded',
    'fair_use_exceeded',
    'active_tasks_exceeded',
    'review_limit_exceeded',
    'generator_unavailable',
    'quote_invalid',
    'max_cost_exceeded',
  ],
  notes: {
    invalid_params:
      'also an Idempotency-Key used with a different request in the last 24 hours, a paid extra the service cannot make now, and an asset (`placement.image`, `logo`) that is not a usable picture of this key (none, another key’s, not uploaded, not the type declared, over 4096 x 4096 pixels); the message names the field',
    spend_limit_exceeded:
      "the order would take what the key's orders were charged this UTC month past the monthly spend limit the operator set (GET /balance shows both); nothing is charged",
  },
} as const;

// Each operation is a plain object, so a function's bundle keeps only the operations its handler imports.

export const createQuickVideo = {
  id: 'createQuickVideo',
  route: { method: 'POST', path: '/videos:quick', handler: 'create-quick', auth: true },
  body: quickVideoBody,
  ...creation,
  summary: 'Order a video from a one-line prompt',
  description:
    "The planner turns the prompt into order parameters (shown under `params` of the order). Charged at once; 200 with the original order when the Idempotency-Key repeats. A prompt asking for a paid extra the service cannot make now (AI visuals, a cloned voice) gets 422 `invalid_params` naming the extra's field, before any charge.",
  tag: 'Orders',
  examples: {
    curl: `curl -s -X POST "$BASE/videos:quick" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: 7f0c...' -d '{"prompt": "Funny 20 second video about cats with a song"}'`,
    js: `const order = await client.createQuick('Funny 20 second video about cats with a song');`,
    python: `order = client.create_quick("Funny 20 second video about cats with a song")`,
  },
} as const satisfies Operation;

export const quoteVideo = {
  id: 'quoteVideo',
  route: { method: 'POST', path: '/videos:quote', handler: 'quote-video', auth: true },
  // A quote: the account read, the queue's snapshot for eta_seconds, the quote put. It offers what orders would.
  access: { table: [...POST, 'PutItem', ...ETA], takesOrders: true },
  body: quoteRequest,
  answers: { 200: { description: 'The price and the quote that holds it', schema: quoteResponse } },
  errors: ['fair_use_exceeded'],
  summary: 'Price an order before placing it, and hold that price',
  description:
    'Takes the body of POST /videos or of POST /videos:quick and answers what that order would cost this key now, item by item (the base, each paid extra, whether a trial video or the plan’s allowance pays), its eta_seconds, and a `quote_id`. ' +
    'The same request with `quote_id` within 15 minutes (`expires_at`) is charged exactly `cost`, even if prices change meanwhile; a quote prices one order. It is refused with 409 `quote_invalid` when it has expired or was used, was made for another request, or counted on a trial video or a plan allowance that is no longer there. Nothing is charged by a quote. ' +
    'A request the creation would refuse for what it asks (an extra the service cannot make now, a used-up plan allowance) is refused alike.',
  tag: 'Orders',
  examples: {
    curl: `curl -s -X POST "$BASE/videos:quote" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"topic": "Green tea", "music": "song"}'`,
    js: `const { quote_id, cost } = await client.quote({ topic: 'Green tea', music: 'song' });`,
    python: `quote = client.quote({"topic": "Green tea", "music": "song"})`,
  },
} as const satisfies Operation;

export const createVideo = {
  id: 'createVideo',
  route: { method: 'POST', path: '/videos', handler: 'create-video', auth: true },
  body: createVideoRequest,
  ...creation,
  summary: 'Order a video with explicit parameters',
  description:
    'Every field but `topic` is optional. With `director_mode: true` the order stops at `awaiting_review` until POST /videos/{id}/review. ' +
    'A paid extra this deployment cannot make is refused with 422 `invalid_params` naming its field, before any charge: `ai_visual: true` where no image generator is configured, `voice: "clone"` where no voice-cloning speech provider is. POST /videos:quote refuses them alike, charging nothing.',
  tag: 'Orders',
  examples: {
    curl: `curl -s -X POST "$BASE/videos" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\\n  -d '{"topic": "Green tea", "duration_seconds": 15, "director_mode": true}'`,
    js: `const order = await client.createVideo({ topic: 'Green tea', duration_seconds: 15, director_mode: true });`,
    python: `order = client.create_video({"topic": "Green tea", "duration_seconds": 15, "director_mode": True})`,
  },
} as const satisfies Operation;

export const listVideos = {
  id: 'listVideos',
  route: { method: 'GET', path: '/videos', handler: 'list-videos', auth: true },
  // The user's order references (a query), the orders (a batch read), the queue for the active ones' estimates.
  access: { table: [...GET, ...ETA, 'Query'], linkKey: true },
  query: listOrdersQuery,
  answers: { 200: { description: 'A page of orders', schema: orderList } },
  summary: "List the key's orders, newest first",
  description:
    'A page of orders (each as GET /videos/{id} answers it), newest first. Pass `next_starting_after` as `starting_after` for the next page while `has_more` is true. ' +
    'Read strongly consistent: an order is listed as soon as its creation has answered. The time filters narrow the read; a `status` filter looks at no more than three times `limit` orders per request, so a page may be short, even empty, with `has_more: true` and a cursor to go on from. ' +
    '`created_gte` after `created_lt` is 422; times outside the data (before 1970, far ahead) and a cursor older than `created_gte` give an empty page.',
  tag: 'Orders',
  examples: {
    curl: `curl -s "$BASE/videos?limit=10&status=done" -H "X-API-Key: $KEY"`,
    js: `for await (const order of client.listVideos({ status: 'done' })) console.log(order.id);`,
    python: `for order in client.list_videos(status="done"): print(order["id"])`,
  },
} as const satisfies Operation;

export const getVideo = {
  id: 'getVideo',
  route: { method: 'GET', path: '/videos/{id}', handler: 'get-video', auth: true },
  access: { table: [...GET, ...ETA], linkKey: true },
  answers: { 200: { description: 'The order', schema: orderRecord, headers: ['Retry-After'] } },
  errors: ['forbidden', 'not_found'],
  summary: 'Read an order',
  description:
    'The same JSON is every webhook body. A done order carries a fresh 7-day `result_url` on every read (`expires_at`). While the order is active it shows `eta_seconds`, its `queue_position` (queued) or `progress` (running), and `Retry-After` says when polling again is worthwhile.',
  tag: 'Orders',
  examples: {
    curl: `curl -s "$BASE/videos/vid_..." -H "X-API-Key: $KEY"`,
    js: `const order = await client.getVideo('vid_...');`,
    python: `order = client.get_video("vid_...")`,
  },
} as const satisfies Operation;

export const reviewVideo = {
  id: 'reviewVideo',
  route: { method: 'POST', path: '/videos/{id}/review', handler: 'review-video', auth: true },
  // A lost review wait is answered with a new execution (where the order's execution stands decides its name). An
  // edited script's `Image:` assets checked before the decision is written and copied into the order after it.
  access: { table: [...POST, 'GetItem'], orderMachine: ['SendTaskSuccess', 'StartExecution'], describeExecutions: ['order'], ...USE_ASSETS },
  body: reviewBody,
  answers: { 200: { description: 'The order, now running', schema: orderRecord } },
  errors: ['forbidden', 'not_found', 'not_awaiting_review', 'regen_limit_reached', 'active_tasks_exceeded'],
  summary: 'Approve, edit or regenerate the script of an order in awaiting_review',
  description:
    "approve and edit continue to rendering; regen rewrites the script along the note and the order comes back to awaiting_review. Each decision makes the order `running` again, which takes one of the key's active tasks: at the limit it is 429 `active_tasks_exceeded` with Retry-After and the order stays in awaiting_review. An order's script is rewritten at most 3 times (then 409 `regen_limit_reached`: approve it, edit it or cancel the order).",
  tag: 'Orders',
  examples: {
    curl: `curl -s -X POST "$BASE/videos/vid_.../review" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"action": "approve"}'`,
    js: `await client.review('vid_...', { action: 'approve' });`,
    python: `client.review("vid_...", {"action": "approve"})`,
  },
} as const satisfies Operation;

export const cancelVideo = {
  id: 'cancelVideo',
  route: { method: 'POST', path: '/videos/{id}/cancel', handler: 'cancel-video', auth: true },
  // The transition to error (order, user, ledger, event, pending marker; the open marker deleted), the order's wait or
  // slot given back and the next order admitted and woken, the event's delivery started, the execution stopped.
  access: { table: [...POST, ...CHANGE_WITH_EVENT, ...ADMIT], orderMachine: ['SendTaskSuccess', 'StartExecution'], startDelivery: true, stopOrders: true },
  answers: { 200: { description: 'The canceled order', schema: orderRecord } },
  errors: ['forbidden', 'not_found', 'not_cancelable'],
  summary: 'Cancel an order whose render has not started, with a full refund',
  description:
    'The order ends in `error` with `error.code` `canceled`: its doubloons (or trial video, or plan allowance) are given back, it no longer counts as one of the key’s active tasks, and the `video.error` event is sent. A repeated cancel answers the same order. An order can be canceled until its render starts, whichever status it is in meanwhile: `queued`, `awaiting_review`, or `running` before its render (writing its script, as a director-mode order does right after its creation, or waiting for a render slot after its review). Once its render has started it is 409 `not_cancelable`, as is a done or failed order: a render in progress cannot be stopped (the same moment as an order created with `deadline_seconds` stops being canceled by its deadline).',
  tag: 'Orders',
  examples: {
    curl: `curl -s -X POST "$BASE/videos/vid_.../cancel" -H "X-API-Key: $KEY"`,
    js: `const order = await client.cancel('vid_...');`,
    python: `order = client.cancel("vid_...")`,
  },
} as const satisfies Operation;

export const createWebhook = {
  id: 'createWebhook',
  route: { method: 'POST', path: '/webhooks', handler: 'create-webhook', auth: true },
  access: { table: [...POST, 'GetItem', 'PutItem'] },
  body: createWebhookBody,
  answers: { 201: { description: 'The webhook with its signing secret', schema: webhookCreated } },
  summary: 'Register (or replace) the webhook',
  description: 'One webhook per key; a repeat replaces the url and issues a new secret, shown only in this answer. The url must be public HTTPS.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s -X POST "$BASE/webhooks" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"url": "https://example.com/hooks/video"}'`,
    js: `const { secret } = await client.createWebhook('https://example.com/hooks/video');`,
    python: `secret = client.create_webhook("https://example.com/hooks/video")["secret"]`,
  },
} as const satisfies Operation;

export const listWebhooks = {
  id: 'listWebhooks',
  route: { method: 'GET', path: '/webhooks', handler: 'list-webhooks', auth: true },
  access: { table: [...GET, 'GetItem'] },
  answers: { 200: { description: 'The webhooks', schema: webhookList } },
  summary: 'The webhook of the key',
  description: 'A list of at most one webhook, without its secret.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s "$BASE/webhooks" -H "X-API-Key: $KEY"`,
    js: `const { data } = await client.listWebhooks();`,
    python: `webhooks = client.list_webhooks()["data"]`,
  },
} as const satisfies Operation;

export const deleteWebhook = {
  id: 'deleteWebhook',
  route: { method: 'DELETE', path: '/webhooks/{id}', handler: 'delete-webhook', auth: true },
  access: { table: [...POST, 'GetItem', 'DeleteItem'] },
  answers: { 204: { description: 'Deleted' } },
  errors: ['forbidden', 'not_found'],
  summary: 'Delete the webhook',
  description: 'Events from then on are not delivered.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s -X DELETE "$BASE/webhooks/wh_..." -H "X-API-Key: $KEY"`,
    js: `await client.deleteWebhook('wh_...');`,
    python: `client.delete_webhook("wh_...")`,
  },
} as const satisfies Operation;

export const listDeliveries = {
  id: 'listDeliveries',
  route: { method: 'GET', path: '/webhooks/{id}/deliveries', handler: 'list-deliveries', auth: true },
  access: { table: [...GET, 'GetItem', 'Query'] },
  answers: { 200: { description: 'Delivery attempts', schema: deliveryList } },
  errors: ['forbidden', 'not_found'],
  summary: 'Recent delivery attempts of the webhook',
  description: 'The latest 50 attempts, newest first: time, HTTP status or error, latency and outcome.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s "$BASE/webhooks/wh_.../deliveries" -H "X-API-Key: $KEY"`,
    js: `const { data } = await client.listDeliveries('wh_...');`,
    python: `attempts = client.list_deliveries("wh_...")["data"]`,
  },
} as const satisfies Operation;

export const rotateWebhookSecret = {
  id: 'rotateWebhookSecret',
  route: { method: 'POST', path: '/webhooks/{id}/rotate', handler: 'rotate-webhook', auth: true },
  // The webhook (owner item, then the user's), saved with its new secret and the previous one's overlap.
  access: { table: [...POST, 'GetItem', 'PutItem'] },
  body: rotateWebhookBody,
  answers: { 200: { description: 'The webhook with its new secret', schema: webhookRotated } },
  errors: ['forbidden', 'not_found'],
  summary: 'Rotate the webhook secret, with an overlap',
  description:
    'A new secret, shown only in this answer. The previous one keeps signing beside it for `overlap_seconds` (default a day, at most 7 days; 0 stops it at once): X-Service-Signature-Previous and a second `webhook-signature` entry carry it, so a receiver verifies with either secret until `previous_secret_expires_at`, and only with the new one after.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s -X POST "$BASE/webhooks/wh_.../rotate" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"overlap_seconds": 3600}'`,
    js: `const { secret } = await client.rotateWebhookSecret('wh_...', { overlap_seconds: 3600 });`,
    python: `secret = client.rotate_webhook_secret("wh_...", overlap_seconds=3600)["secret"]`,
  },
} as const satisfies Operation;

export const testWebhook = {
  id: 'testWebhook',
  route: { method: 'POST', path: '/webhooks/{id}/test', handler: 'test-webhook', auth: true },
  // The webhook read; the test delivery goes out over the network, nothing is stored.
  access: { table: [...POST, 'GetItem'] },
  answers: { 200: { description: 'The attempt', schema: webhookTestResult } },
  errors: ['forbidden', 'not_found'],
  summary: 'Send a test event to the webhook now',
  description:
    'One `webhook.test` delivery, signed as every event is, sent now and not retried; the answer says whether the receiver took it (2xx within 5 s), its HTTP status or the kind of error (`connection refused`, `timed out: no answer within 5 s`, a TLS error, ...; never an address), and the latency.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s -X POST "$BASE/webhooks/wh_.../test" -H "X-API-Key: $KEY"`,
    js: `const { delivered } = await client.testWebhook('wh_...');`,
    python: `result = client.test_webhook("wh_...")`,
  },
} as const satisfies Operation;

export const resendEvents = {
  id: 'resendEvents',
  route: { method: 'POST', path: '/webhooks/{id}/resend', handler: 'resend-events', auth: true },
  // The dropped attempts since a time (a query), each event read and reopened with its pending marker; a new delivery.
  access: { table: [...POST, 'GetItem', 'Query', 'PutItem'], startDelivery: true },
  body: resendBody,
  answers: { 202: { description: 'The events being sent again', schema: resendResult } },
  errors: ['forbidden', 'not_found', 'delivery_in_progress'],
  summary: 'Deliver events again: one, or every dropped one since a time',
  description:
    '`{"event_id": "vid_...:done"}` sends that event again (delivered, dropped or never sent for want of a webhook; 409 `delivery_in_progress` while its attempts go on); `{"since": "<ISO 8601>"}` sends again every event whose delivery was dropped since then (attempts are kept 30 days), at most 100 a call (`has_more`: call again). Each gets one attempt (it ends delivered, or dropped again), to the webhook as it is now, with the same event id (deduplicate on it) and the order record of its moment. A key may have at most 100 events resent per hour (a deployment setting): past that budget, 429 `rate_limited` with Retry-After (the seconds to the hour’s end); a replay sends what the budget has left and says `has_more`.',
  tag: 'Webhooks',
  examples: {
    curl: `curl -s -X POST "$BASE/webhooks/wh_.../resend" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"since": "2026-11-24T00:00:00Z"}'`,
    js: `const { resent } = await client.resendEvents('wh_...', { since: '2026-11-24T00:00:00Z' });`,
    python: `resent = client.resend_events("wh_...", since="2026-11-24T00:00:00Z")["resent"]`,
  },
} as const satisfies Operation;

const ASSET_CURL_UPLOAD = `# the PUT the answer's upload describes (no API key): the declared type and length only, once
curl -s -T logo.png -H 'Content-Type: image/png' -H 'If-None-Match: *' "$UPLOAD_URL"`;

export const createAsset = {
  id: 'createAsset',
  route: { method: 'POST', path: '/assets', handler: 'create-asset', auth: true },
  // The asset, its owner item and the key's count of the day (one transaction); the upload URL presigned with the
  // function's own PutObject grant.
  access: { table: [...POST, 'PutItem'], assets: ['PutObject'] },
  body: createAssetBody,
  answers: { 201: { description: 'The asset, and where to upload its bytes', schema: assetCreated } },
  summary: 'Create an asset (a picture of yours) and get its upload URL',
  description:
    'Declares a picture (PNG, JPEG or WebP, at most 10 MiB) and answers its asset id and a presigned PUT URL, valid 15 minutes, whose signature binds the declared `Content-Type`, the exact `Content-Length` and `If-None-Match: *`: storage refuses another type or length (403), and a second PUT or one after the asset’s DELETE (412). Upload the bytes there with no API key and the headers the answer lists, then name the asset in an order: `placement.image` (the product in the placement scene), `logo` (a corner mark on every scene), or an `Image: <asset id>` line of an edited script. ' +
    'The upload is checked when an order first names it: its signature at byte 0, then the whole picture decoded as the render will open it (the declared format forced; a frame over 4096 x 4096 pixels refused from its header, before it is decoded); an order naming an unusable asset is refused with 422 naming the field, before any charge. Assets are the key’s own and are deleted after 30 days; an order keeps its own copy of the pictures it names, made once the order is created (a refused request stores nothing). A key may create at most 100 assets a UTC day (a deployment setting): past that budget, 429 `rate_limited` with Retry-After (the seconds to the day’s end).',
  tag: 'Assets',
  examples: {
    curl: `curl -s -X POST "$BASE/assets" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\\n  -d '{"kind": "image", "content_type": "image/png", "size_bytes": 48213}'\n${ASSET_CURL_UPLOAD}`,
    js: `const asset = await client.uploadAsset(await readFile('logo.png'), 'image/png'); // POST /assets, then the PUT`,
    python: `asset = client.upload_asset("logo.png")  # POST /assets, then the PUT`,
  },
} as const satisfies Operation;

export const listAssets = {
  id: 'listAssets',
  route: { method: 'GET', path: '/assets', handler: 'list-assets', auth: true },
  // The user's assets: one query of its partition.
  access: { table: [...GET, 'Query'] },
  query: listAssetsQuery,
  answers: { 200: { description: 'A page of assets', schema: assetList } },
  summary: "List the key's assets, newest first",
  description: 'A page of the key’s assets (expired ones are gone). Pass `next_starting_after` as `starting_after` for the next page while `has_more` is true.',
  tag: 'Assets',
  examples: {
    curl: `curl -s "$BASE/assets?limit=10" -H "X-API-Key: $KEY"`,
    js: `for await (const asset of client.listAssets()) console.log(asset.id, asset.status);`,
    python: `for asset in client.list_assets(): print(asset["id"], asset["status"])`,
  },
} as const satisfies Operation;

export const getAsset = {
  id: 'getAsset',
  route: { method: 'GET', path: '/assets/{id}', handler: 'get-asset', auth: true },
  // The user's asset; when it has none by the id, the owner item (403 or 404).
  access: { table: GET },
  answers: { 200: { description: 'The asset', schema: assetView } },
  errors: ['forbidden', 'not_found'],
  summary: 'Read an asset',
  description: 'The asset and, once an order has named it, the verdict of its check (`status`, its size in pixels or why it was refused).',
  tag: 'Assets',
  examples: {
    curl: `curl -s "$BASE/assets/ast_..." -H "X-API-Key: $KEY"`,
    js: `const asset = await client.getAsset('ast_...');`,
    python: `asset = client.get_asset("ast_...")`,
  },
} as const satisfies Operation;

export const deleteAsset = {
  id: 'deleteAsset',
  route: { method: 'DELETE', path: '/assets/{id}', handler: 'delete-asset', auth: true },
  // The asset read (the owner item for 403 or 404); its bytes replaced by an empty marker (a PutObject: an upload URL
  // still valid meets it, 412), then it and its owner item deleted (one transaction).
  access: { table: [...POST, 'DeleteItem'], assets: ['PutObject'] },
  answers: { 204: { description: 'Deleted' } },
  errors: ['forbidden', 'not_found'],
  summary: 'Delete an asset and its bytes',
  description:
    'The asset and its uploaded bytes are deleted now, and its upload URL no longer writes (a PUT to it is refused with 412). Orders created before keep their own copy and render with it; a new order naming the asset is refused (422).',
  tag: 'Assets',
  examples: {
    curl: `curl -s -X DELETE "$BASE/assets/ast_..." -H "X-API-Key: $KEY"`,
    js: `await client.deleteAsset('ast_...');`,
    python: `client.delete_asset("ast_...")`,
  },
} as const satisfies Operation;

export const getBalance = {
  id: 'getBalance',
  route: { method: 'GET', path: '/balance', handler: 'get-balance', auth: true },
  access: { table: GET },
  answers: { 200: { description: 'The balance', schema: balanceResponse } },
  summary: 'The balance in doubloons',
  description:
    "Doubloons, trial videos left and, for users with a plan, the heavy videos left this month; `spend`: what the key's orders were charged this UTC month and its monthly spend limit, if the operator set one (an order past it is 402 `spend_limit_exceeded`); `low_balance_alert`: the key's threshold (POST /balance/alerts) and whether `balance.low` was sent.",
  tag: 'Account',
  examples: {
    curl: `curl -s "$BASE/balance" -H "X-API-Key: $KEY"`,
    js: `const balance = await client.getBalance();`,
    python: `balance = client.get_balance()`,
  },
} as const satisfies Operation;

export const setBalanceAlert = {
  id: 'setBalanceAlert',
  route: { method: 'POST', path: '/balance/alerts', handler: 'set-balance-alert', auth: true },
  // The user item's alert attributes, updated in place.
  access: { table: POST },
  body: balanceAlertBody,
  answers: { 200: { description: 'The balance, with the alert as set', schema: balanceResponse } },
  summary: 'Set (or remove) the low-balance alert',
  description:
    '`{"below": N}` sets the key’s threshold and arms it: the next charge that leaves the balance below N sends one `balance.low` event to the webhook (signed and retried like the order events; its body is a BalanceLowEvent). It is not sent again until a top-up lifts the balance to N or more; then the next charge below it sends it again. Setting another threshold arms that one (the same one set again changes nothing: a sent alert still waits for a top-up); `{"below": null}` removes it. Free orders cross nothing; a balance already below N when it is set is reported by the next charge. Answers GET /balance’s body.',
  tag: 'Account',
  examples: {
    curl: `curl -s -X POST "$BASE/balance/alerts" -H "X-API-Key: $KEY" -H 'Content-Type: application/json' -d '{"below": 500}'`,
    js: `const balance = await client.setBalanceAlert(500);`,
    python: `balance = client.set_balance_alert(500)`,
  },
} as const satisfies Operation;

export const listTransactions = {
  id: 'listTransactions',
  route: { method: 'GET', path: '/balance/transactions', handler: 'list-transactions', auth: true },
  // The user's ledger entries: one query of its partition.
  access: { table: [...GET, 'Query'] },
  query: listTransactionsQuery,
  answers: { 200: { description: 'A page of ledger entries', schema: transactionList } },
  summary: 'Where the money went: the ledger, newest first',
  description:
    'Every entry of the balance: charges (`charge`; `trial` when a trial video paid the base, `plan_allowance` when the plan paid the heavy extras), refunds with their reason (the order’s error code), top-ups; each with the balance after it (the older entry’s plus its amount, in the order the entries were committed) and its order. Pass `next_starting_after` as `starting_after` for the next page while `has_more` is true.',
  tag: 'Account',
  examples: {
    curl: `curl -s "$BASE/balance/transactions?limit=20" -H "X-API-Key: $KEY"`,
    js: `for await (const t of client.listTransactions()) console.log(t.kind, t.amount, t.balance_after);`,
    python: `for t in client.list_transactions(): print(t["kind"], t["amount"], t["balance_after"])`,
  },
} as const satisfies Operation;

export const downloadFile = {
  id: 'downloadFile',
  route: { method: 'GET', path: '/files/{id}/{file}', handler: 'download-file', auth: false },
  // A file past retention is refused before S3 is asked (functions/core/downloads.ts); the listing answers the rest.
  access: { bucket: ['GetObject'], listBucket: true, linkKey: true },
  checkedQuery: [
    { name: 'expires', description: 'Unix time the link stops working', schema: { type: 'integer' } },
    { name: 'sig', description: 'The link signature', schema: { type: 'string' } },
  ],
  answers: {
    302: { description: 'Redirect to the file', headers: ['Location'] },
    200: {
      description: 'The file itself, where the redirect leads (a client that follows redirects gets this): the mp4 or the JPEG cover',
      content: {
        'video/mp4': { schema: { type: 'string', contentMediaType: 'video/mp4' } },
        'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } },
      },
    },
  },
  errors: ['forbidden', 'not_found'],
  summary: 'Download an order file through its signed link',
  description:
    'The target of `result_url` and `cover_url`: no key. A valid link redirects to the file; a tampered or expired one is 403, a file past its 30 days 404.',
  tag: 'Files',
} as const satisfies Operation;

export const getOpenApi = {
  id: 'getOpenApi',
  route: { method: 'GET', path: '/openapi.json', handler: 'get-openapi', auth: false },
  access: {},
  answers: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } } },
  summary: 'This document',
  description: 'The OpenAPI 3.1 document of the contract. No key.',
  tag: 'Contract',
} as const satisfies Operation;

const docsPage = {
  access: {},
  answers: { 200: { description: 'The reference page (HTML)', content: { 'text/html': { schema: { type: 'string' } } } } },
  errors: ['not_found'],
  summary: 'The interactive reference',
  description: 'An HTML page rendering this document, served with its assets by the service. No key.',
  tag: 'Contract',
} as const;

export const getDocs = {
  id: 'getDocs',
  route: { method: 'GET', path: '/docs', handler: 'get-docs', auth: false },
  ...docsPage,
} as const satisfies Operation;
/** The page's assets, served by the page's own function. */
export const getDocsAsset = {
  id: 'getDocsAsset',
  route: { method: 'GET', path: '/docs/{asset}', handler: 'get-docs', auth: false },
  ...docsPage,
} as const satisfies Operation;

/** Every operation, in the order of the route table and the document. */
export const OPERATIONS: readonly Operation[] = [
  createQuickVideo,
  quoteVideo,
  createVideo,
  listVideos,
  getVideo,
  reviewVideo,
  cancelVideo,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  listDeliveries,
  rotateWebhookSecret,
  testWebhook,
  resendEvents,
  createAsset,
  listAssets,
  getAsset,
  deleteAsset,
  getBalance,
  setBalanceAlert,
  listTransactions,
  downloadFile,
  getOpenApi,
  getDocs,
  getDocsAsset,
];
