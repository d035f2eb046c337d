/** The order workflow's steps with the generator: built only where a step runs, never in the API's functions. */
import { OrderSteps } from '../core/order-steps.ts';
import { generatorFromEnv } from '../generator/index.ts';
import { withFaults } from './faults.ts';
import { metrics } from '../adapters/metrics.ts';
import { scratchFolders } from '../adapters/scratch.ts';
import { providerKeys } from '../adapters/secrets.ts';
import { logger, services } from './services.ts';

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
    // An event whose delivery fails to start keeps its pending marker (written with the event): the sweep starts it
    // after its grace, on AWS as on one machine.
    capacity: queue,
    announce: (event) =>
      deliveries.workflow.start(event).catch((err: unknown) => logger.error('delivery start failed', { eventId: event.id, cause: String(err) })),
    now: () => new Date(),
  });
}

export const orderSteps = () => (built ??= build());
