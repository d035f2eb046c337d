/** The recovery sweep's entry: on AWS a schedule invokes it every minute; on one machine a timer of the local runtime. */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import * as z from 'zod/mini';
import type { SweepResult } from '../core/sweep.ts';
import { publishMetrics } from '../adapters/metrics.ts';
import { logger, services } from '../app/services.ts';

/**
 * EventBridge's scheduled event, or the local runtime's at start, which sets no grace and a full run (core/sweep.ts:
 * a stop of the one-machine runtime loses the executions it ran).
 */
const sweepEvent = z.looseObject({ graceSeconds: z.optional(z.int().check(z.gte(0))), full: z.optional(z.boolean()) });

export const handler = middy<unknown, SweepResult>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    const parsed = sweepEvent.safeParse(event ?? {});
    const result = await services().sweep(parsed.success ? parsed.data.graceSeconds : undefined, parsed.success && parsed.data.full === true);
    // Anything recovered means something failed on the way (a start, a release, a wake-up): operators look.
    if (result.started || result.sent || result.reclaimed) logger.warn('the sweep recovered work', { ...result });
    return result;
  });
