/**
 * The state machines: the same ASL files the local engine runs, their Task resources filled from the one step table
 * with the ARNs of the step functions. Logs (all events, without execution data) and X-Ray tracing are on.
 */
import { join } from 'node:path';
import { ArnFormat, Fn, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { STATE_MACHINES, STEPS, type MachineName } from '../functions/steps/table.ts';
import { logGroup, type LogSettings } from './logs.ts';
import { ROOT } from './paths.ts';

/** A state machine's name, fixed so that its ARN is known before it exists (its own steps complete its task tokens). */
export const machineName = (scope: Construct, name: MachineName) => `${Stack.of(scope).stackName}-${name}`;

export const machineArnOf = (scope: Construct, name: MachineName) =>
  Stack.of(scope).formatArn({ service: 'states', resource: 'stateMachine', resourceName: machineName(scope, name), arnFormat: ArnFormat.COLON_RESOURCE_NAME });

/** The executions of a state machine, for a policy on them (DescribeExecution). */
export const executionsArnOf = (scope: Construct, name: MachineName) =>
  Stack.of(scope).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${machineName(scope, name)}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });

/**
 * A state machine's log group, under /aws/vendedlogs/states/ as AWS advises: CloudWatch Logs' resource policy for
 * vended logs then grants that one prefix instead of each group, and stays under its 5,120-character limit. The stack's
 * name makes it unique per stage and machine; the first part of the stack id's UUID, per stack: a retained group of a
 * deleted prod stack does not block the name of the next one.
 */
export const machineLogGroupName = (scope: Construct, name: MachineName) =>
  `/aws/vendedlogs/states/${machineName(scope, name)}-${Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Stack.of(scope).stackId))))}`;

export function stateMachine(scope: Construct, name: MachineName, functionOf: (module: string) => IFunction, logs: LogSettings): StateMachine {
  const substitutions: Record<string, string> = {};
  const fns = STEPS.filter((s) => s.machine === name).map((s) => {
    const fn = functionOf(s.module);
    substitutions[s.placeholder] = fn.functionArn;
    return fn;
  });
  const machine = new StateMachine(scope, `${name}-machine`, {
    stateMachineName: machineName(scope, name),
    stateMachineType: StateMachineType.STANDARD,
    definitionBody: DefinitionBody.fromFile(join(ROOT, STATE_MACHINES[name].file)),
    definitionSubstitutions: substitutions,
    tracingEnabled: true,
    logs: {
      destination: logGroup(scope, `${name}-machine-logs`, logs, machineLogGroupName(scope, name)),
      level: LogLevel.ALL,
      includeExecutionData: false,
    },
  });
  for (const fn of fns) fn.grantInvoke(machine);
  return machine;
}
