/**
 * The one error mapping: domain error codes to HTTP statuses, a store that is briefly unavailable to 503 with
 * Retry-After, and anything else unexpected to 500 with no internals.
 */
import { isTransient } from '../adapters/transient.ts';
import { AppError, type ErrorCode } from '../core/errors.ts';

export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  insufficient_funds: 402,
  spend_limit_exceeded: 402,
  forbidden: 403,
  not_found: 404,
  fair_use_exceeded: 409,
  not_awaiting_review: 409,
  not_cancelable: 409,
  review_limit_exceeded: 409,
  regen_limit_reached: 409,
  quote_invalid: 409,
  max_cost_exceeded: 409,
  delivery_in_progress: 409,
  invalid_params: 422,
  rate_limited: 429,
  active_tasks_exceeded: 429,
  internal_error: 500,
  generator_unavailable: 502,
  service_unavailable: 503,
};

/** Seconds a client waits after a store was briefly unavailable. */
const TRANSIENT_RETRY_AFTER = 2;

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The envelope {error: {code, message, request_id}}; request_id is an additive field. */
export function errorResponse(err: unknown, requestId: string): HttpResponse {
  const known =
    err instanceof AppError
      ? err
      : isTransient(err)
        ? new AppError('service_unavailable', 'The service is briefly unavailable; retry after the Retry-After seconds', TRANSIENT_RETRY_AFTER)
        : new AppError('internal_error', 'Internal error; retry with backoff');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId };
  if (known.retryAfterSeconds !== undefined) headers['retry-after'] = String(known.retryAfterSeconds);
  return {
    statusCode: STATUS_OF[known.code],
    headers,
    body: JSON.stringify({ error: { code: known.code, message: known.message, request_id: requestId } }),
  };
}
