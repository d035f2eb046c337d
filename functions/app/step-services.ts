/** The order workflow's steps with the generator: built only where a step runs, never in the API's functions. */
import { OrderSteps } from '../core/order-steps.ts';
import { generatorFromEnv } from '../generator/index.ts';
import { withFaults } from './faults.ts';
import { metrics } from '../adapters/metrics.ts';
import { scratchFolders } from '../adapters/scratch.ts';
import { providerKeys } from '../adapters/secrets.ts';
import { services } from './services.ts';

let built: OrderSteps | undefined;

function build(): OrderSteps {
  const { config: cfg, orders, accounts, files, links, deliveries, queue } = services();
  return new OrderSteps({
    orders,
    accounts,
    generator: withFaults(generatorFromEnv(process.env, providerKeys()), cfg.generatorFail),
    files,
    links,
    metrics,
    serviceAddress: cfg.serviceAddress,
    scratch: scratchFolders,
    capacity: queue,
    announce: deliveries.announce,
    now: () => new Date(),
  });
}

export const orderSteps = () => (built ??= build());
