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

  async start(order: Order): Promise<boolean> {
    // The name makes a second start of the same order a no-op instead of a second video.
    return startExecution(await this.sfn(), { stateMachineArn: this.stateMachineArn(), name: orderExecution(order), input: this.input(order) });
  }

  /**
   * Starts the execution of an order its admission just gave `slot` (core/capacity.ts START_AT_ADMISSION): named by the
   * order id, so an execution the audit started meanwhile (its wait finds the slot held) makes this a no-op.
   */
  async startAdmitted(orderId: string, slot: number): Promise<void> {
    const input = JSON.stringify({ orderId, directorMode: false, reviewTimeoutSeconds: this.reviewDeadlineSeconds, slot: { slot } });
    await startExecution(await this.sfn(), { stateMachineArn: this.stateMachineArn(), name: orderId, input });
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

/** A start's answer is no later than this much before the call was sent (clocks apart, rounding). */
const START_SKEW_MS = 1000;

/**
 * Starts a named execution; true when this call started it, false when one of that name was there. Step Functions
 * refuses a name taken (ExecutionAlreadyExists), except that a start with the name and input of a running execution
 * is answered as that execution's own start (standard workflows are idempotent): its start date, from before this
 * call, tells it apart.
 */
export async function startExecution(sfn: SFNClient, params: { stateMachineArn: string; name: string; input: string }): Promise<boolean> {
  const { StartExecutionCommand } = await sdk.sfn();
  const sent = Date.now();
  try {
    const out = await sfn.send(new StartExecutionCommand(params));
    return !out.startDate || out.startDate.getTime() >= sent - START_SKEW_MS;
  } catch (err) {
    if ((err as Error).name === 'ExecutionAlreadyExists') return false;
    throw err;
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
