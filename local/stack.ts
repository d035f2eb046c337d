/**
 * The whole service on one machine: DynamoDB Local, the S3 store, the Step Functions endpoint and the gateway, wired
 * by the same environment variables the Lambda functions read on AWS. Used by `npm start` and by the tests.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { STATE_MACHINES, STEPS, substitute, type MachineName } from '../functions/steps/table.ts';
import { EXECUTION_LISTENERS, INVOKED, JOBS } from '../functions/jobs/table.ts';
import { ownerOnly } from './data-dir.ts';
import { ensureTable, startDynamoDbLocal } from './dynamodb.ts';
import { type DynamoFaults, startDynamoFaults } from './dynamodb-faults.ts';
import { migrateLedgers } from './ledger-migration.ts';
import { ORIGIN_VERIFY } from '../functions/edge/table.ts';
import { type Authorizer, LocalGateway, lambdaContext } from './gateway.ts';
import { invoke, reservedConcurrency } from './invocations.ts';
import { LOCAL_CREDENTIALS, nameCallers, startS3, type BucketStatement } from './s3.ts';
import { LocalStepFunctions, type LocalMachine, type StatusChangeEvent, type TaskHandler } from './stepfunctions.ts';
import { type InvokedHandler, LocalLambda } from './lambda.ts';

export const ROOT = resolve(import.meta.dirname, '..');
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';

/** At most `n` calls at once; the rest wait their turn. */
function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

export interface LocalStackOptions {
  /** 0 picks a free port. */
  port: number;
  /** Where data persists; undefined keeps DynamoDB in memory and S3 in a temporary folder (tests). */
  dataDir?: string;
  s3Dir: string;
  /**
   * Each function's IAM statements on the bucket (lib/access.ts' BUCKET_GRANTS, those CDK deploys): the S3 store
   * answers a function's requests as S3 would answer its role. Passed in: local/ may not import lib/.
   */
  bucketGrants: Readonly<Record<string, readonly BucketStatement[]>>;
  /** Extra settings (limits, maintenance, ...) as environment variables. */
  env?: Record<string, string>;
  /** The host name in public links (download links, the printed base URL). */
  publicHost?: string;
  /** DynamoDB Local's port (a free one when not given): a fixed one lets tools reach it across restarts. */
  dynamoPort?: number;
  /** A stack that lives as long as one test file: DynamoDB Local's Java gets the quick compiler only. */
  shortLived?: boolean;
  /**
   * Run the scheduled jobs: the recovery sweep once at start (it gives the orders and events a stop left behind new
   * executions) and then on its timer. The service does; a tool that only needs the stores, such as the operator
   * CLI, does not: its process would start work it cannot finish.
   */
  jobs?: boolean;
  /** The HMAC key of download links; a random one when not given (links then die with the process). */
  linkSigningKey?: string;
  /**
   * Serve as a stage with the edge does behind CloudFront: every route requires this value in the origin-verify header
   * (functions/edge). There is no CloudFront or AWS WAF here; by default the stack is a stage without the edge.
   */
  originVerify?: string;
  /**
   * The file each function's handler is imported from: by default its TypeScript source; the infrastructure tests
   * pass the Lambda bundles that `cdk synth` built, to run those very files.
   */
  moduleOf?: (kind: 'http' | 'step' | 'job', name: string) => string;
  /**
   * Put the stand-in for DynamoDB's own failures (throttling, an outage: local/dynamodb-faults.ts) between the service
   * and DynamoDB Local, for the tests of what those failures do.
   */
  dynamoFaults?: boolean;
}

const FOLDERS = { http: 'http', step: 'steps', job: 'jobs' } as const;
const sourceOf = (kind: 'http' | 'step' | 'job', name: string) => join(ROOT, 'functions', FOLDERS[kind], `${name}.ts`);

export interface LocalStack {
  baseUrl: string;
  port: number;
  env: Record<string, string>;
  sfn: LocalStepFunctions;
  /** With `dynamoFaults`: DynamoDB's throttling and outage, on demand. */
  dynamo?: DynamoFaults;
  stop(): Promise<void>;
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const moduleOf = opts.moduleOf ?? sourceOf;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    // Before the stores start, so that the files they write are owner-only too.
    if (opts.dataDir) ownerOnly(opts.dataDir);
    const dynamo = await startDynamoDbLocal({
      ...(opts.dataDir ? { dataDir: join(opts.dataDir, 'dynamodb') } : {}),
      ...(opts.dynamoPort ? { port: opts.dynamoPort } : {}),
      shortLived: opts.shortLived ?? false,
    });
    stops.push(dynamo.stop);
    const faults = opts.dynamoFaults ? await startDynamoFaults(dynamo.endpoint) : undefined;
    if (faults) stops.push(faults.stop);
    const bucket = 'video-service-files';
    const s3 = await startS3({ directory: opts.s3Dir, bucket, grants: (fn) => opts.bucketGrants[fn] });
    stops.push(s3.stop);

