/**
 * The order workflow behind the Workflow port: one Step Functions execution at a time per order, named by the order
 * id (or by the name a restart recorded on the order).
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { ReviewDecision } from '../contract/review.ts';
import type { Order } from '../core/orders.ts';
import { orderExecution } from '../core/executions.ts';
import type { ExecutionState, Workflow } from '../core/ports.ts';
import { sdk } from './aws.ts';

/**
 * Whether Step Functions refused a task token because its wait is gone: AWS answers TaskTimedOut for a token whose
 * wait was completed, timed out or ended with its execution, InvalidToken for one it cannot read (TaskDoesNotExist,
 * the activities' answer, is listed for SendTaskSuccess too). Throttles and outages are thrown, not taken for gone.
 */
export const isGoneToken = (err: unknown) => ['TaskDoesNotExist', 'TaskTimedOut', 'InvalidToken'].includes((err as Error | undefined)?.name ?? '');

export class StepFunctionsWorkflow implements Workflow {
  constructor(
    private readonly sfn: () => Promise<SFNClient>,
    private readonly stateMachineArn: () => string,
    private readonly reviewDeadlineSeconds: number,
  ) {}

  /** The execution's input: a director-mode order writes its script before it waits for a render slot. */
  private input(order: Order): string {
    return JSON.stringify({ orderId: order.id, directorMode: order.params.director_mode, reviewTimeoutSeconds: this.reviewDeadlineSeconds });
  }

  async start(order: Order): Promise<void> {
    const { StartExecutionCommand } = await sdk.sfn();
    try {
      await (await this.sfn()).send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn(),
          // The name makes a second start of the same order a no-op instead of a second video.
          name: orderExecution(order),
          input: this.input(order),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'ExecutionAlreadyExists') return;
      throw err;
    }
  }

  /**
   * Starts the execution of an order its admission just gave `slot` (core/capacity.ts START_AT_ADMISSION): named by the
   * order id, so an execution the audit started meanwhile (its wait finds the slot held) makes this a no-op.
   */
  async startAdmitted(orderId: string, slot: number): Promise<void> {
    const { StartExecutionCommand } = await sdk.sfn();
    const input = JSON.stringify({ orderId, directorMode: false, reviewTimeoutSeconds: this.reviewDeadlineSeconds, slot: { slot } });
    try {
      await (await this.sfn()).send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn(), name: orderId, input }));
    } catch (err) {
      if ((err as Error).name === 'ExecutionAlreadyExists') return;
      throw err;
    }
  }

  async state(order: Order): Promise<ExecutionState> {
    return executionState(await this.sfn(), executionArn(this.stateMachineArn(), orderExecution(order)));
  }

  async stop(order: Order, cause: string): Promise<void> {
    const { StopExecutionCommand } = await sdk.sfn();
    try {
      await (await this.sfn()).send(
        new StopExecutionCommand({ executionArn: executionArn(this.stateMachineArn(), orderExecution(order)), error: 'OrderCanceled', cause }),
      );
    } catch (err) {
      if ((err as Error).name === 'ExecutionDoesNotExist') return;
      throw err;
    }
  }

  async answerReview(taskToken: string, decision: ReviewDecision): Promise<boolean> {
    const { SendTaskSuccessCommand } = await sdk.sfn();
    try {
      await (await this.sfn()).send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify({ action: decision.action }) }));
      return true;
    } catch (err) {
      if (isGoneToken(err)) return false;
      throw err;
    }
  }
}

/** An execution's ARN, from its state machine's and its name. */
export const executionArn = (stateMachineArn: string, name: string) => `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/** DescribeExecution's answer as the sweep reads it. */
export async function executionState(sfn: SFNClient, executionArn: string): Promise<ExecutionState> {
  const { DescribeExecutionCommand } = await sdk.sfn();
  try {
    const out = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return out.status === 'RUNNING' ? 'running' : 'ended';
  } catch (err) {
    if ((err as Error).name === 'ExecutionDoesNotExist') return 'missing';
    throw err;
  }
}
