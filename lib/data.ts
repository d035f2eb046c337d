/** The single table and the files bucket. Keys and TTL come from the one key builder, as on one machine. */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../functions/adapters/keys.ts';

export class Data extends Construct {
  readonly table: TableV2;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const k = TABLE_KEYS;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: k.pk, type: AttributeType.STRING },
      sortKey: { name: k.sk, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute: k.ttl,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      globalSecondaryIndexes: [
        {
          indexName: k.gsi1,
          partitionKey: { name: k.gsi1pk, type: AttributeType.STRING },
          sortKey: { name: k.gsi1sk, type: AttributeType.STRING },
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Order files live 30 days (spec: Limits).
      lifecycleRules: [{ prefix: 'orders/', expiration: Duration.days(30) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
