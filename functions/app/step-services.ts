/** The order workflow's steps with the generator: built only where a step runs, never in the API's functions. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrderSteps } from '../core/order-steps.ts';
import { generatorFromEnv } from '../generator/index.ts';
import { metrics } from '../adapters/metrics.ts';
import { logger, services } from './services.ts';

let built: OrderSteps | undefined;

function build(): OrderSteps {
  const { config: cfg, orders, accounts, files, links, deliveries } = services();
  return new OrderSteps({
    orders,
    accounts,
    generator: generatorFromEnv(),
    files,
    links,
    metrics,
    serviceAddress: cfg.serviceAddress,
    ...(cfg.generatorFail ? { failAt: cfg.generatorFail } : {}),
    workDir: () => mkdtempSync(join(tmpdir(), 'order-')),
    // An event that fails to start its delivery here stays pending; the sweep on start picks it up.
    announce: (event) => deliveries.workflow.start(event).catch((err: unknown) => logger.error('delivery start failed', { eventId: event.id, cause: String(err) })),
    now: () => new Date(),
  });
}

export const orderSteps = () => (built ??= build());
