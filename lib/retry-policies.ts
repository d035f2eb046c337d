/**
 * The Retry policies of the state machines' Task states (statemachines/*.asl.json), named once. ASL has no references,
 * so each Task spells its policy out; test/unit/asl-retry.test.ts holds every Task's Retry equal to one of these.
 */

type Retrier = {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate?: number;
  JitterStrategy?: 'FULL';
  MaxDelaySeconds?: number;
};

/** Lambda's own transient failures: retried at once, as AWS advises for every Lambda Task. */
const LAMBDA_TRANSIENT: Retrier = {
  ErrorEquals: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.ClientExecutionTimeoutException'],
  IntervalSeconds: 1,
  MaxAttempts: 3,
  BackoffRate: 2,
};
/** Lambda's throttle (a reserved concurrency full): waited out with jitter. */
const LAMBDA_THROTTLED: Retrier = {
  ErrorEquals: ['Lambda.TooManyRequestsException'],
  IntervalSeconds: 5,
  MaxAttempts: 8,
  BackoffRate: 2,
  JitterStrategy: 'FULL',
  MaxDelaySeconds: 120,
};
/** A store briefly unavailable (adapters/transient.ts TRANSIENT_ERROR_NAME). */
const STORE_UNAVAILABLE: Retrier = { ErrorEquals: ['ServiceUnavailable'], IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2, JitterStrategy: 'FULL' };
/** The generator's provider busy. */
const GENERATOR_BUSY: Retrier = { ErrorEquals: ['GeneratorBusy'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2, JitterStrategy: 'FULL' };

export const RETRY_POLICIES: Record<string, Retrier[]> = {
  /** A step that touches only the stores. */
  step: [LAMBDA_TRANSIENT, LAMBDA_THROTTLED, STORE_UNAVAILABLE],
  /** A step that calls the generator's providers. */
  generating: [LAMBDA_TRANSIENT, LAMBDA_THROTTLED, GENERATOR_BUSY, STORE_UNAVAILABLE],
  /** The render: a generating step whose process may die (out of memory, timeout) once. */
  render: [
    LAMBDA_TRANSIENT,
    LAMBDA_THROTTLED,
    GENERATOR_BUSY,
    STORE_UNAVAILABLE,
    { ErrorEquals: ['Lambda.Unknown', 'Runtime.ExitError', 'Sandbox.Timedout', 'States.Timeout'], IntervalSeconds: 2, MaxAttempts: 1 },
  ],
  /** The failure's record: it must land, so any error is tried again. */
  markFailed: [LAMBDA_TRANSIENT, LAMBDA_THROTTLED, STORE_UNAVAILABLE, { ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 5, BackoffRate: 2 }],
  /** A webhook delivery: throttled longer, any error tried three times with jitter. */
  delivery: [
    LAMBDA_TRANSIENT,
    { ...LAMBDA_THROTTLED, MaxAttempts: 20, MaxDelaySeconds: 60 },
    STORE_UNAVAILABLE,
    { ErrorEquals: ['States.ALL'], IntervalSeconds: 2, MaxAttempts: 3, BackoffRate: 2, JitterStrategy: 'FULL' },
  ],
};
