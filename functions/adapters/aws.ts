/**
 * AWS SDK clients, created once per process. Endpoints come from configuration, so one machine only swaps them.
 * DynamoDB, which every function uses, loads with the module; S3, Step Functions and Lambda load on first use, so a function
 * that never touches them (most API routes) never pays their import at cold start.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config.ts';

/** The SDK packages loaded on first use. */
export const sdk = {
  s3: () => import('@aws-sdk/client-s3'),
  presigner: () => import('@aws-sdk/s3-request-presigner'),
  sfn: () => import('@aws-sdk/client-sfn'),
  lambda: () => import('@aws-sdk/client-lambda'),
};

export interface AwsClients {
  ddb: DynamoDBDocumentClient;
  s3(): Promise<S3Client>;
  sfn(): Promise<SFNClient>;
  lambda(): Promise<LambdaClient>;
}

let clients: AwsClients | undefined;

export function aws(): AwsClients {
  if (clients) return clients;
  const { region, endpoints } = config();
  const ddbClient = new DynamoDBClient({ region, ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb } : {}) });
  let s3: Promise<S3Client> | undefined;
  let sfn: Promise<SFNClient> | undefined;
  let lambda: Promise<LambdaClient> | undefined;
  clients = {
    // The marshaller tells a map by its `constructor` property, which a client's own key (metadata `constructor`)
    // overrides: every object is taken as a map instead, whatever that property holds.
    ddb: DynamoDBDocumentClient.from(ddbClient, { marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true } }),
    s3: () =>
      (s3 ??= sdk.s3().then(
        ({ S3Client }) =>
          new S3Client({
            region,
            ...(endpoints.s3 ? { endpoint: endpoints.s3, forcePathStyle: true } : {}),
            // The local S3 store stores stream uploads corrupted when the SDK adds its default checksums.
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
          }),
      )),
    sfn: () => (sfn ??= sdk.sfn().then(({ SFNClient }) => new SFNClient({ region, ...(endpoints.sfn ? { endpoint: endpoints.sfn } : {}) }))),
    lambda: () =>
      (lambda ??= sdk.lambda().then(({ LambdaClient }) => new LambdaClient({ region, ...(endpoints.lambda ? { endpoint: endpoints.lambda } : {}) }))),
  };
  return clients;
}

/** Every client, by service, created now: for the benchmarks and tests that instrument the SDK's middleware. */
export async function allClients(): Promise<Record<'ddb' | 's3' | 'sfn' | 'lambda', { middlewareStack: unknown }>> {
  const c = aws();
  return { ddb: c.ddb, s3: await c.s3(), sfn: await c.sfn(), lambda: await c.lambda() };
}