    const machineArn = (name: MachineName) => `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${STATE_MACHINES[name].name}`;
    const env: Record<string, string> = {
      AWS_REGION: REGION,
      // The one key pair the local S3 store knows (it checks presigned URLs' signatures with it); DynamoDB Local
      // (-sharedDb) takes any.
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      TABLE_NAME: 'video-service',
      BUCKET_NAME: bucket,
      ORDER_STATE_MACHINE_ARN: machineArn('order'),
      DELIVERY_STATE_MACHINE_ARN: machineArn('delivery'),
      DYNAMODB_ENDPOINT: faults?.endpoint ?? dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      // CloudWatch's embedded metric format is for AWS; here it would only fill the terminal.
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
      // The stage the metrics carry, as the stack sets it on AWS.
      STAGE: process.env.STAGE ?? 'local',
      // One machine renders two videos at a time (the render queue's slots); eta_seconds counts with the same number.
      RENDER_SLOTS: process.env.RENDER_SLOTS ?? '2',
      // And one test-mode clip in the test lane's own slot.
      TEST_RENDER_SLOTS: process.env.TEST_RENDER_SLOTS ?? '1',
      ORDER_SECONDS_ESTIMATE: '20',
      ...opts.env,
    };

    // Modules read settings (the log level, for one) when first imported: set them before importing any handler.
    Object.assign(process.env, env);
    // As a Lambda's reserved concurrency would on AWS (both lanes' slots), a limit keeps renders from piling up on a
    // small machine.
    const renders = limiter(Number(env.RENDER_SLOTS ?? 2) + Number(env.TEST_RENDER_SLOTS ?? 1));
    const machines: LocalMachine[] = [];
    for (const name of Object.keys(STATE_MACHINES) as MachineName[]) {
      const definition = JSON.parse(
        substitute(readFileSync(join(ROOT, STATE_MACHINES[name].file), 'utf8'), (step) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${step.module}`),
      ) as Record<string, unknown>;
      const tasks: Record<string, TaskHandler> = {};
      const steps = STEPS.filter((s) => s.machine === name);
      for (const step of steps) {
        const mod = (await import(moduleOf('step', step.module))) as { handler: (e: unknown, c: unknown) => Promise<unknown> };
        // The step's time is its Task's TimeoutSeconds: on AWS that ends the step first (its Lambda has 120 or 900 s).
        const states = definition.States as Record<string, { TimeoutSeconds?: number }>;
        // A Lambda runs 15 minutes at most, whatever a .waitForTaskToken Task waits for its token.
        const timeoutMs = Math.min(states[step.state]?.TimeoutSeconds ?? 900, 900) * 1000;
        const run: TaskHandler = (input) => invoke(step.module, () => mod.handler(input, lambdaContext(`step-${step.module}`, undefined, timeoutMs)));
        // A reserved concurrency refuses (Lambda's throttle) where the render slots' limit queues.
        const reserved = step.reservedBy && reservedConcurrency(step.module, Number(env[step.reservedBy] ?? 10));
        tasks[step.state] = step.heavy ? (input) => renders(() => run(input)) : reserved ? (input) => reserved(() => run(input)) : run;
      }
      const waitForToken = new Set(steps.filter((s) => s.waitForTaskToken).map((s) => s.state));
      machines.push({ arn: machineArn(name), definition, tasks, waitForToken });
    }
    const sfn = new LocalStepFunctions(machines, env.LOCAL_SFN_HOLD === '1');
    env.SFN_ENDPOINT = await sfn.listen();
    stops.push(() => sfn.stop());
    // The functions other functions invoke (the asset check), behind Lambda's Invoke API.
    const invoked: Record<string, InvokedHandler> = {};
    for (const fn of INVOKED) {
      invoked[fn.name] = async (event) => {
        const mod = (await import(moduleOf('job', fn.name))) as { handler: (e: unknown, c: unknown) => Promise<unknown> };
        return mod.handler(event, lambdaContext(`job-${fn.name}`));
      };
    }
    const lambda = new LocalLambda(invoked);
    env.LAMBDA_ENDPOINT = await lambda.listen();
    env.CHECK_ASSET_FUNCTION = 'check-asset';
    stops.push(() => lambda.stop());

    // The handlers read their configuration from the environment at first use, as in Lambda.
    Object.assign(process.env, env);
    const ddb = new DynamoDBClient({ endpoint: dynamo.endpoint, region: REGION });
    await ensureTable(ddb, env.TABLE_NAME!);
    // A data folder from before the ledger kept its balances: once, before anything is served.
    if (opts.dataDir) await migrateLedgers(DynamoDBDocumentClient.from(ddb), env.TABLE_NAME!);
    ddb.destroy();

    // Read by the check at its first call, after the environment below is set.
    if (opts.originVerify) env.ORIGIN_VERIFY = opts.originVerify;
    const gateway = new LocalGateway(
      async (name) => {
        const mod = (await import(moduleOf('http', name))) as { handler: never };
        return mod.handler;
      },
      opts.originVerify
        ? async () => ((await import(join(ROOT, 'functions', 'edge', `${ORIGIN_VERIFY.handler}.ts`))) as { handler: Authorizer }).handler
        : undefined,
    );
    const port = await gateway.listen(opts.port);
    stops.push(() => gateway.stop());
    // Handlers read their configuration on first use, which is after this: the port is known by then.
    const baseUrl = `http://${opts.publicHost ?? '127.0.0.1'}:${port}/v1`;
    env.PUBLIC_BASE_URL = baseUrl;
    env.LINK_SIGNING_KEY = opts.linkSigningKey ?? randomBytes(32).toString('base64url');
    Object.assign(process.env, env);

    const { services } = await import('../functions/app/services.ts');
    const { ASSET_FILES_PREFIX } = await import('../functions/adapters/files.ts');
    const { ASSET_MARKER_DAYS, ASSET_RETENTION_DAYS } = await import('../functions/core/assets.ts');
    const { aws } = await import('../functions/adapters/aws.ts');
    nameCallers(await aws().s3());
    const {
      stores: { files },
      config,
    } = services();
    // The local stand-ins of the S3 lifecycle rules: order files, the keys' uploaded assets, deleted assets' markers.
    const expire = () =>
      Promise.all([
        files.expire(new Date(Date.now() - config.retentionDays * 86_400_000)),
        files.expire(new Date(Date.now() - ASSET_RETENTION_DAYS * 86_400_000), ASSET_FILES_PREFIX),
        files.expire(new Date(Date.now() - ASSET_MARKER_DAYS * 86_400_000), ASSET_FILES_PREFIX, 1),
      ]).catch(() => undefined);
    await expire();
    const sweeper = setInterval(() => void expire(), 3_600_000);
    sweeper.unref();
    stops.push(async () => clearInterval(sweeper));
    // The scheduled jobs (the recovery sweep) on a timer, as EventBridge runs them on AWS; SWEEP_SECONDS sets its
    // period. Once at start too: executions live in this process, so a stop loses them, and the sweep's first run
    // gives the orders and events it left behind new ones (their steps pick up from where each stands).
    for (const job of (opts.jobs ?? true) ? JOBS : []) {
      const mod = (await import(moduleOf('job', job.name))) as { handler: (e: unknown, c: unknown) => Promise<unknown> };
      const every = Number(env[`${job.name.toUpperCase()}_SECONDS`] ?? job.everySeconds) * 1000;
      let busy = false;
      const run = async (event: unknown = {}) => {
        if (busy) return;
        busy = true;
        await invoke(job.name, () => mod.handler(event, lambdaContext(`job-${job.name}`)))
          .catch(() => undefined)
          .finally(() => {
            busy = false;
          });
      };
      await run(job.atStart);
      const timer = setInterval(() => void run(), every);
      timer.unref();
      stops.push(async () => clearInterval(timer));
    }
    // The status-change listeners (the recovery), as EventBridge's rule invokes them on AWS: asynchronously, with two
    // retries of a failed invocation a little later (Lambda's asynchronous invocation), then the event is dropped.
    for (const listener of (opts.jobs ?? true) ? EXECUTION_LISTENERS : []) {
      const mod = (await import(moduleOf('job', listener.name))) as { handler: (e: unknown, c: unknown) => Promise<unknown> };
      const statuses: readonly string[] = listener.statuses;
      const arns = new Set(machines.map((m) => m.arn));
      const deliver = async (event: StatusChangeEvent, attempt: number): Promise<void> => {
        try {
          await invoke(listener.name, () => mod.handler(event, lambdaContext(`job-${listener.name}`)));
        } catch {
          if (attempt < 2) setTimeout(() => void deliver(event, attempt + 1), 1000 * (attempt + 1)).unref();
        }
      };
      const off = sfn.onEnded((event) => {
        if (statuses.includes(event.detail.status) && arns.has(event.detail.stateMachineArn)) void deliver(event, 0);
      });
      stops.push(async () => void off());
    }
    return { baseUrl, port, env, sfn, ...(faults ? { dynamo: faults } : {}), stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
