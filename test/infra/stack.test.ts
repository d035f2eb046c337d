/**
 * The CDK stack as the platform team gets it: `cdk synth` offline with no AWS credentials, then assertions on the
 * template (routes, substitutions, grants, data safety, alarms), cdk-nag's AwsSolutions report, and the Lambda
 * bundles themselves: every API bundle refuses a request without a key, and the whole service runs an order to done
 * on the local stack with each handler imported from the bundle CDK built.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ROUTES, DEFAULT_ROUTE, API_PREFIX } from '../../functions/http/routes.ts';
import { STATE_MACHINES, STEPS } from '../../functions/steps/table.ts';
import { BOT_FUNCTIONS } from '../../functions/bot/table.ts';
import { JOBS } from '../../functions/jobs/table.ts';
import { ACCESS } from '../../lib/access.ts';
import { ROOT } from '../../lib/paths.ts';
import { startLocalStack, type LocalStack } from '../../local/stack.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { probe } from '../support/media.ts';

/** The endpoints of spec/public-api-v1.md. */
const SPEC_ROUTES = [
  'POST /videos:quick',
  'POST /videos',
  'GET /videos/{id}',
  'POST /videos/{id}/review',
  'POST /webhooks',
  'GET /webhooks',
  'DELETE /webhooks/{id}',
  'GET /balance',
];
/** The routes that need no key: the signed download links, the OpenAPI document and the docs page. */
const OPEN_ROUTES = ['GET /files/{id}/{file}', 'GET /openapi.json', 'GET /docs', 'GET /docs/{asset}'];

// Inside the project, as `cdk synth` writes it: the bundles then find the AWS SDK in node_modules, as in Lambda they find
// the runtime's.
const out = join(ROOT, 'cdk.out');
let synth: { status: number | null; output: string };
let template: Record<string, any>;
let assertions: Template;

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };
const resources = () => Object.entries(template.Resources as Record<string, Resource>);
const ofType = (type: string) => resources().filter(([, r]) => r.Type === type);
/** The logical id and resource of the function built for a handler or step module. */
function fn(kind: 'http' | 'step' | 'bot' | 'job', name: string): [string, Resource] {
  const found = ofType('AWS::Lambda::Function').find(([, r]) => r.Metadata?.['aws:cdk:path'] === `VideoService-dev/${kind}-${name}/Resource`);
  assert.ok(found, `a function for ${kind} ${name}`);
  return found;
}
const bundleOf = (kind: 'http' | 'step' | 'job', name: string) => join(out, fn(kind, name)[1].Metadata!['aws:asset:path']!, 'index.mjs');
/** The statements of the policies attached to a function's role. */
function statementsOf(logicalId: string): { Action: string | string[]; Resource: unknown }[] {
  const role = (template.Resources[logicalId] as Resource).Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (s: { Action: string | string[] }) => [s.Action].flat();

const BOT_ROLE = 'arn:aws:iam::123456789012:role/chat-bot';

before(() => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const res = spawnSync('npx', ['cdk', 'synth', '-q', '-o', out, '-c', `botPrincipalArn=${BOT_ROLE}`], { cwd: ROOT, env, encoding: 'utf8', timeout: 300_000 });
  synth = { status: res.status, output: `${res.stdout}${res.stderr}` };
  if (res.status === 0) {
    template = JSON.parse(readFileSync(join(out, 'VideoService-dev.template.json'), 'utf8'));
    assertions = Template.fromJSON(template);
  }
});

