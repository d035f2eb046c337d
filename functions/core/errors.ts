/**
 * Domain errors. Every failure a client can see is one of these; the HTTP layer maps them to the spec's
 * envelope in one place (functions/http/errors.ts). Anything else that escapes becomes 500 internal_error.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'insufficient_funds'
  | 'spend_limit_exceeded'
  | 'forbidden'
  | 'not_found'
  | 'fair_use_exceeded'
  | 'not_awaiting_review'
  | 'not_cancelable'
  | 'review_limit_exceeded'
  | 'regen_limit_reached'
  | 'quote_invalid'
  | 'max_cost_exceeded'
  | 'delivery_in_progress'
  | 'invalid_params'
  | 'rate_limited'
  | 'active_tasks_exceeded'
  | 'internal_error'
  | 'generator_unavailable'
  | 'service_unavailable';

export class AppError extends Error {
  override readonly name: string = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds the client should wait before trying again (429, 503). */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const unauthorized = (message = 'API key is missing, invalid or revoked') => new AppError('unauthorized', message);
export const forbidden = (what: string) => new AppError('forbidden', `This ${what} belongs to another API key`);
export const notFound = (what: string) => new AppError('not_found', `No such ${what}`);

/** 422: the message always names the field and the reason. */
export class InvalidParams extends AppError {
  override readonly name = 'InvalidParams';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super('invalid_params', `${field}: ${reason}`);
  }
}

export const insufficientFunds = (cost: number, balance: number) =>
  new AppError('insufficient_funds', `The order costs ${cost} doubloons; the balance is ${balance}`);
export const spendLimitExceeded = (cost: number, spent: number, limit: number, month: string) =>
  new AppError(
    'spend_limit_exceeded',
    `The order costs ${cost} doubloons; this key spent ${spent} of its monthly spend limit of ${limit} in ${month} (UTC); nothing was charged`,
  );
export const fairUseExceeded = (plan: string) =>
  new AppError(
    'fair_use_exceeded',
    `The monthly allowance of heavy videos of plan "${plan}" is used up; wait for the next month or send "billing": "doubloons" to pay the full price`,
  );
export const rateLimited = (retryAfterSeconds: number, limit: number, window: 'posts' | 'gets' = 'posts') =>
  new AppError('rate_limited', `More than ${limit} ${window === 'posts' ? 'POST and DELETE' : 'GET'} requests per minute on this key`, retryAfterSeconds);
export const assetBudgetExceeded = (retryAfterSeconds: number, limit: number) =>
  new AppError(
    'rate_limited',
    `The asset budget of this key is spent: at most ${limit} new assets per UTC day; it renews at the day's end (Retry-After)`,
    retryAfterSeconds,
  );
export const resendBudgetExceeded = (retryAfterSeconds: number, limit: number) =>
  new AppError(
    'rate_limited',
    `The resend budget of this key is spent: at most ${limit} resent events per hour; it renews at the hour's end (Retry-After)`,
    retryAfterSeconds,
  );
export const activeTasksExceeded = (retryAfterSeconds: number, limit: number) =>
  new AppError('active_tasks_exceeded', `Already ${limit} active tasks (queued plus running)`, retryAfterSeconds);
export const reviewLimitExceeded = (limit: number) =>
  new AppError(
    'review_limit_exceeded',
    `Already ${limit} director-mode orders waiting for their review; approve, edit or cancel one before ordering another in director mode`,
  );
export const regenLimitReached = (max: number) =>
  new AppError(
    'regen_limit_reached',
    `The script was already rewritten ${max} times, the most an order allows; approve it, edit it yourself or cancel the order`,
  );
export const notAwaitingReview = (status: string) => new AppError('not_awaiting_review', `The order is ${status}, not awaiting_review`);
export const quoteInvalid = (why: string) => new AppError('quote_invalid', `The quote ${why}; ask for a new one (POST /videos:quote)`);
export const maxCostExceeded = (cost: number, max: number) =>
  new AppError('max_cost_exceeded', `The order costs ${cost} doubloons, more than max_cost ${max}; nothing was charged`);
export const deliveryInProgress = (eventId: string) =>
  new AppError('delivery_in_progress', `The event ${eventId} is still being delivered; resend it once its attempts have ended`);
export const notCancelable = (status: string, rendering = false) =>
  new AppError(
    'not_cancelable',
    rendering
      ? `The order is ${status} and its render has started: a render in progress cannot be stopped (an order can be canceled until its render starts)`
      : `The order is ${status}: only an order whose render has not started (queued, awaiting_review, or running before its render) can be canceled`,
  );
export const serviceUnavailable = (message: string, retryAfterSeconds?: number) => new AppError('service_unavailable', message, retryAfterSeconds);

/**
 * Items stayed held by other writers (DynamoDB transaction conflicts) past the caller's retries. It passes by itself:
 * the API answers it 503 and the workflows retry the step (adapters/transient.ts), never failing the order for it.
 */
export class Contended extends Error {
  override readonly name = 'Contended';
}
