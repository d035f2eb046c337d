/**
 * Recovery of one ended execution (core/sweep.ts recoverEnded): EventBridge invokes it with Step Functions' status-change
 * event of an execution of either state machine that failed, timed out or was aborted; on one machine the local
 * endpoint sends the same event. An event this function cannot read is logged and dropped, not retried: the audit
 * sweep is the net for anything it misses. An execution stopped from outside (aborted while current and its order
 * open) is counted as ExecutionsAbortedUnexpectedly, which pages; the service's own stops (cancels) are not.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import * as z from 'zod/mini';
import type { Recovery } from '../core/sweep.ts';
import { publishMetrics } from '../adapters/metrics.ts';
import { logger, services } from '../app/services.ts';
import { EXECUTION_STATUS_CHANGE } from './table.ts';

const statusChange = z.looseObject({
  'detail-type': z.literal(EXECUTION_STATUS_CHANGE),
  detail: z.looseObject({
    stateMachineArn: z.string(),
    name: z.string(),
    status: z.enum(['FAILED', 'TIMED_OUT', 'ABORTED']),
    // Step Functions leaves the input out of the event past 248 KB (inputDetails.included false): never for ours.
    input: z.nullish(z.string()),
  }),
});
const executionInput = z.looseObject({ orderId: z.optional(z.string()), eventId: z.optional(z.string()) });

export const handler = middy<unknown, Recovery | 'ignored'>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async (event) => {
    const parsed = statusChange.safeParse(event);
    const input = parsed.success && parsed.data.detail.input ? executionInput.safeParse(safeJson(parsed.data.detail.input)) : undefined;
    if (!parsed.success || !input?.success) {
      logger.warn('a status-change event the recovery cannot read', { event: JSON.stringify(event).slice(0, 2000) });
      return 'ignored';
    }
    const { stateMachineArn, name, status } = parsed.data.detail;
    const { config, recover } = services();
    const machine = stateMachineArn === config.orderStateMachineArn ? 'order' : stateMachineArn === config.deliveryStateMachineArn ? 'delivery' : undefined;
    if (!machine) {
      logger.warn('a status-change event of another state machine', { stateMachineArn });
      return 'ignored';
    }
    const outcome = await recover({ machine, name, status, input: input.data });
    if (outcome === 'restarted' || outcome === 'expired') logger.warn('an ended execution was recovered', { machine, name, status, outcome });
    return outcome;
  });

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