describe('the CDK stack', () => {
  it('synthesizes with `cdk synth`, offline and with no AWS credentials', () => {
    assert.equal(synth.status, 0, synth.output.slice(-3000));
  });

  it('passes cdk-nag AwsSolutions: no finding left, each acknowledged one with its reason', () => {
    const report = JSON.parse(readFileSync(join(out, 'validation-report.json'), 'utf8'));
    const nag = report.pluginReports.find((p: { pluginName: string }) => p.pluginName === 'AwsSolutions');
    assert.ok(nag, 'the AwsSolutions pack ran');
    assert.deepEqual(nag.violations, []);
    assert.equal(nag.conclusion, 'success');
    for (const s of nag.suppressedViolations) assert.ok(s.reason?.length > 30, `${s.acknowledgedId} has a reason`);
  });

  it('routes every spec route to the function of its handler, and $default to the 404', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    for (const spec of SPEC_ROUTES)
      assert.ok(
        ROUTES.some((r) => `${r.method} ${r.path}` === spec),
        `${spec} is in the route table`,
      );
    for (const r of [
      ...ROUTES.map((x) => ({ key: `${x.method} ${API_PREFIX}${x.path}`, handler: x.handler })),
      { key: '$default', handler: DEFAULT_ROUTE.handler },
    ]) {
      const route = routes.find((p) => p.RouteKey === r.key);
      assert.ok(route, `route ${r.key}`);
      const integration = template.Resources[(route.Target['Fn::Join'][1][1] as { Ref: string }).Ref] as Resource;
      assert.deepEqual(integration.Properties.IntegrationUri, { 'Fn::GetAtt': [fn('http', r.handler)[0], 'Arn'] }, r.key);
      assert.equal(integration.Properties.PayloadFormatVersion, '2.0');
    }
    assert.equal(routes.length, ROUTES.length + 1);
  });

  it('answers 401 in the error envelope from every bundled function behind a keyed route, and not from the open ones', async () => {
    Object.assign(process.env, {
      TABLE_NAME: 'none',
      BUCKET_NAME: 'none',
      PUBLIC_BASE_URL: 'https://api.example.com/v1',
      LINK_SIGNING_KEY: 'k',
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    });
    for (const r of ROUTES) {
      // A module instance of its own (the query), apart from the one the local stack below imports.
      const { handler } = (await import(`${pathToFileURL(bundleOf('http', r.handler)).href}?keyless`)) as {
        handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>;
      };
      const event = {
        version: '2.0',
        routeKey: `${r.method} ${API_PREFIX}${r.path}`,
        rawPath: `${API_PREFIX}${r.path.replace(/\{\w+\}/g, 'x')}`,
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        pathParameters: { id: 'x', file: 'video.mp4' },
        requestContext: { requestId: 'req-1', http: { method: r.method } },
        body: '{}',
        isBase64Encoded: false,
      };
      const res = await handler(event, { awsRequestId: 'req-1', functionName: r.handler, getRemainingTimeInMillis: () => 1000 });
      const key = `${r.method} ${r.path}`;
      if (OPEN_ROUTES.includes(key)) {
        assert.notEqual(res.statusCode, 401, key);
      } else {
        assert.equal(res.statusCode, 401, key);
        assert.equal(JSON.parse(res.body).error.code, 'unauthorized', key);
      }
    }
    assert.deepEqual(
      ROUTES.filter((r) => !r.auth).map((r) => `${r.method} ${r.path}`),
      OPEN_ROUTES,
    );
  });

  it('fills each state machine from its ASL file, every placeholder with the function of its step', () => {
    for (const [name, machine] of Object.entries(STATE_MACHINES)) {
      const found = ofType('AWS::StepFunctions::StateMachine').find(([id]) => id.startsWith(`${name}machine`));
      assert.ok(found, `${name} state machine`);
      const p = found[1].Properties;
      // The ASL file itself, uploaded as an asset.
      assert.equal(readFileSync(join(out, `asset.${p.DefinitionS3Location.Key}`), 'utf8'), readFileSync(join(ROOT, machine.file), 'utf8'));
      const steps = STEPS.filter((s) => s.machine === name);
      assert.deepEqual(Object.keys(p.DefinitionSubstitutions).sort(), [...new Set(steps.map((s) => s.placeholder))].sort());
      for (const s of steps) assert.deepEqual(p.DefinitionSubstitutions[s.placeholder], { 'Fn::GetAtt': [fn('step', s.module)[0], 'Arn'] }, s.placeholder);
      assert.equal(p.LoggingConfiguration.Level, 'ALL');
      assert.equal(p.TracingConfiguration.Enabled, true);
    }
  });

  it('grants each function exactly the data actions lib/access.ts names, with no wildcard action or resource on data', () => {
    const functions = [
      ...ROUTES.map((r) => ['http', r.handler] as const),
      ['http', DEFAULT_ROUTE.handler] as const,
      ...STEPS.map((s) => ['step', s.module] as const),
      ...BOT_FUNCTIONS.map((name) => ['bot', name] as const),
      ...JOBS.map((j) => ['job', j.name] as const),
    ];
    for (const [kind, name] of functions) {
      const statements = statementsOf(fn(kind, name)[0]);
      const access = ACCESS[name]!;
      const dataActions = statements.flatMap(actionsOf).filter((a) => /^(dynamodb|s3|secretsmanager|states):/.test(a));
      for (const a of dataActions) assert.doesNotMatch(a, /\*/, `${name}: ${a}`);
      for (const s of statements.filter((x) => actionsOf(x).some((a) => /^(dynamodb|s3):/.test(a)))) {
        const text = JSON.stringify(s.Resource);
        assert.ok(!/"\*"/.test(text) && !/\/\*"/.test(text.replace('/orders/*', '')), `${name}: ${text}`);
      }
      const expect = [
        ...(access.table ?? []).map((a) => `dynamodb:${a}`),
        ...(access.bucket ?? []).map((a) => `s3:${a}`),
        ...(access.linkKey ? ['secretsmanager:GetSecretValue'] : []),
        ...(access.orderMachine ?? []).map((a) => `states:${a}`),
        ...(access.startDelivery ? ['states:StartExecution'] : []),
        ...(access.describeExecutions?.length ? ['states:DescribeExecution'] : []),
      ];
      assert.deepEqual([...new Set(dataActions)].sort(), [...new Set(expect)].sort(), name);
    }
  });

  it("gives the bot's order function no route and lets only the bot's role invoke it", () => {
    const [id] = fn('bot', 'place-order');
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(id));
    assert.deepEqual(
      permissions.map(([, p]) => [p.Properties.Action, p.Properties.Principal]),
      [['lambda:InvokeFunction', BOT_ROLE]],
    );
    const integrations = ofType('AWS::ApiGatewayV2::Integration').map(([, r]) => JSON.stringify(r.Properties.IntegrationUri));
    assert.ok(!integrations.some((u) => u.includes(id)), 'no API route leads to it');
  });

  it('runs the recovery sweep every minute on a schedule', () => {
    const [id] = fn('job', 'sweep');
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets).includes(id));
    assert.deepEqual(
      rules.map(([, r]) => [r.Properties.ScheduleExpression, r.Properties.State ?? 'ENABLED']),
      [['rate(1 minute)', 'ENABLED']],
    );
  });

  it('keeps the data safe: TTL, point-in-time recovery, encryption, no public access, TLS only, the 30-day lifecycle', () => {
    assertions.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true }, DeletionProtectionEnabled: true })],
    });
    assertions.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
    assertions.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'orders/', ExpirationInDays: 30, Status: 'Enabled' })]) },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'files/' }),
    });
    assertions.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    assertions.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 64 }) });
  });

  it('runs every function on Node 24 with X-Ray, on arm64 but the render step, sized for the render and limited to the slots', () => {
    for (const [id, f] of ofType('AWS::Lambda::Function')) {
      const render = id.startsWith('steprendervideo');
      assert.equal(f.Properties.Runtime, 'nodejs24.x', id);
      assert.deepEqual(f.Properties.TracingConfig, { Mode: 'Active' }, id);
      assert.deepEqual(f.Properties.Architectures, [render ? 'x86_64' : 'arm64'], id);
      if (render) {
        assert.equal(f.Properties.MemorySize, 3008);
        assert.equal(f.Properties.Timeout, 900);
        assert.deepEqual(f.Properties.EphemeralStorage, { Size: 2048 });
        // As many renders at once as the queue has slots (context renderSlots, default 4), and every function knows it.
        assert.equal(f.Properties.ReservedConcurrentExecutions, 4);
      } else {
        assert.equal(f.Properties.ReservedConcurrentExecutions, undefined, id);
      }
      assert.equal(f.Properties.Environment.Variables.RENDER_SLOTS, '4', id);
    }
  });

  it('alarms on the 5xx rate, failed executions, dropped deliveries, throttles, the queue and recoveries, has a dashboard and outputs the base URL', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties));
    const count = (re: RegExp) => alarms.filter((a) => re.test(a)).length;
    assert.equal(count(/"5xx"/), 1, 'API 5xx rate');
    assert.equal(count(/"ExecutionsFailed"/), 2, 'failed executions of both state machines');
    assert.equal(count(/"WebhookDeliveriesDropped"/), 1, 'dropped deliveries');
    assert.equal(count(/"OldestWaitingApiSeconds".*"Threshold":900/), 1, 'an API order waiting 15 minutes for a render slot');
    assert.equal(count(/"OrdersRecovered".*"DeliveriesRecovered"/), 1, 'any order or delivery the sweep had to start');
    assert.equal(
      count(/"Throttles"/),
      new Set([...ROUTES.map((r) => r.handler), DEFAULT_ROUTE.handler, ...STEPS.map((s) => s.module), ...BOT_FUNCTIONS, ...JOBS.map((j) => j.name)]).size,
      'throttles of every function',
    );
    assert.equal(count(/ThrottleEvents/), 1, 'table throttles');
    for (const a of ofType('AWS::CloudWatch::Alarm')) assert.equal(a[1].Properties.AlarmActions.length, 1, 'each alarm notifies the topic');
    assert.equal(ofType('AWS::CloudWatch::Dashboard').length, 1);
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    for (const gauge of ['QueueDepthApi', 'QueueDepthBot', 'OldestWaitingApiSeconds', 'OldestWaitingBotSeconds', 'SlotsInUse'])
      assert.ok(body.includes(gauge), `the dashboard shows ${gauge}`);
    assert.ok(template.Outputs.BaseUrl, 'BaseUrl output');
    for (const o of ['TableName', 'BucketName', 'AlarmTopicArn']) assert.ok(template.Outputs[o], o);
  });
});

