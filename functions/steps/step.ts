/** The wrapper of every step handler: validated input, the order id in the logs, and its errors sorted for the alarms. */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import * as z from 'zod/mini';
import { GeneratorFailed } from '../core/generator.ts';
import { isWorkflowOutcome } from '../core/order-steps.ts';
import { countOfFunction, publishMetrics } from '../adapters/metrics.ts';
import { logger } from '../app/services.ts';
import { isTransient, TRANSIENT_ERROR_NAME } from '../adapters/transient.ts';

const stepInput = z.object({
  orderId: z.string().check(z.minLength(1)),
  /** The execution's name ($$.Execution.Name): a step of an execution the order no longer names ends it. */
  execution: z.optional(z.string()),
  taskToken: z.optional(z.string()),
  eventId: z.optional(z.string()),
  failure: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
});
export type StepInput = z.infer<typeof stepInput>;

/**
 * A step's handler. `name` is its module's, which is also its function's name (lib/functions.ts builds a function per
 * step module, and one machine's engine invokes the step by it): given here, since neither runtime tells a function
 * that name (AWS_LAMBDA_FUNCTION_NAME is the physical name CloudFormation made, and one machine's steps share a process).
 */
export function stepHandler<R>(name: string, run: (input: StepInput) => Promise<R>) {
  const handler = middy<unknown, R>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics())
    .handler(async (event) => {
      const input = stepInput.parse(event);
      logger.appendKeys({ orderId: input.orderId });
      try {
        return await run(input);
      } catch (err) {
        // The state machines retry this name with backoff: a store that is briefly away does not fail the order.
        if (isTransient(err)) {
          logger.warn('a store is briefly unavailable', { error: err as Error });
          const transient = new Error(`A store is briefly unavailable: ${(err as Error).message}`, { cause: err });
          transient.name = TRANSIENT_ERROR_NAME;
          throw transient;
        }
        // Lambda counts it in Errors all the same: the function's error-rate alarm takes these out again.
        if (isWorkflowOutcome(err)) countOfFunction('StepOutcomeErrors', name);
        if (err instanceof GeneratorFailed) countOfFunction('GenerationsFailed', name);
        // The workflow decides what the failure means (retry, or the order's error); the operator sees it here.
        logger.warn('step failed', { error: err as Error });
        throw err;
      }
    });
  return Object.assign(handler, { stepName: name });
}
