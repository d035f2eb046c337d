/**
 * The metrics AWS itself publishes about the service (API Gateway's requests and errors, Lambda's invocations,
 * errors, durations and throttles, Step Functions' executions, DynamoDB's throttles), as the local stand-ins can tell
 * them: each stand-in records what passes through it here. Off unless someone listens (the alarm replay test does):
 * a call with no listener returns at once.
 */

export interface AwsDatapoint {
  namespace: 'AWS/ApiGateway' | 'AWS/Lambda' | 'AWS/States' | 'AWS/DynamoDB';
  name: string;
  dimensions: Record<string, string>;
  value: number;
  /** Epoch ms of the event, as CloudWatch timestamps a datapoint. */
  at: number;
}

type Listener = (point: AwsDatapoint) => void;
const listeners = new Set<Listener>();

/** Calls `listener` with every datapoint recorded from now on; returns the function that stops it. */
export function onAwsMetric(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function recordAwsMetric(namespace: AwsDatapoint['namespace'], name: string, dimensions: Record<string, string>, value = 1): void {
  if (listeners.size === 0) return;
  const point = { namespace, name, dimensions, value, at: Date.now() };
  for (const listener of listeners) listener(point);
}

/** The API's id in the gateway's events (requestContext.apiId) and in its metrics' ApiId dimension. */
export const LOCAL_API_ID = 'local';
