/** The order workflow behind the Workflow port: one Step Functions execution per order, named by the order id. */
import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { Order } from '../core/orders.ts';
import type { Workflow } from '../core/ports.ts';

export class StepFunctionsWorkflow implements Workflow {
  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(order: Order): Promise<void> {
    try {
      await this.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn,
          // The name makes a second start of the same order a no-op instead of a second video.
          name: order.id,
          input: JSON.stringify({ orderId: order.id }),
        }),
      );
    } catch (err) {
      if (err instanceof ExecutionAlreadyExists || (err as Error).name === 'ExecutionAlreadyExists') return;
      throw err;
    }
  }
}
