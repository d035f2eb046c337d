/**
 * The single table, the files bucket and the link-signing secret. Keys and TTL come from the one key builder, as on
 * one machine. In a stage that retains (prod) they outlive the stack and the table cannot be deleted: they hold
 * customers' balances and videos. A dev stage deletes them with the stack, the buckets emptied first.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../functions/adapters/keys.ts';
import { ASSET_FILES_PREFIX, ORDER_FILES_PREFIX } from '../functions/adapters/files.ts';
import { ASSET_MARKER_DAYS, ASSET_RETENTION_DAYS } from '../functions/core/assets.ts';
import { FILE_RETENTION_DAYS } from '../functions/core/orders.ts';
import { logGroup, type LogSettings, removalPolicyOf } from './logs.ts';

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
      // Never in the template: a protected table stops the rollback of a failed first create (protectTable below).
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
        // The keys' uploaded pictures, as their records' TTL (an order keeps its own copy under orders/).
        { prefix: ASSET_FILES_PREFIX, expiration: Duration.days(ASSET_RETENTION_DAYS) },
        // A deleted asset's empty marker, which refuses its upload URL (If-None-Match: *) for longer than it works.
        { prefix: ASSET_FILES_PREFIX, objectSizeLessThan: 1, expiration: Duration.days(ASSET_MARKER_DAYS) },
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

  /**
   * A retained table's deletion protection, switched on by the last resource the stack creates. CloudFormation cannot
   * delete a protected table, so a table created protected would stay behind (and stop the rollback) when a first
   * create fails after it; protected only once everything else exists, a failed create deletes it (RetainExceptOnCreate)
   * and a finished one keeps it protected. The resource does nothing when deleted: the table stays protected.
   */
  protectTable(logs: LogSettings): AwsCustomResource | undefined {
    if (logs.removal !== 'retain') return undefined;
    const stack = Stack.of(this);
    const call = {
      service: 'DynamoDB',
      action: 'UpdateTable',
      parameters: { TableName: this.table.tableName, DeletionProtectionEnabled: true },
      physicalResourceId: PhysicalResourceId.of(`${stack.stackName}-table-deletion-protection`),
    };
    // Its own role, as every function of the stack has: its log group and the one call, no managed policy.
    const protectionLogs = logGroup(stack, 'TableDeletionProtectionLogs', logs);
    const role = new Role(stack, 'TableDeletionProtectionRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    protectionLogs.grantWrite(role);
    const protect = new AwsCustomResource(stack, 'TableDeletionProtection', {
      onCreate: call,
      onUpdate: call,
      policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: ['dynamodb:UpdateTable'], resources: [this.table.tableArn] })]),
      role,
      installLatestAwsSdk: false,
      logGroup: protectionLogs,
    });
    // Created last: after every other resource of the stack, so that nothing can fail after it in a create.
    for (const child of stack.node.children) if (child !== protect) protect.node.addDependency(child);
    return protect;
  }
}
