/**
 * The one table of step handlers: ASL `${Placeholder}` -> the handler module functions/steps/<module>.ts. CDK fills
 * the definition substitutions from it and the local Step Functions engine runs the same handlers in-process.
 * Empty until the workflow issue adds the Task states.
 */
export interface Step {
  placeholder: string;
  module: string;
}

export const STEPS: readonly Step[] = [];

export const ORDER_STATE_MACHINE = { name: 'order', file: 'statemachines/order.asl.json' } as const;
