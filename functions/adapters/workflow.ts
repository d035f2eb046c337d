/** The order workflow behind the Workflow port: one Step Functions execution per order, named by the order id. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { ReviewDecision } from '../contract/review.ts';
import type { Order } from '../core/orders.ts';
import type { Workflow } from '../core/ports.ts';
import { sdk } from './aws.ts';

/**
 * Whether Step Functions refused a task token because its wait is gone: AWS answers TaskTimedOut for a token whose
 * execution has ended (stopped, failed, timed out), TaskDoesNotExist or InvalidToken for one it does not know.
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
          name: order.id,
          input: this.input(order),
        }),
      );
    } catch (err) {
      if ((err as Error).name === 'ExecutionAlreadyExists') return;
      throw err;
    }
  }

  /**
   * Completes the review wait's task token with the decision; the workflow goes on from there. A token whose wait no
   * longer exists (its execution ended with a stop) gets a new execution, which picks up from the recorded decision.
   */
  async resumeAfterReview(order: Order, decision: ReviewDecision): Promise<void> {
    const { SendTaskSuccessCommand, StartExecutionCommand } = await sdk.sfn();
    const sfn = await this.sfn();
    try {
      if (!order.reviewToken) throw Object.assign(new Error('no task token'), { name: 'TaskDoesNotExist' });
      await sfn.send(new SendTaskSuccessCommand({ taskToken: order.reviewToken, output: JSON.stringify({ action: decision.action }) }));
    } catch (err) {
      if (!isGoneToken(err)) throw err;
      await sfn.send(
        new StartExecutionCommand({
          stateMachineArn: this.stateMachineArn(),
          name: `${order.id}-r${Date.now()}`,
          input: this.input(order),
        }),
      );
    }
  }
}
