/** The order state machine: the same ASL file the local engine runs, its Task resources filled from the one step table. */
import { join } from 'node:path';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ORDER_STATE_MACHINE, STEPS } from '../functions/steps/table.ts';
import { ROOT } from './paths.ts';

export class Workflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: { stepFunction: (module: string) => IFunction }) {
    super(scope, id);
    const substitutions: Record<string, string> = {};
    const fns = STEPS.map((s) => {
      const fn = props.stepFunction(s.module);
      substitutions[s.placeholder] = fn.functionArn;
      return fn;
    });
    this.stateMachine = new StateMachine(this, 'Order', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromFile(join(ROOT, ORDER_STATE_MACHINE.file)),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      logs: { destination: new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH }), level: LogLevel.ERROR },
    });
    for (const fn of fns) fn.grantInvoke(this.stateMachine);
  }
}
