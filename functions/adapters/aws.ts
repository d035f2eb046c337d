/** AWS SDK clients, created once per process. Endpoints come from configuration, so one machine only swaps them. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config.ts';

let clients: { ddb: DynamoDBDocumentClient; s3: S3Client; sfn: SFNClient } | undefined;

export function aws() {
  if (clients) return clients;
  const { region, endpoints } = config();
  const ddbClient = new DynamoDBClient({ region, ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb } : {}) });
  clients = {
    ddb: DynamoDBDocumentClient.from(ddbClient, { marshallOptions: { removeUndefinedValues: true } }),
    s3: new S3Client({
      region,
      ...(endpoints.s3 ? { endpoint: endpoints.s3, forcePathStyle: true } : {}),
      // The local S3 store stores stream uploads corrupted when the SDK adds its default checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    sfn: new SFNClient({ region, ...(endpoints.sfn ? { endpoint: endpoints.sfn } : {}) }),
  };
  return clients;
}
