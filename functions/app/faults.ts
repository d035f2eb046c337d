/**
 * GENERATOR_FAIL (one machine only): the generator wrapped so that a stage fails for every order, or a share of
 * orders fails, each at one stage; or every render crashes, or each order's first render only. The choice is made from the order id, so a retried or
 * resumed step agrees with the first run. The setting is read at each call, so a running stack can be switched (the
 * alarm replay crashes the renders for a stretch). The domain's steps know nothing of it.
 */
import { createHash } from 'node:crypto';
import { type GeneratorFault, generatorFault } from '../adapters/config.ts';
import { GeneratorFailed, type Generator } from '../core/generator.ts';

type Stage = 'plan' | 'script' | 'render';

/** Whether the fault fails this order at this stage (a crash is not a failure: see `withFaults`). */
export function failsAt(fault: GeneratorFault | undefined, orderId: string, stage: Stage): boolean {
  if (fault === undefined || fault === 'crash' || fault === 'crash-once') return false;
  if (typeof fault === 'string') return fault === stage;
  const digest = createHash('sha256').update(orderId).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < fault.rate && stage === (digest[4]! % 2 === 0 ? 'script' : 'render');
}

/** GENERATOR_FAIL as it is set now. */
const faultNow = () => generatorFault(process.env.GENERATOR_FAIL);

/**
 * The render's crash: not the generator's GeneratorFailed but what Lambda reports when the function's process ends
 * (a runtime fault, out of memory), which Step Functions sees as the step's error.
 */
export const RENDER_CRASH = 'Runtime.ExitError';

/** The orders whose render `crash-once` crashed already, in this process (one machine's steps share it). */
const crashedOnce = new Set<string>();

export function withFaults(generator: Generator, fault: () => GeneratorFault | undefined = faultNow): Generator {
  const check = (orderId: string | undefined, stage: Stage) => {
    const now = fault();
    const crashes = now === 'crash' || (now === 'crash-once' && !crashedOnce.has(orderId ?? ''));
    if (crashes && stage === 'render') {
      crashedOnce.add(orderId ?? '');
      throw Object.assign(new Error('GENERATOR_FAIL: the render crashed'), { name: RENDER_CRASH });
    }
    if (failsAt(now, orderId ?? '', stage)) throw new GeneratorFailed(`GENERATOR_FAIL: ${stage}`);
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
