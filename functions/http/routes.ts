/**
 * The one route table. CDK builds the HTTP API from it and the local gateway serves it; each route's handler is
 * functions/http/<handler>.ts exporting `handler`. Paths are relative to the /v1 prefix.
 */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handler: string;
  /** false only for the routes that need no key (schema, docs, download links). */
  auth: boolean;
}

export const API_PREFIX = '/v1';

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/videos:quick', handler: 'create-quick', auth: true },
  { method: 'POST', path: '/videos:quote', handler: 'quote-video', auth: true },
  { method: 'POST', path: '/videos', handler: 'create-video', auth: true },
  { method: 'GET', path: '/videos', handler: 'list-videos', auth: true },
  { method: 'GET', path: '/videos/{id}', handler: 'get-video', auth: true },
  { method: 'POST', path: '/videos/{id}/review', handler: 'review-video', auth: true },
  { method: 'POST', path: '/videos/{id}/cancel', handler: 'cancel-video', auth: true },
  { method: 'POST', path: '/webhooks', handler: 'create-webhook', auth: true },
  { method: 'GET', path: '/webhooks', handler: 'list-webhooks', auth: true },
  { method: 'DELETE', path: '/webhooks/{id}', handler: 'delete-webhook', auth: true },
  { method: 'GET', path: '/webhooks/{id}/deliveries', handler: 'list-deliveries', auth: true },
  { method: 'POST', path: '/webhooks/{id}/rotate', handler: 'rotate-webhook', auth: true },
  { method: 'POST', path: '/webhooks/{id}/test', handler: 'test-webhook', auth: true },
  { method: 'POST', path: '/webhooks/{id}/resend', handler: 'resend-events', auth: true },
  { method: 'GET', path: '/balance', handler: 'get-balance', auth: true },
  { method: 'GET', path: '/balance/transactions', handler: 'list-transactions', auth: true },
  /** result_url and cover_url: signed links, no key. */
  { method: 'GET', path: '/files/{id}/{file}', handler: 'download-file', auth: false },
  /** The contract: the OpenAPI document and the interactive reference with its assets, no key. */
  { method: 'GET', path: '/openapi.json', handler: 'get-openapi', auth: false },
  { method: 'GET', path: '/docs', handler: 'get-docs', auth: false },
  { method: 'GET', path: '/docs/{asset}', handler: 'get-docs', auth: false },
];

/** Requests that match no route; it answers 404 not_found in the envelope. */
export const DEFAULT_ROUTE = { handler: 'not-found' } as const;
