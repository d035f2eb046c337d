/**
 * The single table, the files bucket and the link-signing secret. Keys and TTL come from the one key builder, as on
 * one machine. In a stage that retains (prod) they outlive the stack and the table cannot be deleted: they hold
 * customers' balances and videos. A dev stage deletes them with the stack, the buckets emptied first.
 */
import { Duration } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../functions/adapters/keys.ts';
import { ORDER_FILES_PREFIX } from '../functions/adapters/files.ts';
import { FILE_RETENTION_DAYS } from '../functions/core/orders.ts';
import { type LogSettings, removalPolicyOf } from './logs.ts';

export class Data extends Construct {
  readonly table: TableV2;
  readonly bucket: Bucket;
  readonly linkSigningKey: Secret;

  constructor(scope: Construct, id: string, props: { removal: LogSettings['removal'] }) {
    super(scope, id);
    const k = TABLE_KEYS;
    const removalPolicy = removalPolicyOf(props.removal);
    const retain = props.removal === 'retain';
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: k.pk, type: AttributeType.STRING },
      sortKey: { name: k.sk, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      // Idempotency records, POST windows and delivery attempts expire by themselves.
      timeToLiveAttribute: k.ttl,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: retain,
      globalSecondaryIndexes: [
        {
          indexName: k.gsi1,
          partitionKey: { name: k.gsi1pk, type: AttributeType.STRING },
          sortKey: { name: k.gsi1sk, type: AttributeType.STRING },
          // Its one reader wants the ids of a user's orders, which the keys hold: nothing else is copied into it.
          projectionType: ProjectionType.KEYS_ONLY,
        },
      ],
      removalPolicy,
    });
    const accessLogs = new Bucket(this, 'FilesAccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: !retain,
    });
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'files/',
      // Order files are deleted this many days after they were written (spec: Limits).
      lifecycleRules: [
        { prefix: ORDER_FILES_PREFIX, expiration: Duration.days(FILE_RETENTION_DAYS) },
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy,
      autoDeleteObjects: !retain,
    });
    // The HMAC key of the 7-day download links: generated here, never in code or configuration.
    this.linkSigningKey = new Secret(this, 'LinkSigningKey', {
      description: 'HMAC key of the video service download links',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
  }
}
