/**
 * The HTTP API: one route per entry of the one route table, each to its own function, plus the $default route for
 * the 404 envelope. API keys are checked inside the functions (functions/http/middleware.ts), not by an API Gateway
 * authorizer: an HTTP API authorizer answers a refusal with its own body, where the contract wants 401 in the error
 * envelope, and an authorizer that lets every request through would only add an invocation per call.
 */
import { CfnOutput } from 'aws-cdk-lib';
import { type CfnStage, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_PREFIX, DEFAULT_ROUTE, ROUTES } from '../functions/http/routes.ts';

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

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'Http', { createDefaultStage: true, description: 'Video service public API v1' });
    this.baseUrl = `${this.httpApi.apiEndpoint}${API_PREFIX}`;
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH });
    const stage = this.httpApi.defaultStage!.node.defaultChild as CfnStage;
    stage.accessLogSettings = { destinationArn: accessLogs.logGroupArn, format: ACCESS_LOG_FORMAT };
    // A ceiling for the whole API in front of the per-key limits, so a flood cannot run up the bill.
    stage.defaultRouteSettings = { throttlingBurstLimit: 500, throttlingRateLimit: 200 };
  }

  /** Routes every entry of the route table (and $default) to the function named by its handler. */
  route(functionOf: (handler: string) => IFunction): void {
    for (const r of ROUTES) {
      new HttpRoute(this, `${r.method} ${r.path}`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(API_PREFIX + r.path, HttpMethod[r.method]),
        integration: new HttpLambdaIntegration(`${r.method} ${r.path} integration`, functionOf(r.handler)),
      });
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