describe('the Lambda bundles on the local stack', () => {
  let stack: LocalStack | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'video-service-bundles-'));
  after(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run a quick order to a downloadable mp4 with every handler imported from its bundle', async () => {
    assert.equal(synth.status, 0, 'synth ran');
    stack = await startLocalStack({ port: 0, s3Dir: join(dir, 's3'), env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL' }, moduleOf: bundleOf });
    checkFetchesTo(stack.baseUrl);
    const { services } = await import('../../functions/app/services.ts');
    const { apiKey } = await services().accounts.createUser({ balance: 500, trialVideos: 0, now: new Date() });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${stack.baseUrl}/videos:quick`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'A 10 second video about green tea' }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    let order: { status: string; result_url?: string; error?: unknown } = { status: 'queued' };
    for (const end = Date.now() + 90_000; !['done', 'error'].includes(order.status) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 250));
      order = (await (await fetch(`${stack.baseUrl}/videos/${id}`, { headers })).json()) as typeof order;
    }
    assert.equal(order.status, 'done', JSON.stringify(order));
    const video = await fetch(order.result_url!);
    assert.equal(video.status, 200);
    const file = join(dir, 'video.mp4');
    (await import('node:fs')).writeFileSync(file, Buffer.from(await video.arrayBuffer()));
    const p = probe(file);
    assert.equal(p.video.codec_name, 'h264');
    assert.equal(p.video.width, 1080);
    assert.ok(Math.abs(p.duration - 10) < 0.6, `duration ${p.duration}`);
  });
});
