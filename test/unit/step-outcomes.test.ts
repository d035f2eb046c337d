/**
 * A step's errors, sorted for its function's error-rate alarm: the workflow's business outcomes (OrderClosed, a
 * GeneratorFailed the workflow refunds, RenderInFlight) are counted as StepOutcomeErrors with the function's name,
 * which the alarm takes out of Lambda's Errors; a crash, a store or a provider away are not, and page. Each step
 * module names its own function. The metrics are Powertools' embedded metric format lines, switched on for this file.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { captureEmf } from '../support/emf.ts';
import { STEPS } from '../../functions/steps/table.ts';

// Read by the metrics module when first imported: set before the imports below.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.STAGE = 'unit';
process.env.POWERTOOLS_LOG_LEVEL = 'CRITICAL';
const emf = captureEmf();

let stepHandler: typeof import('../../functions/steps/step.ts').stepHandler;
let errors: {
  OrderClosed: typeof import('../../functions/core/order-steps.ts').OrderClosed;
  RenderInFlight: typeof import('../../functions/core/order-steps.ts').RenderInFlight;
  GeneratorFailed: typeof import('../../functions/core/generator.ts').GeneratorFailed;
  GeneratorBusy: typeof import('../../functions/core/generator.ts').GeneratorBusy;
};
let context: import('aws-lambda').Context;
before(async () => {
  ({ stepHandler } = await import('../../functions/steps/step.ts'));
  const { OrderClosed, RenderInFlight } = await import('../../functions/core/order-steps.ts');
  const { GeneratorBusy, GeneratorFailed } = await import('../../functions/core/generator.ts');
  errors = { OrderClosed, RenderInFlight, GeneratorFailed, GeneratorBusy };
  context = (await import('../../local/gateway.ts')).lambdaContext('step-render-video');
});

/** What one failing run of a step counted. */
async function counted(err: Error): Promise<{ name: string; dimensions: string[][]; values: Record<string, unknown> }[]> {
  const from = emf.mark();
  const step = stepHandler('render-video', async () => {
    throw err;
  });
  await assert.rejects(step({ orderId: 'vid_x' }, context));
  return emf.records(from).flatMap((r) => r.metrics.map((m) => ({ name: m.name, dimensions: r.dimensions, values: r.values })));
}

describe("a step's errors", () => {
  it('counts the business outcomes, with the service, the stage and the function', async () => {
    // RenderInFlight: a taken-over order's render step asks every 10 s while a stopped execution's render may run.
    const outcomes = [
      new errors.OrderClosed('The order is closed'),
      new errors.GeneratorFailed('The script cannot be spoken'),
      new errors.RenderInFlight('Another execution renders the order'),
    ];
    for (const err of outcomes) {
      const [only, ...more] = await counted(err);
      // A generation failed for good is counted once more, apart: the share of renders failing pages (RendersFailing).
      if (err instanceof errors.GeneratorFailed) {
        assert.deepEqual(
          more.map((m) => [m.name, m.dimensions, m.values.function, m.values.GenerationsFailed]),
          [['GenerationsFailed', [['service', 'stage', 'function']], 'render-video', 1]],
        );
      } else assert.deepEqual(more, [], err.name);
      assert.equal(only?.name, 'StepOutcomeErrors', err.name);
      assert.deepEqual(only.dimensions, [['service', 'stage', 'function']]);
      // The stage is read when the metrics module is first imported: 'unit' when this file runs alone, 'local' in the
      // unit tier's one process (--test-isolation=none), where another file may import it before STAGE is set here.
      assert.deepEqual([only.values.service, only.values.function, only.values.StepOutcomeErrors], ['video-service', 'render-video', 1]);
      assert.ok(['unit', 'local'].includes(String(only.values.stage)), String(only.values.stage));
    }
  });

  it('counts nothing for a fault: a crash, a provider busy, a store away', async () => {
    const away = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const died = Object.assign(new Error('Runtime exited with error: signal: killed'), { name: 'Runtime.ExitError' });
    for (const err of [
      new TypeError("Cannot read properties of undefined (reading 'scenes')"),
      new errors.GeneratorBusy('The model is busy (429)'),
      away,
      died,
    ])
      assert.deepEqual(await counted(err), [], err.name);
  });

  it('is counted under the function each step module is built as: its module name', async () => {
    for (const module of new Set(STEPS.map((s) => s.module))) {
      const { handler } = (await import(`../../functions/steps/${module}.ts`)) as { handler: { stepName: string } };
      assert.equal(handler.stepName, module);
    }
  });
});
