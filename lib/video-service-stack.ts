/**
 * The whole service as one stack: data, the step functions and their state machines, the API's functions and routes,
 * and what operators watch. Each function gets the settings and the IAM grants its entry in lib/access.ts names.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { ArnPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { DEFAULT_ROUTE, DEPLOYED_ROUTES } from '../functions/http/routes.ts';
import { STEPS } from '../functions/steps/table.ts';
import { BOT_FUNCTIONS } from '../functions/bot/table.ts';
import { EXECUTION_LISTENERS, EXECUTION_STATUS_CHANGE, INVOKED, JOBS } from '../functions/jobs/table.ts';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { bucketStatements, FUNCTION_ACCESS, orderMachineStatements } from './access.ts';
import { ORIGIN_VERIFY } from '../functions/edge/table.ts';
import { Api } from './api.ts';
import { FrontDoor } from './edge.ts';
import { Data } from './data.ts';
import { serviceFunction, type FunctionKind } from './functions.ts';
import { METRICS_NAMESPACE, Observability } from './observability.ts';
import { ProviderSettings } from './providers.ts';
import { acknowledgeFindings } from './nag.ts';
import { recordVersion } from './tags.ts';
import type { Settings } from './settings.ts';
import { executionsArnOf, machineArnOf, machineName, stateMachine } from './workflow.ts';
import { RESERVING, reservationOf } from './preflight.ts';

export class VideoServiceStack extends Stack {
  /** Every function of the service, by its handler or step module name. */
  readonly functions = new Map<string, LambdaFunction>();

  /** @param webAclArn the edge's web ACL (EdgeAclStack), which a stage with the edge on must be given. */
  constructor(scope: Construct, id: string, props: StackProps & { settings: Settings; webAclArn?: string }) {
    super(scope, id, props);
    const { settings } = props;
    if (settings.edge.enabled !== Boolean(props.webAclArn)) throw new Error('A stage with the edge on takes the web ACL of its EdgeAclStack, and only then');
    const logs = { retentionDays: settings.logRetentionDays, removal: settings.removal, level: settings.logLevel };
    const data = new Data(this, 'Data', { removal: settings.removal });
    const api = new Api(this, 'Api', { logs, throttle: settings.throttle });
    // Every function: its logs' service and level, and the stage its metrics carry (functions/adapters/metrics.ts).
    const logging = { POWERTOOLS_SERVICE_NAME: 'video-service', POWERTOOLS_LOG_LEVEL: settings.logLevel, STAGE: settings.stage };
    const front = new FrontDoor(this, 'Edge', {
      api: api.httpApi,
      stage: settings.stage,
      ...(props.webAclArn ? { webAclArn: props.webAclArn } : {}),
      ...(settings.domain ? { domain: settings.domain } : {}),
      logs,
      environment: logging,
    });
    const machines: Partial<Record<'order' | 'delivery', StateMachine>> = {};

    const common: Record<string, string> = {
      TABLE_NAME: data.table.tableName,
      BUCKET_NAME: data.bucket.bucketName,
      PUBLIC_BASE_URL: front.baseUrl,
      ...(settings.serviceAddress ? { SERVICE_ADDRESS: settings.serviceAddress } : {}),
      ...logging,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      LIMIT_ACTIVE_TASKS: String(settings.limitActiveTasks),
      LIMIT_POSTS_PER_MINUTE: String(settings.limitPostsPerMinute),
      LIMIT_RESENDS_PER_HOUR: String(settings.limitResendsPerHour),
      LIMIT_GETS_PER_MINUTE: String(settings.limitGetsPerMinute),
      LIMIT_REVIEWS_PENDING: String(settings.limitReviewsPending),
      PRICES: JSON.stringify(settings.prices),
      REVIEW_DEADLINE_SECONDS: String(settings.reviewDeadlineSeconds),
      WEBHOOK_RETRY_BASE_MS: String(settings.webhookRetryBaseMs),
      RENDER_SLOTS: String(settings.renderSlots),
      TEST_RENDER_SLOTS: String(settings.testRenderSlots),
    };
    const providers = new ProviderSettings(this, settings.providers);
    // By name, not by reference: the order machine's own steps complete its tokens (the render queue's wake-up).
    const orderMachineArn = machineArnOf(this, 'order');
    const make = (kind: FunctionKind, name: string): LambdaFunction => {
      const existing = this.functions.get(name);
      if (existing) return existing;
      const access = FUNCTION_ACCESS[name];
      if (!access) throw new Error(`lib/access.ts has no entry for the function ${name}`);
      const env = { ...common, ...providers.environment(access) };
      if (access.orderMachine?.includes('StartExecution')) env.ORDER_STATE_MACHINE_ARN = orderMachineArn;
      if (access.startDelivery) env.DELIVERY_STATE_MACHINE_ARN = machines.delivery!.stateMachineArn;
      if (access.linkKey) env.LINK_SIGNING_KEY_SECRET_ARN = data.linkSigningKey.secretArn;
      if (access.checkAssets) env.CHECK_ASSET_FUNCTION = checkAsset!.functionName;
      // The render function runs as many at once as both lanes have slots, and the delivery function
      // deliveryConcurrency, so neither a burst nor slow receivers can take the account's concurrency from the API.
      const reserving = RESERVING.find((r) => r.fn === name);
      const fn = serviceFunction(this, kind, name, env, logs, reserving ? { reservedConcurrentExecutions: reservationOf(reserving, settings) } : {});
      if (access.table?.length) {
        fn.addToRolePolicy(new PolicyStatement({ actions: access.table.map((a) => `dynamodb:${a}`), resources: [data.table.tableArn] }));
      }
      // The statements the local S3 store evaluates too. S3 answers a read of a missing key 404, not 403, only to a caller
      // allowed s3:ListBucket in that read's context, which has no s3:prefix: that grant has no condition.
      for (const s of bucketStatements(access)) {
        const resource = s.Resource ? data.bucket.arnForObjects(s.Resource) : data.bucket.bucketArn;
        fn.addToRolePolicy(new PolicyStatement({ actions: s.Action, resources: [resource], ...(s.Condition ? { conditions: s.Condition } : {}) }));
      }
      // Explicit statements rather than CDK's grantTaskResponse and grantRead, which add actions no code performs
      // (SendTaskFailure, SendTaskHeartbeat, DescribeSecret) and name the state machine for the task-token actions.
      for (const { actions, resources } of orderMachineStatements(access, orderMachineArn)) {
        fn.addToRolePolicy(new PolicyStatement({ actions, resources }));
      }
      if (access.startDelivery) machines.delivery!.grantStartExecution(fn);
      if (access.describeExecutions?.length) {
        fn.addToRolePolicy(
          new PolicyStatement({ actions: ['states:DescribeExecution'], resources: access.describeExecutions.map((m) => executionsArnOf(this, m)) }),
        );
      }
      if (access.stopOrders) {
        fn.addToRolePolicy(new PolicyStatement({ actions: ['states:StopExecution'], resources: [executionsArnOf(this, 'order')] }));
      }
      if (access.linkKey) fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [data.linkSigningKey.secretArn] }));
      const providerKeys = providers.grant(access);
      if (providerKeys) fn.addToRolePolicy(providerKeys);
      // The function itself, not CDK's grantInvoke, which adds its versions (`<arn>:*`): none is ever published.
      if (access.checkAssets) fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [checkAsset!.functionArn] }));
      this.functions.set(name, fn);
      return fn;
    };

    // Built in dependency order: the functions others invoke (the asset check), delivery, then the order steps that start deliveries, then the API that starts orders.
    let checkAsset: LambdaFunction | undefined;
    for (const fn of INVOKED) checkAsset = make('job', fn.name);
    machines.delivery = stateMachine(this, 'delivery', (module) => make('step', module), logs);
    machines.order = stateMachine(this, 'order', (module) => make('step', module), logs);
    api.route((handler) => make('http', handler), front.authorizer);
    if (front.verifier) this.functions.set(ORIGIN_VERIFY.handler, front.verifier);
    // The bot's entries: no route; the bot's role (context botPrincipalArn) may invoke them.
    for (const name of BOT_FUNCTIONS) {
      const fn = make('bot', name);
      if (settings.botPrincipalArn) fn.grantInvoke(new ArnPrincipal(settings.botPrincipalArn));
      new CfnOutput(this, `Bot${name.replace(/(^|-)(\w)/g, (_, _d, c: string) => c.toUpperCase())}FunctionName`, { value: fn.functionName });
    }
    // Scheduled jobs: the recovery sweep, every minute.
    for (const job of JOBS) {
      new Rule(this, `${job.name}-schedule`, {
        schedule: Schedule.rate(Duration.seconds(job.everySeconds)),
        targets: [new LambdaTarget(make('job', job.name))],
      });
    }
    // The recovery of an ended execution: Step Functions' status-change events of both machines, for the statuses the
    // listener takes. A failed invocation is retried twice (asynchronous invocation), then the audit sweep is the net.
    for (const listener of EXECUTION_LISTENERS) {
      new Rule(this, `${listener.name}-on-execution-end`, {
        eventPattern: {
          source: ['aws.states'],
          detailType: [EXECUTION_STATUS_CHANGE],
          detail: { status: [...listener.statuses], stateMachineArn: [machines.order.stateMachineArn, machines.delivery.stateMachineArn] },
        },
        targets: [new LambdaTarget(make('job', listener.name), { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
      });
    }
    const missing = [
      ...DEPLOYED_ROUTES.map((r) => r.handler),
      DEFAULT_ROUTE.handler,
      ...STEPS.map((s) => s.module),
      ...BOT_FUNCTIONS,
      ...JOBS.map((j) => j.name),
      ...INVOKED.map((f) => f.name),
      ...EXECUTION_LISTENERS.map((l) => l.name),
    ].filter((n) => !this.functions.has(n));
    if (missing.length) throw new Error(`No function was built for ${missing.join(', ')}`);

    new Observability(this, 'Observability', {
      stage: settings.stage,
      api: api.httpApi,
      machines: { order: machines.order, delivery: machines.delivery },
      functions: this.functions,
      table: data.table,
      queueWaitAlarmSeconds: settings.queueWaitAlarmSeconds,
      alarmEmails: settings.alarmEmails,
    });
    api.output(this, front.baseUrl);
    // What the operator CLI needs to work on the deployed stores (docs/deploy.md).
    new CfnOutput(this, 'TableName', { value: data.table.tableName });
    new CfnOutput(this, 'BucketName', { value: data.bucket.bucketName });
    new CfnOutput(this, 'OrderStateMachineArn', { value: machines.order.stateMachineArn });
    new CfnOutput(this, 'LinkSigningKeySecretArn', { value: data.linkSigningKey.secretArn });
    // The deploy's concurrency check reads what these functions reserve today (bin/preflight.ts).
    for (const r of RESERVING) new CfnOutput(this, r.output, { value: this.functions.get(r.fn)!.functionName });
    recordVersion(this, settings.version);
    // The stack's last resources: the files bucket's access logging, then a retained table's protection.
    data.finishCreate(logs);
    const invokedBy = (machine: 'order' | 'delivery') => STEPS.filter((s) => s.machine === machine).map((s) => this.functions.get(s.module)!);
    acknowledgeFindings({
      functions: this.functions,
      machines: [
        { machine: machines.order, invokes: invokedBy('order') },
        { machine: machines.delivery, invokes: invokedBy('delivery') },
      ],
      routes: api,
      routesAuthorized: Boolean(front.authorizer),
      secret: data.linkSigningKey,
      ...(front.originSecret && front.distribution
        ? { edge: { secret: front.originSecret, distribution: front.distribution, defaultCertificate: !settings.domain } }
        : {}),
      bucket: data.bucket,
      filesLogging: { bucket: data.bucket, destination: data.accessLogs },
      taskTokenUsers: [...this.functions]
        .filter(([name]) => orderMachineStatements(FUNCTION_ACCESS[name] ?? {}, '').some((s) => s.resources[0] === '*'))
        .map(([, fn]) => fn),
      fileUsers: [...this.functions].filter(([name]) => FUNCTION_ACCESS[name]?.bucket?.length).map(([, fn]) => fn),
      assetUsers: [...this.functions].filter(([name]) => FUNCTION_ACCESS[name]?.assets?.length).map(([, fn]) => fn),
      executionReaders: [...this.functions]
        .filter(([name]) => FUNCTION_ACCESS[name]?.describeExecutions?.length || FUNCTION_ACCESS[name]?.stopOrders)
        .map(([name, fn]) => {
          const a = FUNCTION_ACCESS[name]!;
          const machines = new Set([...(a.describeExecutions ?? []), ...(a.stopOrders ? (['order'] as const) : [])]);
          return { fn, machines: [...machines].map((m) => machineName(this, m)) };
        }),
    });
  }
}
