/**
 * GENERATOR_FAIL (one machine only): the generator wrapped so that a stage fails for every order, or a share of
 * orders fails, each at one stage. The choice is made from the order id, so a retried or resumed step agrees with
 * the first run. The domain's steps know nothing of it.
 */
import { createHash } from 'node:crypto';
import type { GeneratorFault } from '../adapters/config.ts';
import { GeneratorFailed, type Generator } from '../core/generator.ts';

type Stage = 'plan' | 'script' | 'render';

/** Whether the fault hits this order at this stage. */
export function failsAt(fault: GeneratorFault | undefined, orderId: string, stage: Stage): boolean {
  if (fault === undefined) return false;
  if (typeof fault === 'string') return fault === stage;
  const digest = createHash('sha256').update(orderId).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < fault.rate && stage === (digest[4]! % 2 === 0 ? 'script' : 'render');
}

export function withFaults(generator: Generator, fault: GeneratorFault | undefined): Generator {
  if (fault === undefined) return generator;
  const check = (orderId: string | undefined, stage: Stage) => {
    if (failsAt(fault, orderId ?? '', stage)) throw new GeneratorFailed(`GENERATOR_FAIL: ${stage}`);
  };
  return {
    planner: {
      plan: async (prompt, job) => {
        check(job?.orderId, 'plan');
        return generator.planner.plan(prompt, job);
      },
    },
    writer: {
      write: async (req) => {
        check(req.orderId, 'script');
        return generator.writer.write(req);
      },
    },
    renderer: {
      render: async (req) => {
        check(req.orderId, 'render');
        return generator.renderer.render(req);
      },
    },
  };
}
