/** The adapters and use cases of this process, built once at cold start and shared by every handler in it. */
import { Logger } from '@aws-lambda-powertools/logger';
import { OrderCreation } from '../core/create-order.ts';
import { Accounts } from './accounts.ts';
import { aws } from './aws.ts';
import { config } from './config.ts';
import { OrderFiles } from './files.ts';
import { Orders } from './orders.ts';
import { StepFunctionsWorkflow } from './workflow.ts';

export const logger = new Logger({ serviceName: 'video-service' });

let built: ReturnType<typeof build> | undefined;

function build() {
  const cfg = config();
  const { ddb, s3, sfn } = aws();
  const accounts = new Accounts(ddb, cfg.tableName);
  const orders = new Orders(ddb, cfg.tableName);
  const workflow = new StepFunctionsWorkflow(sfn, cfg.orderStateMachineArn);
  return {
    config: cfg,
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
