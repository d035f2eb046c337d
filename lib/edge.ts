/**
 * What stands in front of the API. With the stage's edge on (docs/decisions.md, Per-caller fairness): a CloudFront
 * distribution whose AWS WAF web ACL limits each source address (EdgeAclStack, in us-east-1, where CloudFront's web
 * ACLs live), and an origin check on every route, so that nothing reaches a function without passing the ACL. The
 * optional custom domain sits on CloudFront then, and on API Gateway without the edge.
 */
import { ArnFormat, CfnOutput, CrossStackReferences, Duration, Fn, ReferenceStrength, Stack, type StackProps } from 'aws-cdk-lib';
import { ApiMapping, DomainName, type HttpApi, type IHttpRouteAuthorizer, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { ErrorCode } from '../functions/core/errors.ts';
import { ORIGIN_VERIFY } from '../functions/edge/table.ts';
import { STATUS_OF } from '../functions/http/errors.ts';
import { API_PREFIX, ROUTES } from '../functions/http/routes.ts';
import { serviceFunction } from './functions.ts';
import { removalPolicyOf, type LogSettings } from './logs.ts';
import type { DomainConfig, EdgeConfig } from './stages.ts';

/** The routes that start a render, which the tighter per-address rule counts (route table keys). */
const CREATION_ROUTES = ['POST /videos', 'POST /videos:quick'] as const;
/** WAF's evaluation window: the limits are per minute, and a refused caller is told to wait that long. */
const WINDOW_SECONDS = 60;

/** The answer to an address past a limit: the contract's error envelope, 429 `rate_limited`, with Retry-After. */
function limitBody(what: string, limit: number): string {
  const code: ErrorCode = 'rate_limited';
  return JSON.stringify({ error: { code, message: `More than ${limit} ${what} a minute from this address; retry after the Retry-After seconds` } });
}

type Statement = CfnWebACL.StatementProperty;
const exactly = (fieldToMatch: CfnWebACL.FieldToMatchProperty, searchString: string, types: readonly string[]): Statement => ({
  byteMatchStatement: {
    fieldToMatch,
    searchString,
    positionalConstraint: 'EXACTLY',
    textTransformations: types.map((type, priority) => ({ priority, type })),
  },
});
/**
 * A request of one of these routes, its path compared URL-decoded, twice: `/v1/videos%3Aquick` and
 * `/v1/videos%253Aquick` are `/v1/videos:quick`. The app decodes the path once (functions/http/routes.ts), but HTTP
 * API documents no decoding of its own, and captures others published show it decoding a path twice; a path a second
 * decoding makes a creation is counted as one either way.
 */
function routesStatement(keys: readonly string[]): Statement {
  const statements = keys.map((key): Statement => {
    const [method, path] = key.split(' ') as [string, string];
    if (!ROUTES.some((r) => r.method === method && r.path === path)) throw new Error(`The edge names a route not in the route table: ${key}`);
    return {
      andStatement: { statements: [exactly({ method: {} }, method, ['NONE']), exactly({ uriPath: {} }, API_PREFIX + path, ['URL_DECODE', 'URL_DECODE'])] },
    };
  });
  return statements.length === 1 ? statements[0]! : { orStatement: { statements } };
}

/** AWS WAF logs to a CloudWatch Logs group only if its name starts with this. */
export const WAF_LOG_PREFIX = 'aws-waf-logs-';
/** WAF's log group: the prefix WAF requires, the stage, and the start of the stack id's UUID (unique per stack). */
export const wafLogGroupName = (stack: Stack, stage: string) =>
  `${WAF_LOG_PREFIX}video-service-${stage}-${Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', stack.stackId))))}`;

/** The web ACL (scope CLOUDFRONT, so created in us-east-1) and the log of the requests it blocks. */
export class EdgeAclStack extends Stack {
  readonly webAclArn: string;

  constructor(scope: Construct, id: string, props: StackProps & { stage: string; edge: EdgeConfig; logs: LogSettings }) {
    super(scope, id, { ...props, env: { ...props.env, region: 'us-east-1' } });
    const { edge, stage } = props;
    const name = `video-service-${stage}`;
    const rule = (ruleName: string, priority: number, limit: number, body: string, scopeDownStatement?: Statement): CfnWebACL.RuleProperty => ({
      name: ruleName,
      priority,
      statement: {
        rateBasedStatement: { limit, evaluationWindowSec: WINDOW_SECONDS, aggregateKeyType: 'IP', ...(scopeDownStatement ? { scopeDownStatement } : {}) },
      },
      action: {
        block: {
          customResponse: {
            responseCode: STATUS_OF.rate_limited,
            customResponseBodyKey: body,
            responseHeaders: [{ name: 'Retry-After', value: String(WINDOW_SECONDS) }],
          },
        },
      },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: ruleName },
    });
    const acl = new CfnWebACL(this, 'WebAcl', {
      name,
      scope: 'CLOUDFRONT',
      description: `Per-address limits in front of the video service API, ${stage}`,
      defaultAction: { allow: {} },
      customResponseBodies: {
        creations: { contentType: 'APPLICATION_JSON', content: limitBody('orders', edge.creationsPerMinute) },
        requests: { contentType: 'APPLICATION_JSON', content: limitBody('requests', edge.requestsPerMinute) },
      },
      rules: [
        rule('creations-per-address', 0, edge.creationsPerMinute, 'creations', routesStatement(CREATION_ROUTES)),
        rule('requests-per-address', 1, edge.requestsPerMinute, 'requests'),
      ],
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: name },
    });
    // Read by the stage's stack with CloudFormation's Fn::GetStackOutput, which reaches across regions by itself; a
    // strong reference would add a custom resource (a Lambda function) on each side to copy it through SSM.
    CrossStackReferences.of(acl).produce(ReferenceStrength.WEAK);
    this.webAclArn = acl.attrArn;
    // Only the blocked requests are logged: who was refused, and by which rule. WAF's log groups need this prefix. A
    // retained group outlives its stack (prod), so the name ends with the first part of the stack id's UUID, as the
    // state machines' groups do (lib/workflow.ts): the edge stack of a redeploy after a teardown gets a name of its own.
    const blocked = new LogGroup(this, 'BlockedRequests', {
      logGroupName: wafLogGroupName(this, stage),
      retention: props.logs.retentionDays as RetentionDays,
      removalPolicy: removalPolicyOf(props.logs.removal),
    });
    new CfnLoggingConfiguration(this, 'BlockedRequestsLog', {
      resourceArn: acl.attrArn,
      // WAF takes the log group's ARN without CloudWatch's trailing `:*`.
      logDestinationConfigs: [
        this.formatArn({ service: 'logs', resource: 'log-group', resourceName: blocked.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
      ],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });
  }
}

export interface FrontDoorProps {
  api: HttpApi;
  stage: string;
  /** The web ACL's ARN (EdgeAclStack) when the stage's edge is on. */
  webAclArn?: string;
  domain?: DomainConfig;
  logs: LogSettings;
  /** Settings every function gets (the log level, the service's name). */
  environment: Record<string, string>;
}

/** The public address of the API, with what it takes: the distribution and the origin check, or the custom domain. */
export class FrontDoor extends Construct {
  /** The public base address, /v1 included: download links start with it. */
  readonly baseUrl: string;
  /** The origin check every route carries when the edge is on. */
  readonly authorizer?: IHttpRouteAuthorizer;
  /** Its function, watched like the others. */
  readonly verifier?: LambdaFunction;
  /** The secret value CloudFront adds, when the edge is on. */
  readonly originSecret?: Secret;
  readonly distribution?: Distribution;

  constructor(scope: Construct, id: string, props: FrontDoorProps) {
    super(scope, id);
    const { api, domain } = props;
    const certificate = domain && Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn);
    if (!props.webAclArn) {
      // No edge: the domain, if any, on API Gateway, mapped at its root so that https://<domain>/v1/... is the API.
      if (domain && certificate) {
        const name = new DomainName(this, 'Domain', { domainName: domain.name, certificate, securityPolicy: SecurityPolicy.TLS_1_2 });
        new ApiMapping(this, 'Mapping', { api, domainName: name, stage: api.defaultStage! });
        new CfnOutput(scope, 'DomainTarget', { value: name.regionalDomainName, description: `The DNS target of ${domain.name} (CNAME or alias)` });
      }
      this.baseUrl = `${domain ? `https://${domain.name}` : api.apiEndpoint}${API_PREFIX}`;
      return;
    }
    const stack = Stack.of(this);
    // Generated by Secrets Manager: CloudFormation puts it into the distribution by a dynamic reference, so the value is
    // in neither the template nor the code.
    this.originSecret = new Secret(this, 'OriginVerify', {
      description: `The value CloudFront adds to every request it forwards to the video service API (${props.stage})`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      // As the stage keeps its other secrets: one rule for what a deleted stack leaves.
      removalPolicy: removalPolicyOf(props.logs.removal),
    });
    this.verifier = serviceFunction(
      this,
      'edge',
      ORIGIN_VERIFY.handler,
      { ...props.environment, ORIGIN_VERIFY_SECRET_ARN: this.originSecret.secretArn },
      props.logs,
    );
    this.verifier.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.originSecret.secretArn] }));
    this.authorizer = new HttpLambdaAuthorizer('origin-verify', this.verifier, {
      identitySource: [`$request.header.${ORIGIN_VERIFY.header}`],
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      resultsCacheTtl: Duration.seconds(ORIGIN_VERIFY.cacheSeconds),
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `video-service ${props.stage}: the API behind AWS WAF's per-address limits`,
      defaultBehavior: {
        origin: new HttpOrigin(`${api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          customHeaders: { [ORIGIN_VERIFY.header]: this.originSecret.secretValue.unsafeUnwrap() },
        }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        // Every answer is the caller's own (keys, signed links): nothing is cached, everything the caller sent but the
        // Host header (API Gateway answers to its own name) goes to the API.
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      webAclId: props.webAclArn,
      // IPv4 only: WAF counts each IPv6 address apart, and one host holds a /64 of them.
      enableIpv6: false,
      // North America and Europe's edges: the API lives in one European region, and their request price is the lowest.
      priceClass: PriceClass.PRICE_CLASS_100,
      httpVersion: HttpVersion.HTTP2_AND_3,
      ...(domain && certificate ? { domainNames: [domain.name], certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    });
    if (domain) new CfnOutput(scope, 'DomainTarget', { value: this.distribution.domainName, description: `The DNS target of ${domain.name} (CNAME or alias)` });
    new CfnOutput(scope, 'DistributionId', { value: this.distribution.distributionId });
    new CfnOutput(scope, 'OriginVerifySecretArn', { value: this.originSecret.secretArn });
    this.baseUrl = `https://${domain ? domain.name : this.distribution.domainName}${API_PREFIX}`;
  }
}
