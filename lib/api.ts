/**
 * The HTTP API: the routes derived from the one route table (functions/http/routes.ts, DEPLOYED_ROUTES: one per entry,
 * but the custom methods, which share one), each to its own function, plus the $default route for the 404 envelope. API keys are checked inside the functions (functions/http/middleware.ts), not by an API Gateway
 * authorizer: an HTTP API authorizer answers a refusal with its own body, where the contract wants 401 in the error
 * envelope, and an authorizer that lets every request through would only add an invocation per call.
 */
import { isDeepStrictEqual } from 'node:util';
import { CfnOutput } from 'aws-cdk-lib';
import { type CfnRoute, type CfnStage, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { API_PREFIX, DEFAULT_ROUTE, DEPLOYED_ROUTES, deployedKey } from '../functions/http/routes.ts';
import { logGroup, type LogSettings } from './logs.ts';
import type { StageConfig } from './stages.ts';

/** What API Gateway writes per request to the access log (JSON, one line each). */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
});

export class Api extends Construct {
  readonly httpApi: HttpApi;
  /** The base address of the contract, /v1 included. */
  readonly baseUrl: string;
  private readonly stage: CfnStage;

  constructor(scope: Construct, id: string, props: { logs: LogSettings; throttle: StageConfig['throttle'] }) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'Http', { createDefaultStage: true, description: 'Video service public API v1' });
    this.baseUrl = `${this.httpApi.apiEndpoint}${API_PREFIX}`;
    const accessLogs = logGroup(this, 'AccessLogs', props.logs);
    const stage = this.httpApi.defaultStage!.node.defaultChild as CfnStage;
    this.stage = stage;
    stage.accessLogSettings = { destinationArn: accessLogs.logGroupArn, format: ACCESS_LOG_FORMAT };
    // Ceilings for all callers together, in front of the per-key limits, so a flood cannot run up the bill: every route
    // gets the default bucket of its own (API Gateway applies the default per route, not to the stage as a whole), and
    // the routes that cost most get a lower one.
    const bucket = (t: { rate: number; burst: number }) => ({ throttlingRateLimit: t.rate, throttlingBurstLimit: t.burst });
    stage.defaultRouteSettings = bucket(props.throttle.default);
    // RouteSettings is plain JSON to CDK: its keys are the deployed route keys, written as CloudFormation spells them.
    // Table routes deployed as one route (the custom methods) share its bucket, so their settings must agree.
    const settings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    for (const [key, t] of Object.entries(props.throttle.routes)) {
      const deployed = deployedKey(key);
      const setting = { ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst };
      if (settings[deployed] && !isDeepStrictEqual(settings[deployed], setting)) throw new Error(`${key} shares ${deployed} with a route throttled otherwise`);
      settings[deployed] = setting;
    }
    stage.routeSettings = settings;
  }

  /** Routes every deployed route (and $default) to the function named by its handler. */
  route(functionOf: (handler: string) => IFunction): void {
    const throttled = Object.keys((this.stage.routeSettings ?? {}) as object);
    for (const r of DEPLOYED_ROUTES) {
      // Ids without the prefix, as the routes had before the custom methods shared one.
      const id = `${r.method} ${r.path.slice(API_PREFIX.length)}`;
      const route = new HttpRoute(this, id, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(r.path, HttpMethod[r.method]),
        integration: new HttpLambdaIntegration(`${id} integration`, functionOf(r.handler)),
      });
      // A stage's route settings name routes that must exist first, or CloudFormation cannot find them.
      if (throttled.includes(`${r.method} ${r.path}`)) this.stage.addDependency(route.node.defaultChild as CfnRoute);
    }
    new HttpRoute(this, 'default', {
      httpApi: this.httpApi,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration('default integration', functionOf(DEFAULT_ROUTE.handler)),
    });
  }

  output(scope: Construct): void {
    new CfnOutput(scope, 'BaseUrl', { value: this.baseUrl, description: 'The API base address (/v1 included)' });
  }
}
