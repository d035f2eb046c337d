/**
 * Failures of a store or service that may pass by themselves: throttling, a 5xx from AWS, a connection refused or
 * reset (on one machine: DynamoDB Local restarting). The API answers them 503 with Retry-After instead of 500, and
 * the workflows retry them (the ServiceUnavailable error of the state machines) instead of failing the order.
 */
const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TransactionInProgressException',
  // A single write that met a transaction holding its item, and a transaction that kept meeting others (core's
  // Contended): both pass by themselves.
  'TransactionConflictException',
  'Contended',
]);
/**
 * Why a transaction was cancelled, when that passes by itself: a throttle, or another transaction holding an item
 * (a conflict that outlasted its caller's retries).
 */
const PASSING_REASONS = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded', 'TransactionConflict']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

export function isTransient(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as {
    name?: string;
    code?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
    cause?: unknown;
    errors?: unknown[];
    CancellationReasons?: { Code?: string }[];
  };
  if (e.$retryable) return true;
  if (e.name === 'TransactionCanceledException') {
    // Transient when every item that failed did so for a passing reason (the others report None).
    const failed = (e.CancellationReasons ?? []).map((r) => r?.Code ?? 'None').filter((code) => code !== 'None');
    return failed.length > 0 && failed.every((code) => PASSING_REASONS.has(code));
  }
  if (e.name && THROTTLING.has(e.name)) return true;
  if (e.code && NETWORK.has(e.code)) return true;
  if ((e.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  // Node wraps a refused connection to every address in an AggregateError.
  if (Array.isArray(e.errors) && e.errors.some(isTransient)) return true;
  return e.cause !== undefined && e.cause !== err && isTransient(e.cause);
}

/** The error name the state machines retry. */
export const TRANSIENT_ERROR_NAME = 'ServiceUnavailable';
