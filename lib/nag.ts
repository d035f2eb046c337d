/**
 * The cdk-nag AwsSolutions findings this stack accepts, each acknowledged on the construct it concerns and with its
 * reason. Any other finding fails `cdk synth` and the infrastructure tests. The data grants themselves are checked by
 * the tests apart from cdk-nag: no wildcard action or resource on the table or the bucket.
 */
import { Stack, Token, Validations, type CfnElement } from 'aws-cdk-lib';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { IConstruct } from 'constructs';

const finding = (rule: string) => `AwsSolutions::AwsSolutions-${rule}`;
const acknowledge = (construct: IConstruct, rule: string, reason: string) => Validations.of(construct).acknowledge({ id: finding(rule), reason });

export const REASONS = {
  routes:
    'API keys are checked by every function behind an authenticated route (functions/http/middleware.ts): an HTTP API ' +
    "authorizer would answer refusals without the contract's 401 error envelope. The download route is open by design " +
    '(7-day HMAC-signed links need no key) and $default only answers 404.',
  xray: 'X-Ray PutTraceSegments and PutTelemetryRecords accept no resource narrower than *.',
  machineLogs: 'Step Functions log delivery (logs:CreateLogDelivery and the rest) and X-Ray accept no resource narrower than *.',
  machineInvoke: 'The state machine invokes its step functions and their versions (function ARN and ARN:*), no other function.',
  orderFiles: 'Order files are objects under orders/<order id>/; the grant names that prefix of the one bucket.',
  executions:
    "DescribeExecution and StopExecution take an execution's ARN, and the sweep (or a review, a cancel) reads or stops any " +
    "order's or event's execution: the grant names the executions of this stack's state machines, no other.",
  secretRotation:
    'The link-signing key is rotated by hand (docs/deploy.md: a new value put into the secret), at least 7 days apart: the ' +
    'functions verify links with AWSCURRENT and AWSPREVIOUS and read the secret again when a link verifies with neither, ' +
    'so every link of the last 7 days keeps working; a schedule could rotate twice within a link lifetime.',
} as const;

/** How cdk-nag writes a stack's region or account in a finding: the value when the stage pins it, else the pseudo parameter. */
const pinned = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);

/** How cdk-nag names a resource in a finding: `<LogicalId.Arn>`. */
const arnOf = (construct: IConstruct) => `<${Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;

export interface Findings {
  functions: Map<string, LambdaFunction>;
  /** Each state machine with the functions its Task states invoke. */
  machines: { machine: StateMachine; invokes: LambdaFunction[] }[];
  routes: IConstruct;
  secret: Secret;
  bucket: Bucket;
  /** The functions granted actions on order files. */
  fileUsers: LambdaFunction[];
  /** The functions that read where executions stand or stop them, with the names of the state machines whose executions they touch. */
  executionReaders: { fn: LambdaFunction; machines: string[] }[];
}

export function acknowledgeFindings(f: Findings): void {
  acknowledge(f.routes, 'APIG4', REASONS.routes);
  acknowledge(f.secret, 'SMG4', REASONS.secretRotation);
  for (const fn of f.functions.values()) acknowledge(fn.role!, 'IAM5[Resource::*]', REASONS.xray);
  for (const fn of f.fileUsers) acknowledge(fn.role!, `IAM5[Resource::${arnOf(f.bucket)}/orders/*]`, REASONS.orderFiles);
  const stack = Stack.of(f.routes);
  const [region, account] = [pinned(stack.region, 'Region'), pinned(stack.account, 'AccountId')];
  for (const { fn, machines } of f.executionReaders) {
    for (const name of machines) {
      acknowledge(fn.role!, `IAM5[Resource::arn:<AWS::Partition>:states:${region}:${account}:execution:${name}:*]`, REASONS.executions);
    }
  }
  for (const { machine, invokes } of f.machines) {
    acknowledge(machine, 'IAM5[Resource::*]', REASONS.machineLogs);
    for (const fn of invokes) acknowledge(machine, `IAM5[Resource::${arnOf(fn)}:*]`, REASONS.machineInvoke);
  }
}
