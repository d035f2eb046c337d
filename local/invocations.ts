/**
 * Which function the code on this async path runs as: on AWS each route handler and step is its own Lambda; here
 * they share a process, so the gateway and the Step Functions engine run every call through `invoke`, which names
 * the function for the AWS calls it makes (the infrastructure tests check each function's grants with it) and tells
 * listeners how long it ran (the cost benchmark's Lambda GB-seconds).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { recordAwsMetric } from './metrics.ts';

export const invocation = new AsyncLocalStorage<string>();

type Listener = (name: string, ms: number) => void;
const listeners = new Set<Listener>();

/** Calls `listener` after every invocation; returns the function that stops it. */
export function onInvocation(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Runs `fn` as one invocation of function `name`, recorded as Lambda's metrics of it (local/metrics.ts): Invocations,
 * Errors (0 or 1: Lambda publishes both) and Duration.
 */
export async function invoke<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const dimensions = { FunctionName: name };
  let failed = 0;
  try {
    return await invocation.run(name, fn);
  } catch (err) {
    failed = 1;
    throw err;
  } finally {
    const ms = performance.now() - started;
    recordAwsMetric('AWS/Lambda', 'Invocations', dimensions);
    recordAwsMetric('AWS/Lambda', 'Errors', dimensions, failed);
    recordAwsMetric('AWS/Lambda', 'Duration', dimensions, ms);
    for (const listener of listeners) listener(name, ms);
  }
}

/** How Step Functions names Lambda's answer to an invocation past the function's reserved concurrency. */
export const LAMBDA_THROTTLE = 'Lambda.TooManyRequestsException';
const throttled = new Map<string, number>();
/** The invocations of `name` refused so far with Lambda's throttle. */
export const throttlesOf = (name: string) => throttled.get(name) ?? 0;

/**
 * A function's reserved concurrency: at most `n` runs of `name` at once, and one more is refused at once with
 * Lambda's throttle, as AWS answers it (the state machine's Retry for it runs it again later), not queued.
 */
export function reservedConcurrency(name: string, n: number) {
  let active = 0;
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) {
      throttled.set(name, throttlesOf(name) + 1);
      recordAwsMetric('AWS/Lambda', 'Throttles', { FunctionName: name });
      throw Object.assign(new Error('Rate Exceeded.'), { name: LAMBDA_THROTTLE });
    }
    active++;
    try {
      return await fn();
    } finally {
      active--;
    }
  };
}
