/** The order workflow's steps with the generator: built only where a step runs, never in the API's functions. */
import { OrderSteps } from '../core/order-steps.ts';
import { generatorFromEnv, testModeGenerator } from '../generator/index.ts';
import { withFaults } from './faults.ts';
import { scratchFolders } from '../adapters/scratch.ts';
import { providerKeys } from '../adapters/secrets.ts';
import { services } from './services.ts';

let built: OrderSteps | undefined;

function build(): OrderSteps {
  const { steps } = services();
  return new OrderSteps({
    ...steps,
    generator: withFaults(generatorFromEnv(process.env, providerKeys())),
    testModeGenerator: withFaults(testModeGenerator()),
    scratch: scratchFolders,
  });
}

export const orderSteps = () => (built ??= build());
