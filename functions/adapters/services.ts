/** The adapters and use cases of this process, built once at cold start and shared by every handler in it. */
import { lookup } from 'node:dns/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { OrderCreation } from '../core/create-order.ts';
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
  const workflow = new StepFunctionsWorkflow(sfn, cfg.orderStateMachineArn);
  const urlPolicy: UrlPolicy = {
    allowPrivate: cfg.webhookAllowPrivate,
    resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
  };
  return {
    config: cfg,
    webhooks: new Webhooks(ddb, cfg.tableName),
    urlPolicy,
    accounts,
    orders,
    files: new OrderFiles(s3, cfg.bucketName),
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
