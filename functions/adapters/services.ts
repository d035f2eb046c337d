/** The adapters and use cases of this process, built once at cold start and shared by every handler in it. */
import { lookup } from 'node:dns/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import { OrderCreation } from '../core/create-order.ts';
import { orderLinks } from '../core/links.ts';
import { OrderSteps } from '../core/order-steps.ts';
import { deliver, type DeliveryPorts } from '../core/deliveries.ts';
import { DeliveryEvents, DeliveryWorkflow } from './deliveries.ts';
import { WebhookSender } from './webhook-sender.ts';
import { generatorFromEnv } from '../generator/index.ts';
import { Accounts } from './accounts.ts';
import { aws } from './aws.ts';
import { config } from './config.ts';
import { OrderFiles } from './files.ts';
import { Orders } from './orders.ts';
import { StepFunctionsWorkflow } from './workflow.ts';
import { Webhooks } from './webhooks.ts';
import type { UrlPolicy } from '../core/webhook-url.ts';

export const logger = new Logger({ serviceName: 'video-service' });

let built: ReturnType<typeof build> | undefined;

function build() {
  const cfg = config();
  const { ddb, s3, sfn } = aws();
  const accounts = new Accounts(ddb, cfg.tableName);
  const orders = new Orders(ddb, cfg.tableName);
  const workflow = new StepFunctionsWorkflow(sfn, cfg.orderStateMachineArn, cfg.reviewDeadlineSeconds);

  const urlPolicy: UrlPolicy = {
    allowPrivate: cfg.webhookAllowPrivate,
    resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  };  const files = new OrderFiles(s3, cfg.bucketName);
  const webhooks = new Webhooks(ddb, cfg.tableName);
  const events = new DeliveryEvents(ddb, cfg.tableName);
  const deliveryWorkflow = new DeliveryWorkflow(sfn, cfg.deliveryStateMachineArn);
  const deliveryPorts: DeliveryPorts = {
    events,
    webhooks,
    sender: new WebhookSender(urlPolicy),
    retryBaseMs: cfg.webhookRetryBaseMs,
    now: () => new Date(),
  };
  const links = { issue: (orderId: string, now: Date) => orderLinks(cfg.publicBaseUrl, cfg.linkSigningKey, orderId, now) };
  return {
    config: cfg,
    links,
    steps: new OrderSteps({
      orders,
      accounts,
      generator: generatorFromEnv(),
      files,
      links,
      serviceAddress: cfg.serviceAddress,
      ...(cfg.generatorFail ? { failAt: cfg.generatorFail } : {}),
      workDir: () => mkdtempSync(join(tmpdir(), 'order-')),
      // An event that fails to start its delivery here stays pending; the sweep on start picks it up.
      announce: (event) => deliveryWorkflow.start(event).catch((err: unknown) => logger.error('delivery start failed', { eventId: event.id, cause: String(err) })),
      now: () => new Date(),
    }),
    webhooks,
    deliveries: { events, workflow: deliveryWorkflow, deliver: (orderId: string, eventId: string) => deliver(deliveryPorts, orderId, eventId) },
    urlPolicy,
    accounts,
    orders,
    files,
    workflow,
    creation: new OrderCreation({
      orders,
      workflow,
      limits: cfg.limits,
      throughput: cfg.throughput,
      log: logger,
    }),
  };
}

export const services = () => (built ??= build());
