/**
 * The one table of step handlers: each Task state of statemachines/order.asl.json, the `${Placeholder}` its Resource
 * names, and its handler module functions/steps/<module>.ts. CDK fills the definition substitutions from it with the
 * functions' ARNs; the local Step Functions engine runs the same handlers in-process for the same states.
 */
export interface Step {
  state: string;
  placeholder: string;
  module: string;
  /** The state waits for its task token (`.waitForTaskToken`): the handler stores the token and returns. */
  waitForTaskToken?: boolean;
  /** CPU-heavy: runs at most RENDER_WORKERS at once (the local engine's limit; on AWS, the function's concurrency). */
  heavy?: boolean;
}

export const STEPS: readonly Step[] = [
  { state: 'Start', placeholder: 'StartOrder', module: 'start-order' },
  { state: 'Plan', placeholder: 'PlanOrder', module: 'plan-order' },
  { state: 'Write', placeholder: 'WriteScript', module: 'write-script' },
  { state: 'AwaitReview', placeholder: 'AwaitReview', module: 'await-review', waitForTaskToken: true },
  { state: 'Regen', placeholder: 'RegenScript', module: 'regen-script' },
  { state: 'Render', placeholder: 'RenderVideo', module: 'render-video', heavy: true },
  { state: 'Publish', placeholder: 'PublishOrder', module: 'publish-order' },
  { state: 'MarkFailed', placeholder: 'MarkFailed', module: 'mark-failed' },
];

export const ORDER_STATE_MACHINE = { name: 'order', file: 'statemachines/order.asl.json' } as const;

/** The definition with each placeholder replaced by `arnOf(step)`. */
export function substitute(definition: string, arnOf: (step: Step) => string): string {
  return STEPS.reduce((text, step) => text.replaceAll(`\${${step.placeholder}}`, arnOf(step)), definition);
}
