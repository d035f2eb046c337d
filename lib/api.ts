/** The HTTP API: one Lambda per route of the one route table, plus the $default route for the 404 envelope. */
import { join } from 'node:path';
import { CfnOutput, Duration } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { API_PREFIX, DEFAULT_ROUTE, ROUTES } from '../functions/http/routes.ts';
import { ROOT } from './paths.ts';

export interface ApiProps {
  environment: Record<string, string>;
  /** Grants each handler what it needs. */
  grant(fn: NodejsFunction, handler: string): void;
}

export function lambda(scope: Construct, id: string, entry: string, environment: Record<string, string>) {
  return new NodejsFunction(scope, id, {
    entry: join(ROOT, entry),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: 512,
    timeout: Duration.seconds(29),
    tracing: Tracing.ACTIVE,
    environment: { NODE_OPTIONS: '--enable-source-maps', ...environment },
    bundling: { format: OutputFormat.ESM, minify: true, sourceMap: true, target: 'node22', mainFields: ['module', 'main'] },
  });
}

export class Api extends Construct {
  readonly httpApi: HttpApi;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.httpApi = new HttpApi(this, 'Http', { createDefaultStage: true });
    const integration = (name: string) => {
      const fn = lambda(this, `fn-${name}`, `functions/http/${name}.ts`, props.environment);
      props.grant(fn, name);
      return new HttpLambdaIntegration(`int-${name}`, fn);
    };
    for (const r of ROUTES) {
      new HttpRoute(this, `${r.method} ${r.path}`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(API_PREFIX + r.path, HttpMethod[r.method]),
        integration: integration(r.handler),
      });
    }
    new HttpRoute(this, 'default', { httpApi: this.httpApi, routeKey: HttpRouteKey.DEFAULT, integration: integration(DEFAULT_ROUTE.handler) });
    new CfnOutput(scope, 'BaseUrl', { value: `${this.httpApi.apiEndpoint}${API_PREFIX}` });
  }
}
