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
  xrayAndTaskTokens:
    'X-Ray PutTraceSegments and PutTelemetryRecords accept no resource narrower than *, and neither does states:SendTaskSuccess: ' +
    "AWS's Service Authorization Reference lists no resource type for the task-token actions (the token names the task), so a " +
    'statement naming the state machine would not be the documented grant.',
  machineLogs: 'Step Functions log delivery (logs:CreateLogDelivery and the rest) and X-Ray accept no resource narrower than *.',
  machineInvoke: 'The state machine invokes its step functions and their versions (function ARN and ARN:*), no other function.',
  orderFiles: 'Order files are objects under orders/<order id>/; the grant names that prefix of the one bucket.',
  assetFiles: "The keys' uploaded pictures are objects under assets/<user id>/<asset id>; the grant names that prefix of the one bucket.",
  executions:
    "DescribeExecution and StopExecution take an execution's ARN, and the sweep (or a review, a cancel) reads or stops any " +
    "order's or event's execution: the grant names the executions of this stack's state machines, no other.",
  secretRotation:
    'The link-signing key is rotated by hand (docs/deploy.md: a new value put into the secret), at least 7 days apart: the ' +
    'functions verify links with AWSCURRENT and AWSPREVIOUS and read the secret again when a link verifies with neither, ' +
    'so every link of the last 7 days keeps working; a schedule could rotate twice within a link lifetime.',
  originRotation:
    "The origin-verify value is rotated by hand (docs/deploy.md): a new value put into the secret, then CloudFront's " +
    'origin header set to it; the authorizer accepts AWSCURRENT and AWSPREVIOUS meanwhile. A schedule would change the ' +
    'secret without changing the header CloudFront sends.',
  edgeLogs:
    "Every request that reaches the API is in the API's access log (one JSON line each), and AWS WAF logs every request " +
    'it blocks (log group aws-waf-logs-video-service-<stage>-<stack id>, us-east-1): CloudFront standard logs would be a third copy, ' +
    'in a bucket that needs ACLs.',
  filesLogging:
    "The files bucket's server access logging is on, into the access-log bucket (prefix files/), switched on by the stack's " +
    'last resource (FilesAccessLogging, PutBucketLogging) rather than by the bucket itself: logs S3 delivers during a create ' +
    'would leave the access-log bucket non-empty, which stops the rollback of a failed create (lib/data.ts, finishCreate).',
  accessLogsLogging:
    "The access-log bucket is the files bucket's server access log destination (FilesAccessLogging): logging it too would " +
    'need a third bucket, and S3 advises against a bucket logging into itself (every delivery would be logged, without end).',
  edgeGeo: 'The API serves its customers wherever they are: API keys decide who may call, not the country of the address.',
  edgeDefaultCertificate:
    "Without the stage's custom domain the distribution answers with CloudFront's default *.cloudfront.net certificate, for " +
    'which CloudFront keeps TLSv1 as the minimum whatever is set; with a custom domain the minimum is TLSv1.2_2021.',
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
  /** Whether every route has an authorizer (the edge's origin check): API keys are still checked by the functions. */
  routesAuthorized: boolean;
  secret: Secret;
  /** The edge, when the stage has it: the origin-verify secret and the distribution (on CloudFront's certificate or not). */
  edge?: { secret: Secret; distribution: IConstruct; defaultCertificate: boolean };
  bucket: Bucket;
  /** The files bucket, whose access logging the stack's last resource switches on (lib/data.ts, finishCreate). */
  filesLogging: { bucket: Bucket; destination: Bucket };
  /** The functions that complete task tokens (states:SendTaskSuccess, granted on * as AWS documents it). */
  taskTokenUsers: LambdaFunction[];
  /** The functions granted actions on order files. */
  fileUsers: LambdaFunction[];
  /** The functions with grants on the keys' assets (assets/*). */
  assetUsers: LambdaFunction[];
  /** The functions that read where executions stand or stop them, with the names of the state machines whose executions they touch. */
  executionReaders: { fn: LambdaFunction; machines: string[] }[];
}

export function acknowledgeFindings(f: Findings): void {
  if (!f.routesAuthorized) acknowledge(f.routes, 'APIG4', REASONS.routes);
  acknowledge(f.secret, 'SMG4', REASONS.secretRotation);
  acknowledge(f.filesLogging.bucket, 'S1', REASONS.filesLogging);
  acknowledge(f.filesLogging.destination, 'S1', REASONS.accessLogsLogging);
  if (f.edge) {
    acknowledge(f.edge.secret, 'SMG4', REASONS.originRotation);
    acknowledge(f.edge.distribution, 'CFR3', REASONS.edgeLogs);
    acknowledge(f.edge.distribution, 'CFR1', REASONS.edgeGeo);
    if (f.edge.defaultCertificate) acknowledge(f.edge.distribution, 'CFR4', REASONS.edgeDefaultCertificate);
  }
  const tokenUsers = new Set(f.taskTokenUsers);
  for (const fn of f.functions.values()) acknowledge(fn.role!, 'IAM5[Resource::*]', tokenUsers.has(fn) ? REASONS.xrayAndTaskTokens : REASONS.xray);
  for (const fn of f.fileUsers) acknowledge(fn.role!, `IAM5[Resource::${arnOf(f.bucket)}/orders/*]`, REASONS.orderFiles);
  for (const fn of f.assetUsers) acknowledge(fn.role!, `IAM5[Resource::${arnOf(f.bucket)}/assets/*]`, REASONS.assetFiles);
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
