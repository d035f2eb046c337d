/** The whole service as one stack: data, workflow and API. Operations and hardening come with the deployment issue. */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { Api, lambda } from './api.ts';
import { Data } from './data.ts';
import { Workflow } from './workflow.ts';

export class VideoServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps & { stage: string }) {
    super(scope, id, props);
    const data = new Data(this, 'Data');
    const base = { TABLE_NAME: data.table.tableName, BUCKET_NAME: data.bucket.bucketName, POWERTOOLS_SERVICE_NAME: 'video-service' };
    const workflow = new Workflow(this, 'Workflow', {
      stepFunction: (module) => lambda(this, `step-${module}`, `functions/steps/${module}.ts`, base),
    });
    new Api(this, 'Api', {
      environment: {
        ...base,
        ORDER_STATE_MACHINE_ARN: workflow.machines.order.stateMachineArn,
        DELIVERY_STATE_MACHINE_ARN: workflow.machines.delivery.stateMachineArn,
      },
      grant: (fn, handler) => {
        data.table.grantReadWriteData(fn);
        if (handler.startsWith('create-')) workflow.machines.order.grantStartExecution(fn);
        if (handler === 'review-video') workflow.machines.order.grantTaskResponse(fn);
      },
    });
  }
}
