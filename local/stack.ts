/**
 * The whole service on one machine: DynamoDB Local, the S3 store, the Step Functions endpoint and the gateway, wired
 * by the same environment variables the Lambda functions read on AWS. Used by `npm start` and by the tests.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ORDER_STATE_MACHINE, STEPS } from '../functions/steps/table.ts';
import { ensureTable, startDynamoDbLocal } from './dynamodb.ts';
import { LocalGateway } from './gateway.ts';
import { startS3 } from './s3.ts';
import { LocalStepFunctions, type TaskHandler } from './stepfunctions.ts';

export const ROOT = resolve(import.meta.dirname, '..');
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';

export interface LocalStackOptions {
  /** 0 picks a free port. */
  port: number;
  /** Where data persists; undefined keeps DynamoDB in memory and S3 in a temporary folder (tests). */
  dataDir?: string;
  s3Dir: string;
  /** Extra settings (limits, maintenance, ...) as environment variables. */
  env?: Record<string, string>;
}

export interface LocalStack {
  baseUrl: string;
  port: number;
  env: Record<string, string>;
  sfn: LocalStepFunctions;
  stop(): Promise<void>;
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const dynamo = await startDynamoDbLocal(opts.dataDir ? { dataDir: join(opts.dataDir, 'dynamodb') } : {});
    stops.push(dynamo.stop);
    const bucket = 'video-service-files';
    const s3 = await startS3({ directory: opts.s3Dir, bucket });
    stops.push(s3.stop);

    const stateMachineArn = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${ORDER_STATE_MACHINE.name}`;
    const env: Record<string, string> = {
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: 'video-service',
      BUCKET_NAME: bucket,
      ORDER_STATE_MACHINE_ARN: stateMachineArn,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      ...opts.env,
    };

    const definition = JSON.parse(readFileSync(join(ROOT, ORDER_STATE_MACHINE.file), 'utf8')) as Record<string, unknown>;
    const tasks: Record<string, TaskHandler> = {};
    for (const step of STEPS) {
      const mod = (await import(join(ROOT, 'functions', 'steps', `${step.module}.ts`))) as { handler: TaskHandler };
      tasks[step.placeholder] = mod.handler;
    }
    const sfn = new LocalStepFunctions([{ arn: stateMachineArn, definition, tasks }]);
    env.SFN_ENDPOINT = await sfn.listen();
    stops.push(() => sfn.stop());

    // The handlers read their configuration from the environment at first use, as in Lambda.
    Object.assign(process.env, env);
    const ddb = new DynamoDBClient({ endpoint: dynamo.endpoint, region: REGION });
    await ensureTable(ddb, env.TABLE_NAME!);
    ddb.destroy();

    const gateway = new LocalGateway(async (name) => {
      const mod = (await import(join(ROOT, 'functions', 'http', `${name}.ts`))) as { handler: never };
      return mod.handler;
    });
    const port = await gateway.listen(opts.port);
    stops.push(() => gateway.stop());
    return { baseUrl: `http://127.0.0.1:${port}/v1`, port, env, sfn, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
