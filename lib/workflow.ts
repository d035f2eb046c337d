/**
 * The state machines: the same ASL files the local engine runs, their Task resources filled from the one step table.
 */
import { join } from 'node:path';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { STATE_MACHINES, STEPS, type MachineName } from '../functions/steps/table.ts';
import { ROOT } from './paths.ts';

export class Workflow extends Construct {
  readonly machines: Record<MachineName, StateMachine>;

  constructor(scope: Construct, id: string, props: { stepFunction: (module: string) => IFunction }) {
    super(scope, id);
    const build = (name: MachineName) => {
      const substitutions: Record<string, string> = {};
      const fns = STEPS.filter((s) => s.machine === name).map((s) => {
        const fn = props.stepFunction(s.module);
        substitutions[s.placeholder] = fn.functionArn;
        return fn;
      });
      const machine = new StateMachine(this, name, {
        stateMachineType: StateMachineType.STANDARD,
        definitionBody: DefinitionBody.fromFile(join(ROOT, STATE_MACHINES[name].file)),
        definitionSubstitutions: substitutions,
        tracingEnabled: true,
        logs: { destination: new LogGroup(this, `${name}-logs`, { retention: RetentionDays.ONE_MONTH }), level: LogLevel.ERROR },
      });
      for (const fn of fns) fn.grantInvoke(machine);
      return machine;
    };
    this.machines = { order: build('order'), delivery: build('delivery') };
  }
}
