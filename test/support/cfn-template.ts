/**
 * A synthesized CloudFormation template's values as a deploy would make them: each Ref, Fn::GetAtt, Fn::Join, Fn::Sub
 * and Fn::Select resolved to a plausible value (a 12-digit account, the template's region, and physical names shaped
 * as CloudFormation generates them: stack name, logical id and a 13-character suffix, cut to the resource's limit), so
 * that checks of sizes and formats see strings of the deployed size. An intrinsic it does not know is an error.
 */
export type Template = {
  Resources: Record<string, Resource>;
  Outputs?: Record<string, unknown>;
  Parameters?: Record<string, unknown>;
  Metadata?: Record<string, any>;
};
export type Resource = { Type: string; Properties?: Record<string, any>; Metadata?: Record<string, string>; DependsOn?: string[] };

export const ACCOUNT = '123456789012';
const SUFFIX = 'A1B2C3D4E5F6G';

/** The longest name CloudFormation may generate for a type (the service's limit), where a Ref gives the name. */
const NAME_LIMITS: Record<string, number> = {
  'AWS::Lambda::Function': 64,
  'AWS::IAM::Role': 64,
  'AWS::S3::Bucket': 63,
  'AWS::DynamoDB::GlobalTable': 255,
  'AWS::Logs::LogGroup': 512,
  'AWS::CloudWatch::Alarm': 255,
  'AWS::CloudWatch::Dashboard': 255,
  'AWS::SNS::Topic': 256,
  'AWS::StepFunctions::StateMachine': 80,
  'AWS::SecretsManager::Secret': 512,
};

/** The explicit name property of each type that has one. */
export const NAME_PROPERTY: Record<string, string> = {
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::StepFunctions::StateMachine': 'StateMachineName',
  'AWS::SecretsManager::Secret': 'Name',
};

export class Resolver {
  constructor(
    readonly template: Template,
    /** The stack's name and region, as the cloud assembly's manifest gives them. */
    readonly stack: string,
    readonly region: string,
  ) {}

  private resource(id: string): Resource {
    const r = this.template.Resources[id];
    if (!r) throw new Error(`no resource ${id}`);
    return r;
  }

  /** A resource's physical name: its explicit one, else as CloudFormation generates one. */
  nameOf(id: string): string {
    const r = this.resource(id);
    const property = NAME_PROPERTY[r.Type];
    if (property && r.Properties?.[property] !== undefined) return this.string(r.Properties[property]);
    const limit = NAME_LIMITS[r.Type] ?? 128;
    const generated = `${this.stack}-${id.slice(0, Math.max(1, limit - this.stack.length - SUFFIX.length - 2))}-${SUFFIX}`;
    return r.Type === 'AWS::S3::Bucket' ? generated.toLowerCase() : generated;
  }

  private arn(service: string, resource: string, region = this.region, account = ACCOUNT) {
    return `arn:aws:${service}:${region}:${account}:${resource}`;
  }

  ref(id: string): string {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': ACCOUNT,
      'AWS::Region': this.region,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.stack,
      'AWS::StackId': this.arn('cloudformation', `stack/${this.stack}/00000000-0000-0000-0000-000000000000`),
      'AWS::NoValue': '',
    };
    if (id in pseudo) return pseudo[id]!;
    if (this.template.Parameters?.[id]) return `parameter-${id}`;
    const type = this.resource(id).Type;
    switch (type) {
      case 'AWS::SNS::Topic':
        return this.arn('sns', this.nameOf(id));
      case 'AWS::StepFunctions::StateMachine':
        return this.arn('states', `stateMachine:${this.nameOf(id)}`);
      case 'AWS::SecretsManager::Secret':
        return this.arn('secretsmanager', `secret:${this.nameOf(id)}-AbCdEf`);
      case 'AWS::ApiGatewayV2::Api':
        return 'a1b2c3d4e5';
      case 'AWS::ApiGatewayV2::Integration':
      case 'AWS::ApiGatewayV2::Route':
        return 'abc1234';
      default:
        return this.nameOf(id);
    }
  }

  getAtt(id: string, attribute: string): string {
    const type = this.resource(id).Type;
    const name = () => this.nameOf(id);
    const arns: Record<string, () => string> = {
      'AWS::Lambda::Function': () => this.arn('lambda', `function:${name()}`),
      'AWS::IAM::Role': () => this.arn('iam', `role/${name()}`, ''),
      'AWS::S3::Bucket': () => `arn:aws:s3:::${name()}`,
      'AWS::DynamoDB::GlobalTable': () => this.arn('dynamodb', `table/${name()}`),
      'AWS::Logs::LogGroup': () => this.arn('logs', `log-group:${name()}:*`),
      'AWS::CloudWatch::Alarm': () => this.arn('cloudwatch', `alarm:${name()}`),
      'AWS::Events::Rule': () => this.arn('events', `rule/${name()}`),
      'AWS::StepFunctions::StateMachine': () => this.ref(id),
      'AWS::SNS::Topic': () => this.ref(id),
    };
    if (attribute === 'Arn' && arns[type]) return arns[type]();
    if (type === 'AWS::ApiGatewayV2::Api' && attribute === 'ApiEndpoint') return `https://${this.ref(id)}.execute-api.${this.region}.amazonaws.com`;
    if (type === 'AWS::CloudFront::Distribution' && attribute === 'DomainName') return 'd1a2b3c4d5e6f7.cloudfront.net';
    if (attribute === 'Name' || attribute === 'FunctionName') return name();
    throw new Error(`Fn::GetAtt ${type}.${attribute} is not known here`);
  }

  /** A value with every intrinsic resolved. */
  value(v: unknown): unknown {
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, any>;
    const [key] = Object.keys(o);
    if (Object.keys(o).length === 1 && (key === 'Ref' || key!.startsWith('Fn::'))) return this.intrinsic(key!, o[key!]);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, this.value(x)]));
  }

  string(v: unknown): string {
    const s = this.value(v);
    if (typeof s !== 'string') throw new Error(`not a string: ${JSON.stringify(v)}`);
    return s;
  }

  private intrinsic(fn: string, arg: any): unknown {
    switch (fn) {
      case 'Ref':
        return this.ref(arg);
      case 'Fn::GetAtt': {
        const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
        return this.getAtt(id, attribute);
      }
      case 'Fn::Join':
        return (this.value(arg[1]) as unknown[]).join(arg[0]);
      case 'Fn::Select':
        return (this.value(arg[1]) as unknown[])[Number(this.value(arg[0]))];
      case 'Fn::Split':
        return this.string(arg[1]).split(arg[0]);
      case 'Fn::Sub': {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : [arg[0] as string, arg[1] as Record<string, unknown>];
        return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
          if (name in vars) return this.string(vars[name]);
          const [id, attribute] = name.split('.');
          return attribute ? this.getAtt(id!, attribute) : this.ref(id!);
        });
      }
      default:
        throw new Error(`${fn} is not known here`);
    }
  }
}
