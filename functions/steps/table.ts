/**
 * The one table of step handlers: each Task state of the state machines in statemachines/, the `${Placeholder}` its
 * Resource names, and its handler module functions/steps/<module>.ts. CDK fills the definition substitutions from it with the
 * functions' ARNs; the local Step Functions engine runs the same handlers in-process for the same states.
 */
export const STATE_MACHINES = {
  order: { name: 'order', file: 'statemachines/order.asl.json' },
  delivery: { name: 'delivery', file: 'statemachines/delivery.asl.json' },
} as const;
export type MachineName = keyof typeof STATE_MACHINES;

export interface Step {
  machine: MachineName;
  state: string;
  placeholder: string;
  module: string;
  /** The state waits for its task token (`.waitForTaskToken`): the handler stores the token and returns. */
  waitForTaskToken?: boolean;
  /** CPU-heavy: runs at most RENDER_SLOTS at once (the local engine's limit; on AWS, the function's reserved concurrency). */
  heavy?: boolean;
  /**
   * The setting of its function's reserved concurrency on one machine (on AWS the stage's deliveryConcurrency): past
   * it an invocation is refused with Lambda's throttle, which the state machine retries.
   */
  reservedBy?: 'DELIVERY_CONCURRENCY';
}

export const STEPS: readonly Step[] = [
  { machine: 'order', state: 'AwaitSlot', placeholder: 'AwaitSlot', module: 'await-slot', waitForTaskToken: true },
  { machine: 'order', state: 'StartOrder', placeholder: 'StartOrder', module: 'start-order' },
  { machine: 'order', state: 'PrepareOrder', placeholder: 'PrepareOrder', module: 'prepare-order' },
  { machine: 'order', state: 'PlanOrder', placeholder: 'PlanOrder', module: 'plan-order' },
  { machine: 'order', state: 'WriteScript', placeholder: 'WriteScript', module: 'write-script' },
  { machine: 'order', state: 'AwaitReview', placeholder: 'AwaitReview', module: 'await-review', waitForTaskToken: true },
  { machine: 'order', state: 'RegenScript', placeholder: 'RegenScript', module: 'regen-script' },
  { machine: 'order', state: 'AwaitSlotToRender', placeholder: 'AwaitSlot', module: 'await-slot', waitForTaskToken: true },
  { machine: 'order', state: 'RenderVideo', placeholder: 'RenderVideo', module: 'render-video', heavy: true },
  { machine: 'order', state: 'PublishOrder', placeholder: 'PublishOrder', module: 'publish-order' },
  { machine: 'order', state: 'ReviewLapsed', placeholder: 'ReviewLapsed', module: 'review-lapsed' },
  { machine: 'order', state: 'MarkFailed', placeholder: 'MarkFailed', module: 'mark-failed' },
  { machine: 'delivery', state: 'DeliverEvent', placeholder: 'DeliverEvent', module: 'deliver-event', reservedBy: 'DELIVERY_CONCURRENCY' },
];

/** The definition with each placeholder replaced by `arnOf(step)`. */
export function substitute(definition: string, arnOf: (step: Step) => string): string {
  return STEPS.reduce((text, step) => text.replaceAll(`\${${step.placeholder}}`, arnOf(step)), definition);
}
