/**
 * Every log group of the stack, kept as long as its stage says and deleted with the stack only where the stage is.
 * What a stage keeps survives updates and the stack's deletion, but not a failed create: CloudFormation's
 * RetainExceptOnCreate deletes what the rolled-back operation itself created, so a retried first deploy finds nothing
 * in its way (plain Retain would leave every table, bucket, secret and log group behind).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface LogSettings {
  retentionDays: number;
  removal: 'destroy' | 'retain';
  /** The stage's log level: what Lambda passes on of the functions' own logs (lib/functions.ts). */
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
}

export const removalPolicyOf = (removal: LogSettings['removal']) => (removal === 'retain' ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY);

/** A log group; named only where its service wants a name (Step Functions: lib/workflow.ts), else CloudFormation names it. */
export const logGroup = (scope: Construct, id: string, logs: LogSettings, logGroupName?: string) =>
  new LogGroup(scope, id, {
    retention: logs.retentionDays as RetentionDays,
    removalPolicy: removalPolicyOf(logs.removal),
    ...(logGroupName ? { logGroupName } : {}),
  });
