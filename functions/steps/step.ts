/** The wrapper of every step handler: validated input, the order id in the logs, the process's services. */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { z } from 'zod';
import { logger, services } from '../adapters/services.ts';

const stepInput = z.object({
  orderId: z.string().min(1),
  taskToken: z.string().optional(),
  eventId: z.string().optional(),
  failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});
export type StepInput = z.infer<typeof stepInput>;

export function stepHandler<R>(run: (s: ReturnType<typeof services>, input: StepInput) => Promise<R>) {
  return middy<unknown, R>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => {
      const input = stepInput.parse(event);
      logger.appendKeys({ orderId: input.orderId });
      return run(services(), input);
    });
}
