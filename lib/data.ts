/**
 * The single table, the files bucket and the link-signing secret. Keys and TTL come from the one key builder, as on
 * one machine. In a stage that retains (prod) they outlive the stack and the table cannot be deleted: they hold
 * customers' balances and videos. A dev stage deletes them with the stack, the buckets emptied first.
 *
 * A failed first create must leave nothing (docs/deploy.md, When a deploy fails): CloudFormation deletes what it
 * created (RetainExceptOnCreate), but cannot delete a protected table or a bucket that holds objects. So the table is
 * protected, and the files bucket's access logging switched on, only by the stack's last resources (finishCreate):
 * until then S3 has written no log into the access-log bucket, and a rollback finds it empty.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
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

/** Where the files bucket's access logs go in the access-log bucket. */
const ACCESS_LOG_PREFIX = 'files/';

export class Data extends Construct {
  readonly table: TableV2;
  readonly bucket: Bucket;
  /** The files bucket's server access logs: written only once the stack's create has finished (finishCreate). */
  readonly accessLogs: Bucket;
  readonly linkSigningKey: Secret;
  private readonly retain: boolean;

  constructor(scope: Construct, id: string, props: { removal: LogSettings['removal'] }) {
    super(scope, id);
    const k = TABLE_KEYS;
    const removalPolicy = removalPolicyOf(props.removal);
    this.retain = props.removal === 'retain';
    const retain = this.retain;
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
    this.accessLogs = new Bucket(this, 'FilesAccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
      autoDeleteObjects: !retain,
    });
    const accessLogs = this.accessLogs;
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // No serverAccessLogsBucket: its logging is switched on by finishCreate, the policy below lets S3 deliver.
      // (As CDK writes it for serverAccessLogsBucket with @aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy.)
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
    accessLogs.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('logging.s3.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [accessLogs.arnForObjects(`${ACCESS_LOG_PREFIX}*`)],
        conditions: { ArnLike: { 'aws:SourceArn': this.bucket.bucketArn }, StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    // The HMAC key of the 7-day download links: generated here, never in code or configuration.
    this.linkSigningKey = new Secret(this, 'LinkSigningKey', {
      description: 'HMAC key of the video service download links',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
  }

  /**
   * The stack's last resources, each after every other one, so that a create that fails anywhere before them leaves
   * nothing CloudFormation cannot delete:
   * - the files bucket's server access logging (PutBucketLogging), in every stage: S3 logs a bucket's requests
   *   (CloudFormation's own configuration calls included) minutes to hours later into the access-log bucket, and a
   *   bucket that holds objects cannot be deleted, so logging on from the bucket's creation would leave the rollback of
   *   a failed create stopped there (DELETE_FAILED). Deleted (a rollback, the stack's deletion), it switches logging off,
   *   so that the rollback's own requests are not logged either; the logs written stay in the (retained) bucket;
   * - a retained table's deletion protection (UpdateTable), last of all: CloudFormation cannot delete a protected
   *   table, so a table created protected would stop the rollback of a failed first create too. Deleting it does
   *   nothing: a deleted stack leaves its retained table protected.
   * Both are CDK's AwsCustomResource (one SDK call each, no code of ours), on one role allowed those two calls only.
   */
  finishCreate(logs: LogSettings): { logging: AwsCustomResource; protection?: AwsCustomResource } {
    const stack = Stack.of(this);
    // Its own role, as every function of the stack has: its log group and the calls, no managed policy.
    const providerLogs = logGroup(stack, 'FinishCreateLogs', logs);
    const role = new Role(stack, 'FinishCreateRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    providerLogs.grantWrite(role);
    const common = { role, installLatestAwsSdk: false as const, logGroup: providerLogs };
    const logOn = {
      service: 'S3',
      action: 'PutBucketLogging',
      parameters: {
        Bucket: this.bucket.bucketName,
        BucketLoggingStatus: { LoggingEnabled: { TargetBucket: this.accessLogs.bucketName, TargetPrefix: ACCESS_LOG_PREFIX } },
      },
      physicalResourceId: PhysicalResourceId.of(`${stack.stackName}-files-access-logging`),
    };
    const logging = new AwsCustomResource(stack, 'FilesAccessLogging', {
      ...common,
      onCreate: logOn,
      onUpdate: logOn,
      onDelete: { service: 'S3', action: 'PutBucketLogging', parameters: { Bucket: this.bucket.bucketName, BucketLoggingStatus: {} } },
      policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: ['s3:PutBucketLogging'], resources: [this.bucket.bucketArn] })]),
    });
    const protection = this.protectTable(common);
    afterEverythingElse(logging, [logging, ...(protection ? [protection] : [])]);
    if (protection) afterEverythingElse(protection, [protection]);
    return { logging, ...(protection ? { protection } : {}) };
  }

  /** A retained table's deletion protection (finishCreate); none where the stage deletes its data. */
  private protectTable(common: { role: Role; installLatestAwsSdk: false; logGroup: ReturnType<typeof logGroup> }): AwsCustomResource | undefined {
    if (!this.retain) return undefined;
    const stack = Stack.of(this);
    const call = {
      service: 'DynamoDB',
      action: 'UpdateTable',
      parameters: { TableName: this.table.tableName, DeletionProtectionEnabled: true },
      physicalResourceId: PhysicalResourceId.of(`${stack.stackName}-table-deletion-protection`),
    };
    return new AwsCustomResource(stack, 'TableDeletionProtection', {
      ...common,
      onCreate: call,
      onUpdate: call,
      policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: ['dynamodb:UpdateTable'], resources: [this.table.tableArn] })]),
    });
  }
}

/** `last` depends on every resource of its stack but `except`: CloudFormation creates it after them, and deletes it first. */
function afterEverythingElse(last: IConstruct, except: IConstruct[]): void {
  for (const child of Stack.of(last).node.children) if (!except.includes(child)) last.node.addDependency(child);
}
