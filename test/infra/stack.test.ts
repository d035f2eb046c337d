/**
 * The CDK stack as the platform team gets it: `cdk synth` offline with no AWS credentials, then assertions on the
 * template (routes, substitutions, grants, data safety, alarms), cdk-nag's AwsSolutions report, and the Lambda
 * bundles themselves: every API bundle refuses a request without a key, and the whole service runs an order to done
 * on the local stack with each handler imported from the bundle CDK built.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ROUTES, DEFAULT_ROUTE, API_PREFIX, DEPLOYED_ROUTES, deployedKey } from '../../functions/http/routes.ts';
import { STATE_MACHINES, STEPS } from '../../functions/steps/table.ts';
import { BOT_FUNCTIONS } from '../../functions/bot/table.ts';
import { EXECUTION_LISTENERS, INVOKED, JOBS } from '../../functions/jobs/table.ts';
import { BUCKET_GRANTS, FUNCTION_ACCESS } from '../../lib/access.ts';
import { ROOT } from '../../lib/paths.ts';
import { FFMPEG_RELEASE, RENDER_IMAGE_BUILD } from '../../lib/render-image.ts';
import { STAGES } from '../../lib/stages.ts';
import { startLocalStack, type LocalStack } from '../../local/stack.ts';
import { checkAgainstContract, checkFetchesTo } from '../support/contract.ts';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { probe } from '../support/media.ts';
import { describeTemplateChecks } from './template-checks.ts';

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

// Inside the project, as `cdk synth` writes it. Each bundle carries the AWS SDK (lib/functions.ts; a test below checks
// that none imports it from outside); on one machine a step bundle still finds the npm ffmpeg in node_modules, where
// the render image has FFMPEG_PATH.
const out = join(ROOT, 'cdk.out');
let synth: { status: number | null; output: string };
let template: Record<string, any>;
let assertions: Template;
// The prod stage, synthesized too (its bundles are not run here).
const prodOut = mkdtempSync(join(tmpdir(), 'video-service-prod-synth-'));
const ALARM_EMAIL = 'oncall@example.com';
let prodSynth: { status: number | null; output: string };
let prod: Record<string, any>;
/** Prod's second stack, in us-east-1: the edge's web ACL. */
let prodEdge: Record<string, any>;

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };
const resources = () => Object.entries(template.Resources as Record<string, Resource>);
const ofType = (type: string) => resources().filter(([, r]) => r.Type === type);
/** The logical id and resource of the function built for a handler or step module. */
function fn(kind: 'http' | 'step' | 'bot' | 'job', name: string): [string, Resource] {
  const found = ofType('AWS::Lambda::Function').find(([, r]) => r.Metadata?.['aws:cdk:path'] === `VideoService-dev/${kind}-${name}/Resource`);
  assert.ok(found, `a function for ${kind} ${name}`);
  return found;
}
/** The render step's bundle sits in its image's build context, under app/. */
const bundleOf = (kind: 'http' | 'step' | 'job', name: string) =>
  join(out, fn(kind, name)[1].Metadata!['aws:asset:path']!, ...(name === 'render-video' ? ['app'] : []), 'index.mjs');
/** The statements of the policies attached to a function's role. */
function statementsOf(logicalId: string): { Action: string | string[]; Resource: unknown }[] {
  const role = (template.Resources[logicalId] as Resource).Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (s: { Action: string | string[] }) => [s.Action].flat();
/**
 * The stack's own functions: not CDK's providers (the dev buckets' emptying, and the AwsCustomResource of the stack's
 * last resources, lib/data.ts finishCreate), which CDK sizes and runs itself.
 */
const serviceFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([, r]) => !/AutoDeleteObjects|\/AWS679f53fac002430cb0da5b7982bd2287\//.test(r.Metadata?.['aws:cdk:path'] ?? ''));

const BOT_ROLE = 'arn:aws:iam::123456789012:role/chat-bot';
/** The prod synth's version, as the pipeline passes its commit. */
const PROD_VERSION = '0123abcd4567ef';
/** The prod synth's AI providers (context `providers`): keys by secret name and by ARN, and one with no key. */
const IMAGES_KEY_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:images-key-AbCdEf';
const PROVIDERS = {
  llm: { url: 'https://llm.example.com/v1', apiKeySecret: 'video-service/llm-key' },
  images: { url: 'https://images.example.com/v1', model: 'image-model-2', apiKeySecret: IMAGES_KEY_ARN },
  speech: { url: 'https://speech.example.com/v1', timeoutMs: 45_000, cloneVoice: 'voice_0123' },
};

before(() => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const run = (dir: string, ...context: string[]) => {
    const res = spawnSync('npx', ['cdk', 'synth', '-q', '-o', dir, ...context.flatMap((c) => ['-c', c])], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
    return { status: res.status, output: `${res.stdout}${res.stderr}` };
  };
  synth = run(out, `botPrincipalArn=${BOT_ROLE}`);
  if (synth.status === 0) {
    template = JSON.parse(readFileSync(join(out, 'VideoService-dev.template.json'), 'utf8'));
    assertions = Template.fromJSON(template);
  }
  prodSynth = run(prodOut, 'stage=prod', `alarmEmail=${ALARM_EMAIL}`, `providers=${JSON.stringify(PROVIDERS)}`, `version=${PROD_VERSION}`);
  if (prodSynth.status === 0) {
    prod = JSON.parse(readFileSync(join(prodOut, 'VideoService-prod.template.json'), 'utf8'));
    prodEdge = JSON.parse(readFileSync(join(prodOut, 'VideoService-prod-edge.template.json'), 'utf8'));
  }
});
after(() => rmSync(prodOut, { recursive: true, force: true }));

describe('the CDK stack', () => {
  it('synthesizes with `cdk synth`, offline and with no AWS credentials', () => {
    assert.equal(synth.status, 0, synth.output.slice(-3000));
  });

  it('passes cdk-nag AwsSolutions in both stages: no finding left, each acknowledged one with its reason', () => {
    assert.equal(prodSynth.status, 0, `cdk synth -c stage=prod: ${prodSynth.output.slice(-3000)}`);
    for (const dir of [out, prodOut]) {
      const report = JSON.parse(readFileSync(join(dir, 'validation-report.json'), 'utf8'));
      const nag = report.pluginReports.find((p: { pluginName: string }) => p.pluginName === 'AwsSolutions');
      assert.ok(nag, 'the AwsSolutions pack ran');
      assert.deepEqual(nag.violations, []);
      assert.equal(nag.conclusion, 'success');
      for (const s of nag.suppressedViolations) assert.ok(s.reason?.length > 30, `${s.acknowledgedId} has a reason`);
    }
  });

  it('builds each stage as lib/stages.ts says: dev is deleted with its stack, prod is retained (except by a failed create) and protected', () => {
    const of = (t: Record<string, any>, type: string) =>
      Object.values(t.Resources as Record<string, Resource & { DeletionPolicy?: string; UpdateReplacePolicy?: string }>).filter((r) => r.Type === type);
    const policies = (t: Record<string, any>, type: string) => [...new Set(of(t, type).map((r) => `${r.DeletionPolicy}/${r.UpdateReplacePolicy}`))];
    const devTable = of(template, 'AWS::DynamoDB::GlobalTable')[0]!;
    const prodTable = of(prod, 'AWS::DynamoDB::GlobalTable')[0]!;
    // No table is created protected: CloudFormation cannot delete a protected table, so a failed first create would leave
    // it behind. Prod's is protected by the last resource its stack creates, which depends on every other one.
    assert.equal(devTable.Properties.Replicas[0].DeletionProtectionEnabled ?? false, false);
    assert.equal(prodTable.Properties.Replicas[0].DeletionProtectionEnabled ?? false, false);
    const protections = (t: Record<string, any>) =>
      Object.entries(t.Resources as Record<string, Resource & { DependsOn?: string[] }>).filter(
        ([, r]) => r.Type === 'Custom::AWS' && JSON.stringify(r.Properties.Create).includes('UpdateTable'),
      );
    assert.equal(protections(template).length, 0, 'dev: no deletion protection');
    const [[protectionId, protection]] = protections(prod) as [[string, Resource & { DependsOn?: string[] }]];
    const tableId = Object.keys(prod.Resources).find((id) => prod.Resources[id].Type === 'AWS::DynamoDB::GlobalTable')!;
    for (const phase of ['Create', 'Update']) {
      const call = JSON.stringify(protection.Properties[phase]);
      assert.ok(call.includes('\\"DeletionProtectionEnabled\\":true') && call.includes(`"Ref":"${tableId}"`), `${phase}: ${call}`);
    }
    assert.equal(protection.Properties.Delete, undefined, 'deleting the stack leaves the retained table protected');
    const others = Object.keys(prod.Resources).filter((id) => id !== protectionId && prod.Resources[id].Type !== 'AWS::CDK::Metadata');
    assert.deepEqual(
      others.filter((id) => !protection.DependsOn?.includes(id)),
      [],
      'the protection waits for every other resource',
    );
    // The files bucket's access logging is switched on by a resource created after every other one but the table's
    // protection, in both stages: until the create is through, S3 writes no log into the access-log bucket, so the
    // rollback of a failed create finds it empty and deletes it (a bucket with objects cannot be deleted).
    for (const t of [template, prod]) {
      const buckets = Object.entries(t.Resources as Record<string, Resource>).filter(([, r]) => r.Type === 'AWS::S3::Bucket');
      assert.deepEqual(
        buckets.map(([, r]) => r.Properties.LoggingConfiguration),
        buckets.map(() => undefined),
        'no bucket logs from its creation',
      );
      const loggings = Object.entries(t.Resources as Record<string, Resource & { DependsOn?: string[] }>).filter(
        ([, r]) => r.Type === 'Custom::AWS' && JSON.stringify(r.Properties.Create).includes('PutBucketLogging'),
      );
      assert.equal(loggings.length, 1);
      const [loggingId, logging] = loggings[0]!;
      const filesId = buckets.find(([id]) => id.startsWith('DataFiles') && !id.startsWith('DataFilesAccessLogs'))![0];
      const logsId = buckets.find(([id]) => id.startsWith('DataFilesAccessLogs'))![0];
      for (const phase of ['Create', 'Update']) {
        const call = JSON.stringify(logging.Properties[phase]);
        assert.ok(call.includes(`"Ref":"${filesId}"`) && call.includes(`"Ref":"${logsId}"`) && call.includes('\\"TargetPrefix\\":\\"files/\\"'), call);
      }
      assert.match(JSON.stringify(logging.Properties.Delete), /BucketLoggingStatus\\":\{\}/, 'deleted (a rollback), it switches logging off');
      const last = new Set(
        Object.keys(t.Resources).filter((id) => /^(FilesAccessLogging|TableDeletionProtection)/.test(id) || t.Resources[id].Type === 'AWS::CDK::Metadata'),
      );
      assert.deepEqual(
        Object.keys(t.Resources).filter((id) => !last.has(id) && !logging.DependsOn?.includes(id)),
        [],
        `${loggingId} waits for every resource but the table's protection`,
      );
      // S3 may deliver the files bucket's logs, and only those, into the access-log bucket's files/ prefix.
      const policy = Object.values(t.Resources as Record<string, Resource>).find(
        (r) => r.Type === 'AWS::S3::BucketPolicy' && r.Properties.Bucket.Ref === logsId,
      )!;
      const delivery = policy.Properties.PolicyDocument.Statement.find(
        (x: { Principal?: { Service?: string } }) => x.Principal?.Service === 'logging.s3.amazonaws.com',
      );
      assert.deepEqual(delivery.Action, 's3:PutObject');
      assert.deepEqual(delivery.Condition.ArnLike['aws:SourceArn'], { 'Fn::GetAtt': [filesId, 'Arn'] });
    }
    assert.ok(
      protection.DependsOn?.some((id) => id.startsWith('FilesAccessLogging')),
      'the protection comes after the logging',
    );
    // Prod keeps its data through updates (a replacement too) and the stack's deletion, but a rolled-back create deletes
    // what it made, so the retry of a failed first deploy finds no table, bucket, secret or log group in its way.
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      assert.deepEqual(policies(template, type), ['Delete/Delete'], `dev ${type}`);
      assert.deepEqual(policies(prod, type), ['RetainExceptOnCreate/Retain'], `prod ${type}`);
    }
    // A dev bucket is emptied before its deletion; a prod one never is.
    assert.equal(of(template, 'Custom::S3AutoDeleteObjects').length, 2);
    assert.equal(of(prod, 'Custom::S3AutoDeleteObjects').length, 0);
    const retention = (t: Record<string, any>) => [...new Set(of(t, 'AWS::Logs::LogGroup').map((r) => r.Properties.RetentionInDays))];
    assert.deepEqual([retention(template), retention(prod)], [[STAGES.dev.logRetentionDays], [STAGES.prod.logRetentionDays]]);
    const renderOf = (t: Record<string, any>) =>
      of(t, 'AWS::Lambda::Function').find((r) => r.Metadata?.['aws:cdk:path']?.endsWith('/step-render-video/Resource'))!;
    assert.deepEqual(
      [renderOf(template).Properties.ReservedConcurrentExecutions, renderOf(prod).Properties.ReservedConcurrentExecutions],
      // Both lanes' slots: the live lane's and the test lane's (test-mode orders).
      [STAGES.dev.renderSlots + STAGES.dev.testRenderSlots, STAGES.prod.renderSlots + STAGES.prod.testRenderSlots],
    );
    // Prod's slots are derived from its demand (lib/sizing.ts): 1,000 orders an hour at 15 s each, 70% busy.
    assert.equal(STAGES.prod.renderSlots, 6);
    assert.equal(renderOf(prod).Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL, STAGES.prod.logLevel);
    // The region is the stage's: in every ARN the stack builds.
    assert.ok(JSON.stringify(prod).includes(`:states:${STAGES.prod.region}:`));
    // Alarms mail the stage's addresses (here one given on the command line).
    assert.deepEqual(
      of(prod, 'AWS::SNS::Subscription').map((s) => [s.Properties.Protocol, s.Properties.Endpoint]),
      [['email', ALARM_EMAIL]],
    );
    assert.equal(of(template, 'AWS::SNS::Subscription').length, STAGES.dev.alarmEmails.length);
  });

  it("throttles each route at the stage's ceiling, and the costly ones lower", () => {
    for (const [t, stage] of [
      [template, STAGES.dev],
      [prod, STAGES.prod],
    ] as const) {
      const s = Object.values(t.Resources as Record<string, Resource>).find((r) => r.Type === 'AWS::ApiGatewayV2::Stage')!.Properties;
      assert.deepEqual(s.DefaultRouteSettings, { ThrottlingRateLimit: stage.throttle.default.rate, ThrottlingBurstLimit: stage.throttle.default.burst });
      const expected = Object.fromEntries(
        Object.entries(stage.throttle.routes).map(([key, v]) => [deployedKey(key), { ThrottlingRateLimit: v.rate, ThrottlingBurstLimit: v.burst }]),
      );
      assert.deepEqual(s.RouteSettings, expected);
      // Each throttled route is a route of the API (a setting for a missing route fails the deployment).
      const keys = Object.values(t.Resources as Record<string, Resource>)
        .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
        .map((r) => r.Properties.RouteKey);
      for (const k of Object.keys(expected)) assert.ok(keys.includes(k), k);
    }
    assert.ok(STAGES.prod.throttle.routes['POST /videos:quick'].rate < STAGES.prod.throttle.default.rate);
  });

  it('tags every resource that takes tags with service and stage, in both stages, and none with the version', () => {
    for (const [t, stage] of [
      [template, 'dev'],
      [prod, 'prod'],
    ] as const) {
      const taggable = new Set(
        Object.values(t.Resources as Record<string, Resource>)
          .filter((r) => r.Properties?.Tags)
          .map((r) => r.Type),
      );
      for (const type of ['AWS::Lambda::Function', 'AWS::IAM::Role', 'AWS::S3::Bucket', 'AWS::StepFunctions::StateMachine', 'AWS::SNS::Topic'])
        assert.ok(taggable.has(type), `${stage}: ${type} carries tags`);
      for (const [id, r] of Object.entries(t.Resources as Record<string, Resource>)) {
        const tags = r.Type === 'AWS::DynamoDB::GlobalTable' ? r.Properties.Replicas[0].Tags : r.Properties?.Tags;
        if (!taggable.has(r.Type) && r.Type !== 'AWS::DynamoDB::GlobalTable') continue;
        const map = Array.isArray(tags) ? Object.fromEntries(tags.map((x: { Key: string; Value: string }) => [x.Key, x.Value])) : tags;
        assert.deepEqual({ service: map?.service, stage: map?.stage }, { service: 'video-service', stage }, `${stage} ${id}`);
        // A tag that changes at every commit would update every tagged resource at every deploy.
        assert.ok(!Object.hasOwn(map ?? {}, 'version'), `${stage} ${id} carries no version tag`);
      }
    }
  });

  it('records the version once per deploy: an SSM parameter (a resource, so always updated) and the Version output', () => {
    const packageVersion = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    for (const [t, stage, version] of [
      [template, 'dev', packageVersion],
      [prod, 'prod', PROD_VERSION],
    ] as const) {
      const parameters = Object.values(t.Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::SSM::Parameter');
      assert.deepEqual(
        parameters.map((r) => [r.Properties.Name, r.Properties.Value]),
        [[`/VideoService-${stage}/version`, version]],
      );
      assert.equal(t.Outputs.Version.Value, version, stage);
      // Nothing else in the template carries it: only the parameter changes when only the version does.
      assert.equal(JSON.stringify(t.Resources).split(JSON.stringify(version)).length - 1, 1, `${stage}: the version appears once`);
    }
    // The deploy's concurrency check finds the render function through this output (bin/preflight.ts).
    assert.deepEqual(template.Outputs.RenderFunctionName.Value, { Ref: fn('step', 'render-video')[0] });
    assert.deepEqual(template.Outputs.DeliverFunctionName.Value, { Ref: fn('step', 'deliver-event')[0] });
  });

  it('routes every spec route to the function of its handler, and $default to the 404, with no colon in a route key', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    for (const spec of SPEC_ROUTES)
      assert.ok(
        ROUTES.some((r) => `${r.method} ${r.path}` === spec),
        `${spec} is in the route table`,
      );
    for (const r of [
      ...DEPLOYED_ROUTES.map((x) => ({ key: `${x.method} ${x.path}`, handler: x.handler })),
      { key: '$default', handler: DEFAULT_ROUTE.handler },
    ]) {
      const route = routes.find((p) => p.RouteKey === r.key);
      assert.ok(route, `route ${r.key}`);
      const integration = template.Resources[(route.Target['Fn::Join'][1][1] as { Ref: string }).Ref] as Resource;
      assert.deepEqual(integration.Properties.IntegrationUri, { 'Fn::GetAtt': [fn('http', r.handler)[0], 'Arn'] }, r.key);
      assert.equal(integration.Properties.PayloadFormatVersion, '2.0');
    }
    assert.equal(routes.length, DEPLOYED_ROUTES.length + 1);
    // HTTP API documents no colon inside a route key: the custom methods share one whose variable is the whole segment.
    assert.deepEqual(
      routes.filter((p) => p.RouteKey.includes(':')),
      [],
    );
    assert.deepEqual([deployedKey('POST /videos:quick'), deployedKey('POST /videos:quote')], ['POST /v1/{customMethod}', 'POST /v1/{customMethod}']);
  });

  it('answers 401 in the error envelope from every bundled function behind a keyed route, and not from the open ones', async (t) => {
    Object.assign(process.env, {
      TABLE_NAME: 'none',
      BUCKET_NAME: 'none',
      PUBLIC_BASE_URL: 'https://api.example.com/v1',
      LINK_SIGNING_KEY: 'k',
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
    });
    // Each bundle loaded as Lambda loads it: its folder alone, with no node_modules of the project's up the tree (a
    // module the bundle left to the runtime, such as ffmpeg's npm package, fails here as it would at a cold start).
    const alone = mkdtempSync(join(tmpdir(), 'lambda-bundles-'));
    t.after(() => rmSync(alone, { recursive: true, force: true }));
    for (const r of ROUTES) {
      const key = `${r.method} ${r.path}`;
      // The function that serves the route on AWS, in a module instance of its own (the query), apart from the one the
      // local stack below imports.
      const deployed = DEPLOYED_ROUTES.find((d) => `${d.method} ${d.path}` === deployedKey(key))!;
      const folder = join(alone, deployed.handler);
      if (!existsSync(folder)) cpSync(dirname(bundleOf('http', deployed.handler)), folder, { recursive: true });
      const { handler } = (await import(`${pathToFileURL(join(folder, 'index.mjs')).href}?keyless`)) as {
        handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>;
      };
      const event = {
        version: '2.0',
        routeKey: deployedKey(key),
        rawPath: `${API_PREFIX}${r.path.replace(/\{\w+\}/g, 'x')}`,
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        pathParameters: { id: 'x', file: 'video.mp4', customMethod: r.path.split('/').at(-1) },
        requestContext: { requestId: 'req-1', http: { method: r.method } },
        body: '{}',
        isBase64Encoded: false,
      };
      const res = await handler(event, { awsRequestId: 'req-1', functionName: deployed.handler, getRemainingTimeInMillis: () => 1000 });
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

  it('bundles the AWS SDK into every function: no bundle imports an @aws-sdk package from outside, so Lambda runs the tested version', () => {
    const functions = ofType('AWS::Lambda::Function').filter(([, r]) => /\/(http|step|bot|job)-[\w-]+\/Resource$/.test(r.Metadata?.['aws:cdk:path'] ?? ''));
    assert.equal(
      functions.length,
      // Every deployed function (the least-privilege test checks the table names exactly these).
      Object.keys(FUNCTION_ACCESS).length,
    );
    for (const [, r] of functions) {
      const render = Boolean(r.Metadata!['aws:asset:dockerfile-path']);
      const code = readFileSync(join(out, r.Metadata!['aws:asset:path']!, ...(render ? ['app'] : []), 'index.mjs'), 'utf8');
      // The DynamoDB client's protocol version: only its own code holds it.
      assert.ok(code.includes('DynamoDB_20120810'), `${r.Metadata!['aws:cdk:path']} holds the SDK`);
      // A minified import of a package, static or dynamic (the SDK's own error messages show one with a space).
      assert.doesNotMatch(code, /(\bfrom|\bimport\(?)["']@aws-sdk\//, r.Metadata!['aws:cdk:path']);
    }
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

  it('logs each state machine into a group under /aws/vendedlogs/states/, named by stack, stage and machine', () => {
    const names = (t: Record<string, any>, stage: string) =>
      Object.values(t.Resources as Record<string, Resource>)
        .filter((r) => r.Type === 'AWS::StepFunctions::StateMachine')
        .map((m) => {
          const target = m.Properties.LoggingConfiguration.Destinations[0].CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0] as string;
          const group = t.Resources[target] as Resource;
          assert.equal(group.Type, 'AWS::Logs::LogGroup');
          // "/aws/vendedlogs/states/<stack>-<machine>-" and the first part of the stack id's UUID.
          const [prefix, suffix] = group.Properties.LogGroupName['Fn::Join'][1];
          assert.deepEqual(suffix, {
            'Fn::Select': [0, { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] }],
          });
          assert.equal(prefix, `/aws/vendedlogs/states/${m.Properties.StateMachineName}-`, stage);
          assert.ok(prefix.startsWith(`/aws/vendedlogs/states/VideoService-${stage}-`), prefix);
          return prefix as string;
        });
    const all = [...names(template, 'dev'), ...names(prod, 'prod')];
    assert.equal(all.length, 2 * Object.keys(STATE_MACHINES).length);
    assert.equal(new Set(all).size, all.length, 'unique per stage and machine');
  });

  it("lets Lambda pass on the functions' logs at the stage's level (DEBUG in dev), and its own REPORT lines in every stage", () => {
    for (const [t, stage] of [
      [template, STAGES.dev],
      [prod, STAGES.prod],
    ] as const) {
      const functions = Object.values(t.Resources as Record<string, Resource>).filter(
        (r) => r.Type === 'AWS::Lambda::Function' && /\/(http|step|bot|job)-[\w-]+\/Resource$/.test(r.Metadata?.['aws:cdk:path'] ?? ''),
      );
      assert.ok(functions.length > 30);
      for (const f of functions)
        assert.deepEqual(
          f.Properties.LoggingConfig,
          {
            LogFormat: 'JSON',
            ApplicationLogLevel: stage.logLevel,
            SystemLogLevel: stage.logLevel === 'DEBUG' ? 'DEBUG' : 'INFO',
            LogGroup: f.Properties.LoggingConfig.LogGroup,
          },
          f.Metadata?.['aws:cdk:path'],
        );
    }
    assert.deepEqual([STAGES.dev.logLevel, STAGES.prod.logLevel], ['DEBUG', 'INFO']);
  });

  it('grants each function exactly the data actions lib/access.ts names, with no wildcard action or resource on data', () => {
    const functions = [
      ...DEPLOYED_ROUTES.map((r) => ['http', r.handler] as const),
      ['http', DEFAULT_ROUTE.handler] as const,
      ...STEPS.map((s) => ['step', s.module] as const),
      ...BOT_FUNCTIONS.map((name) => ['bot', name] as const),
      ...JOBS.map((j) => ['job', j.name] as const),
      ...INVOKED.map((f) => ['job', f.name] as const),
      ...EXECUTION_LISTENERS.map((l) => ['job', l.name] as const),
    ];
    for (const [kind, name] of functions) {
      const statements = statementsOf(fn(kind, name)[0]);
      const access = FUNCTION_ACCESS[name]!;
      const dataActions = statements.flatMap(actionsOf).filter((a) => /^(dynamodb|s3|secretsmanager|states|lambda):/.test(a));
      for (const a of dataActions) assert.doesNotMatch(a, /\*/, `${name}: ${a}`);
      for (const s of statements.filter((x) => actionsOf(x).some((a) => /^(dynamodb|s3):/.test(a)))) {
        const text = JSON.stringify(s.Resource);
        assert.ok(!/"\*"/.test(text) && !/\/\*"/.test(text.replace('/orders/*', '').replace('/assets/*', '')), `${name}: ${text}`);
      }
      const expect = [
        ...(access.table ?? []).map((a) => `dynamodb:${a}`),
        ...(access.bucket ?? []).map((a) => `s3:${a}`),
        ...(access.assets ?? []).map((a) => `s3:${a}`),
        ...(access.listBucket || access.listAssets ? ['s3:ListBucket'] : []),
        ...(access.linkKey ? ['secretsmanager:GetSecretValue'] : []),
        ...(access.orderMachine ?? []).map((a) => `states:${a}`),
        ...(access.startDelivery ? ['states:StartExecution'] : []),
        ...(access.describeExecutions?.length ? ['states:DescribeExecution'] : []),
        ...(access.stopOrders ? ['states:StopExecution'] : []),
        ...(access.checkAssets ? ['lambda:InvokeFunction'] : []),
      ];
      assert.deepEqual([...new Set(dataActions)].sort(), [...new Set(expect)].sort(), name);
    }
  });

  it("grants Step Functions' actions on the resources AWS documents: task tokens on *, starts on the machine, reads and stops on its executions", () => {
    // Service Authorization Reference (list_awsstepfunctions): StartExecution takes stateMachine*, DescribeExecution and
    // StopExecution execution*, and SendTaskSuccess/Failure/Heartbeat no resource type at all (Resource "*").
    const byAction = new Map<string, Set<string>>();
    let tokenUsers = 0;
    for (const [id, r] of ofType('AWS::Lambda::Function')) {
      const name = r.Metadata?.['aws:cdk:path']?.split('/')[1];
      for (const s of statementsOf(id)) {
        for (const a of actionsOf(s).filter((x) => x.startsWith('states:'))) {
          const text = JSON.stringify(s.Resource);
          const kind =
            text === '"*"' ? '*' : text.includes(':execution:') ? 'executions' : /:stateMachine:|"Ref":"\w*machine\w*"/.test(text) ? 'machine' : text;
          if (!byAction.has(a)) byAction.set(a, new Set());
          byAction.get(a)!.add(kind);
          if (a === 'states:SendTaskSuccess') {
            tokenUsers++;
            // Alone in its statement: the * reaches no other action.
            assert.deepEqual(actionsOf(s), ['states:SendTaskSuccess'], `${name}: ${JSON.stringify(s)}`);
          }
        }
      }
    }
    assert.ok(tokenUsers > 5, `${tokenUsers} functions complete task tokens`);
    assert.deepEqual(Object.fromEntries([...byAction].map(([a, kinds]) => [a, [...kinds].sort()])), {
      'states:SendTaskSuccess': ['*'],
      'states:StartExecution': ['machine'],
      'states:DescribeExecution': ['executions'],
      'states:StopExecution': ['executions'],
    });
  });

  it('gives each AI provider to the functions that call it, its key only as a secret they may read, and its address to those taking orders', () => {
    const prodFn = (kind: string, name: string) =>
      Object.values(prod.Resources as Record<string, Resource>).find((r) => r.Metadata?.['aws:cdk:path'] === `VideoService-prod/${kind}-${name}/Resource`)!;
    const generatorEnv = (r: Resource) =>
      Object.fromEntries(Object.entries((r.Properties.Environment?.Variables ?? {}) as Record<string, string>).filter(([k]) => k.startsWith('GENERATOR_')));
    const keyReads = (r: Resource) => {
      const role = r.Properties.Role['Fn::GetAtt'][0] as string;
      return Object.values(prod.Resources as Record<string, Resource>)
        .filter((p) => p.Type === 'AWS::IAM::Policy' && (p.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string; Resource: unknown }[])
        .filter((st) => st.Action === 'secretsmanager:GetSecretValue' && !JSON.stringify(st.Resource).includes('LinkSigningKey'))
        .map((st) => JSON.stringify(st.Resource));
    };
    const llm = { GENERATOR_LLM_URL: PROVIDERS.llm.url, GENERATOR_LLM_API_KEY_SECRET: 'video-service/llm-key' };
    for (const step of ['plan-order', 'write-script', 'regen-script', 'prepare-order']) {
      assert.deepEqual(generatorEnv(prodFn('step', step)), llm, step);
      // By name: IAM matches the secret's ARN with the six characters Secrets Manager appends to the name.
      assert.deepEqual(keyReads(prodFn('step', step)), [
        JSON.stringify({
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':secretsmanager:eu-central-1:', { Ref: 'AWS::AccountId' }, ':secret:video-service/llm-key-??????'],
          ],
        }),
      ]);
    }
    const render = prodFn('step', 'render-video');
    assert.deepEqual(generatorEnv(render), {
      GENERATOR_IMAGES_URL: PROVIDERS.images.url,
      GENERATOR_IMAGES_MODEL: 'image-model-2',
      GENERATOR_IMAGES_API_KEY_SECRET: IMAGES_KEY_ARN,
      GENERATOR_SPEECH_URL: PROVIDERS.speech.url,
      GENERATOR_SPEECH_TIMEOUT_MS: '45000',
      GENERATOR_SPEECH_CLONE_VOICE: 'voice_0123',
    });
    assert.deepEqual(keyReads(render), [JSON.stringify(IMAGES_KEY_ARN)]);
    const offered = { GENERATOR_IMAGES_URL: PROVIDERS.images.url, GENERATOR_SPEECH_URL: PROVIDERS.speech.url, GENERATOR_SPEECH_CLONE_VOICE: 'voice_0123' };
    for (const [kind, name] of [
      ['http', 'create-video'],
      ['http', 'custom-methods'],
      ['bot', 'place-order'],
    ] as const) {
      assert.deepEqual(generatorEnv(prodFn(kind, name)), offered, name);
      assert.deepEqual(keyReads(prodFn(kind, name)), [], name);
    }
    // Every other function knows nothing of the providers.
    const known = ['plan-order', 'write-script', 'regen-script', 'prepare-order', 'render-video', 'create-video', 'custom-methods', 'place-order'];
    for (const r of Object.values(prod.Resources as Record<string, Resource>).filter((x) => x.Type === 'AWS::Lambda::Function')) {
      const path = r.Metadata?.['aws:cdk:path'] ?? '';
      if (!/\/(http|step|bot|job)-/.test(path) || known.some((k) => path.endsWith(`-${k}/Resource`))) continue;
      assert.deepEqual([generatorEnv(r), keyReads(r)], [{}, []], path);
    }
    // Without providers (dev here) no function gets any.
    for (const [, r] of ofType('AWS::Lambda::Function')) assert.deepEqual(generatorEnv(r), {}, r.Metadata?.['aws:cdk:path']);
  });

  it('lets the download route list the bucket, with no condition a read cannot meet: S3 answers a missing file 404 only to a caller that may list', () => {
    const [bucket] = ofType('AWS::S3::Bucket').find(([, r]) =>
      r.Properties.LifecycleConfiguration?.Rules?.some((x: { Prefix?: string }) => x.Prefix === 'orders/'),
    )!;
    const listing = (name: string) => statementsOf(fn('http', name)[0]).filter((s) => actionsOf(s).includes('s3:ListBucket'));
    assert.deepEqual(listing('download-file'), [{ Action: 's3:ListBucket', Effect: 'Allow', Resource: { 'Fn::GetAtt': [bucket, 'Arn'] } }]);
    // Taking orders lists only within assets/ (a listing carries s3:prefix): whether an asset was uploaded.
    assert.deepEqual(listing('create-video'), [
      {
        Action: 's3:ListBucket',
        Condition: { StringLike: { 's3:prefix': 'assets/*' } },
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [bucket, 'Arn'] },
      },
    ]);
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

  it('sends the status-change events of failed, timed-out and aborted executions of both machines to the recovery', () => {
    const [id] = fn('job', 'recover');
    const rules = ofType('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets).includes(id));
    assert.equal(rules.length, 1);
    const [, rule] = rules[0]!;
    const pattern = rule.Properties.EventPattern;
    assert.deepEqual(
      [pattern.source, pattern['detail-type'], pattern.detail.status],
      [['aws.states'], ['Step Functions Execution Status Change'], ['FAILED', 'TIMED_OUT', 'ABORTED']],
    );
    const machines = ofType('AWS::StepFunctions::StateMachine').map(([logical]) => logical);
    assert.deepEqual(pattern.detail.stateMachineArn.map((a: { Ref: string }) => a.Ref).sort(), machines.sort());
    assert.deepEqual(rule.Properties.Targets[0].RetryPolicy, { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 2 });
  });

  it('keeps the data safe: TTL, point-in-time recovery, encryption, no public access, TLS only, the 30-day lifecycle', () => {
    // The index of a user's orders holds its keys only (the order ids are in them): no balance or secret is copied.
    assertions.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'GSI1', Projection: { ProjectionType: 'KEYS_ONLY' } })],
    });
    // Retention and deletion protection are the prod stage's (the stages test); both stages keep these.
    for (const t of [assertions, Template.fromJSON(prod)]) {
      t.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      });
    }
    assertions.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'orders/', ExpirationInDays: 30, Status: 'Enabled' }),
          // The keys' uploaded pictures go after their 30 days too (their records' TTL).
          Match.objectLike({ Prefix: 'assets/', ExpirationInDays: 30, Status: 'Enabled' }),
          // A deleted picture's empty marker (which refuses its upload URL) after a day.
          Match.objectLike({ Prefix: 'assets/', ObjectSizeLessThan: 1, ExpirationInDays: 1, Status: 'Enabled' }),
        ]),
      },
    });
    assertions.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    assertions.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 64 }) });
  });

  it('runs every function on Node 24 with X-Ray, on arm64 but the render step and the asset check, sized for the render and limited to the slots', () => {
    for (const [id, f] of serviceFunctions()) {
      const render = id.startsWith('steprendervideo');
      // The render step and the asset check are images of AWS's Node.js 24 base image (lib/render-image/Dockerfile).
      const image = render || id.startsWith('jobcheckasset');
      if (!image) assert.equal(f.Properties.Runtime, 'nodejs24.x', id);
      else assert.equal(f.Properties.PackageType, 'Image', id);
      assert.deepEqual(f.Properties.TracingConfig, { Mode: 'Active' }, id);
      assert.deepEqual(f.Properties.Architectures, [image ? 'x86_64' : 'arm64'], id);
      if (render) {
        assert.equal(f.Properties.MemorySize, 3008);
        assert.equal(f.Properties.Timeout, 900);
        assert.deepEqual(f.Properties.EphemeralStorage, { Size: 2048 });
        // As many renders at once as the queue's two lanes have slots (renderSlots and testRenderSlots), and every
        // function knows both.
        assert.equal(f.Properties.ReservedConcurrentExecutions, STAGES.dev.renderSlots + STAGES.dev.testRenderSlots);
      } else if (image) {
        assert.equal(f.Properties.MemorySize, 1024, id);
        assert.equal(f.Properties.Timeout, 30, id);
        assert.equal(f.Properties.ReservedConcurrentExecutions, undefined, id);
      } else if (id.startsWith('stepdeliverevent')) {
        // Deliveries at most deliveryConcurrency at once: slow receivers cannot take the API's concurrency.
        assert.equal(f.Properties.ReservedConcurrentExecutions, STAGES.dev.deliveryConcurrency, id);
      } else {
        assert.equal(f.Properties.ReservedConcurrentExecutions, undefined, id);
      }
      assert.equal(f.Properties.Environment.Variables.RENDER_SLOTS, String(STAGES.dev.renderSlots), id);
      assert.equal(f.Properties.Environment.Variables.TEST_RENDER_SLOTS, String(STAGES.dev.testRenderSlots), id);
      assert.equal(f.Properties.Environment.Variables.LIMIT_RESENDS_PER_HOUR, String(STAGES.dev.limitResendsPerHour), id);
      assert.equal(f.Properties.Environment.Variables.LIMIT_REVIEWS_PENDING, String(STAGES.dev.limitReviewsPending), id);
    }
  });

  it("builds the render step as an image with Debian's maintained ffmpeg, of the release the function checks, from any host", () => {
    const [, render] = fn('step', 'render-video');
    assert.equal(render.Properties.PackageType, 'Image');
    assert.deepEqual(render.Metadata!['aws:asset:docker-build-args'], { FFMPEG_RELEASE, ...RENDER_IMAGE_BUILD });
    const context = join(out, render.Metadata!['aws:asset:path']!);
    const dockerfile = readFileSync(join(context, 'Dockerfile'), 'utf8');
    for (const line of [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own build-argument reference
      'FROM ${DEBIAN_IMAGE} AS ffmpeg',
      'apt-get install -y --no-install-recommends ffmpeg',
      'RUN sh /usr/local/bin/collect-ffmpeg.sh /usr/bin/ffmpeg /opt/ffmpeg "$FFMPEG_RELEASE"',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own build-argument reference
      'FROM ${LAMBDA_IMAGE}',
      'ENV FFMPEG_PATH=/opt/ffmpeg/bin/ffmpeg FFMPEG_RELEASE=$FFMPEG_RELEASE',
    ])
      assert.ok(dockerfile.includes(line), line);
    // Nothing of the host's platform goes in: the npm ffmpeg builds are x86-64 or arm64 binaries of 2018.
    assert.ok(!JSON.stringify(readdirSync(join(context, 'app', 'node_modules'), { recursive: true })).includes('ffmpeg-installer'));
    assert.match(readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8'), new RegExp(`ffmpeg ${FFMPEG_RELEASE.replace('.', '\\.')}.*Debian 13`));
  });

  it('ends a failed order in a succeeded execution; every Lambda Task outlives its function and retries what AWS says to', () => {
    const timeoutOf = (module: string) => fn('step', module)[1].Properties.Timeout as number;
    for (const [name, machine] of Object.entries(STATE_MACHINES)) {
      const asl = JSON.parse(readFileSync(join(ROOT, machine.file), 'utf8')) as { States: Record<string, any> };
      for (const step of STEPS.filter((s) => s.machine === name && !s.waitForTaskToken)) {
        const state = asl.States[step.state];
        // Step Functions must not time a Task out (and run it again) while its function may still be running.
        assert.ok(
          state.TimeoutSeconds >= timeoutOf(step.module),
          `${step.state}: ${state.TimeoutSeconds} s against the function's ${timeoutOf(step.module)} s`,
        );
      }
      for (const [stateName, state] of Object.entries(asl.States).filter(([, s]) => s.Type === 'Task')) {
        const retriers = state.Retry as { ErrorEquals: string[]; IntervalSeconds: number; MaxAttempts: number }[];
        const of = (error: string) => retriers.find((r) => r.ErrorEquals.includes(error));
        for (const e of ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.ClientExecutionTimeoutException'])
          assert.ok(of(e), `${stateName} retries ${e}`);
        const throttled = of('Lambda.TooManyRequestsException')!;
        assert.ok(throttled && throttled.IntervalSeconds >= 5 && throttled.MaxAttempts >= 6, `${stateName} backs off longer when Lambda throttles`);
        assert.ok(throttled !== of('Lambda.ServiceException'), `${stateName}: throttles have a retrier of their own`);
      }
    }
    // A failed generation is refunded and the execution succeeds: the failed-executions alarm is for infrastructure.
    const order = JSON.parse(readFileSync(join(ROOT, STATE_MACHINES.order.file), 'utf8')) as { States: Record<string, any> };
    assert.equal(order.States[order.States.MarkFailed.Next].Type, 'Succeed');
    assert.ok(!Object.values(order.States).some((s: { Type: string }) => s.Type === 'Fail'), 'no Fail state: an execution fails only when a step cannot run');
  });

  it('alarms on the 5xx rate, failed executions, dropped deliveries, throttles, the queue and recoveries, has a dashboard and outputs the base URL', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties));
    const count = (re: RegExp) => alarms.filter((a) => re.test(a)).length;
    const functionCount = Object.keys(FUNCTION_ACCESS).length;
    assert.equal(count(/"5xx"/), 1, 'API 5xx rate');
    // One blip does not page: a rate or a throttle needs 2 breaching periods of 3.
    assert.equal(count(/^(?=.*"5xx")(?=.*"DatapointsToAlarm":2,)(?=.*"EvaluationPeriods":3,)/), 1, 'the 5xx rate pages on 2 of 3 periods');
    assert.equal(count(/^(?=.*"ExecutionsFailed")(?=.*"ExecutionsTimedOut")/), 2, 'failed and timed-out executions of both state machines');
    assert.equal(
      count(/^(?=.*"MetricName":"ExecutionsAbortedUnexpectedly")(?=.*"DatapointsToAlarm":1,)(?=.*"EvaluationPeriods":1,)(?=.*"Threshold":1,)/),
      1,
      'an execution stopped from outside, at once',
    );
    assert.equal(
      count(/^(?=.*"ExecutionThrottled")(?=.*"DatapointsToAlarm":2,)(?=.*"EvaluationPeriods":3,)/),
      2,
      'throttled executions of both state machines',
    );
    assert.equal(count(/"WorkflowStartsFailed"/), 1, 'a charged order whose workflow did not start');
    assert.equal(
      count(/^(?=.*"MetricName":"Errors")(?=.*"DatapointsToAlarm":3,)(?=.*"EvaluationPeriods":5,)/),
      functionCount,
      "each function's error rate, 3 of 5",
    );
    for (const [id, f] of serviceFunctions()) {
      const near = ofType('AWS::CloudWatch::Alarm').filter(
        ([, a]) => a.Properties.MetricName === 'Duration' && JSON.stringify(a.Properties.Dimensions).includes(id),
      );
      assert.deepEqual(
        near.map(([, a]) => [a.Properties.Statistic, a.Properties.Threshold]),
        [['Maximum', f.Properties.Timeout * 1000 * 0.8]],
        `${id}: a call near its timeout`,
      );
    }
    assert.equal(count(/"WebhookDeliveriesDropped"/), 1, 'dropped deliveries');
    assert.equal(count(/"OldestWaitingApiSeconds".*"Threshold":900/), 1, 'an API order waiting 15 minutes for a render slot');
    assert.equal(
      count(/^(?=.*DIFF\(depth\) > 0)(?=.*"QueueDepthApi")(?=.*"Period":60)(?=.*"DatapointsToAlarm":15,)(?=.*"EvaluationPeriods":15,)/),
      1,
      'an API queue that grew in each of 15 minutes in a row',
    );
    assert.equal(count(/"OrdersRecovered".*"DeliveriesRecovered"/), 1, 'any order or delivery the sweep had to start');
    assert.equal(count(/^(?=.*"Throttles")(?=.*"DatapointsToAlarm":2,)(?=.*"EvaluationPeriods":3,)/), functionCount, 'throttles of every function, 2 of 3');
    assert.equal(count(/ThrottleEvents/), 1, 'table throttles');
    for (const a of ofType('AWS::CloudWatch::Alarm')) assert.equal(a[1].Properties.AlarmActions.length, 1, 'each alarm notifies the topic');
    assert.equal(ofType('AWS::CloudWatch::Dashboard').length, 1);
    const body = JSON.stringify(ofType('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody);
    for (const gauge of ['QueueDepthApi', 'QueueDepthBot', 'OldestWaitingApiSeconds', 'OldestWaitingBotSeconds', 'SlotsInUse', 'RenderSecondsPerVideoSecond'])
      assert.ok(body.includes(gauge), `the dashboard shows ${gauge}`);
    assert.ok(template.Outputs.BaseUrl, 'BaseUrl output');
    for (const o of ['TableName', 'BucketName', 'AlarmTopicArn']) assert.ok(template.Outputs[o], o);
  });

  it('pages prod on faults, not on business as usual: no alarm on aborted executions, step errors without their business outcomes', () => {
    assert.equal(prodSynth.status, 0, `cdk synth -c stage=prod: ${prodSynth.output.slice(-3000)}`);
    const alarms = Object.entries(prod.Resources as Record<string, Resource>).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
    const metricsOf = (a: Resource) =>
      [a.Properties, ...((a.Properties.Metrics ?? []) as { MetricStat?: { Metric: Record<string, any> } }[]).map((m) => m.MetricStat?.Metric)].filter(
        (m): m is Record<string, any> => Boolean(m?.MetricName),
      );
    // A customer's cancel and a deadline stop the execution: Step Functions counts it aborted, which pages nobody.
    assert.deepEqual(
      alarms.filter(([, a]) => metricsOf(a).some((m) => m.MetricName === 'ExecutionsAborted')).map(([id]) => id),
      [],
    );
    const stepModules = new Set(STEPS.map((st) => st.module));
    const errorAlarms = alarms.filter(([, a]) => metricsOf(a).some((m) => m.MetricName === 'Errors'));
    const fnOf = (a: Resource) => String(a.Metadata?.['aws:cdk:path']).split('/Errors-')[1]!.split('/')[0]!;
    assert.deepEqual(
      [...stepModules].filter((m) => !errorAlarms.some(([, a]) => fnOf(a) === m)),
      [],
      'every step function has its error rate',
    );
    for (const [id, a] of errorAlarms) {
      const fnName = fnOf(a);
      const outcomes = metricsOf(a).filter((m) => m.MetricName === 'StepOutcomeErrors');
      const expression = (a.Properties.Metrics as { Expression?: string }[]).find((m) => m.Expression)!.Expression;
      if (stepModules.has(fnName)) {
        assert.equal(expression, 'IF(calls >= 10, 100 * (errors - FILL(outcomes, 0)) / calls, 0)', id);
        assert.deepEqual(
          outcomes.map((m) => Object.fromEntries((m.Dimensions as { Name: string; Value: string }[]).map((d) => [d.Name, d.Value]))),
          [{ function: fnName, service: 'video-service', stage: 'prod' }],
          id,
        );
      } else assert.deepEqual([expression, outcomes], ['IF(calls >= 10, 100 * errors / calls, 0)', []], id);
    }
    // Every function is told its stage, which its metrics carry.
    for (const [id, f] of Object.entries(prod.Resources as Record<string, Resource>).filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
      if (f.Metadata?.['aws:cdk:path']?.includes('AutoDeleteObjects') || !f.Properties.Environment) continue;
      assert.equal(f.Properties.Environment.Variables.STAGE, 'prod', id);
    }
  });
});

describe('the edge in front of prod (per-caller fairness)', () => {
  const of = (t: Record<string, any>, type: string) => Object.entries(t.Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);
  const one = (t: Record<string, any>, type: string) => {
    const found = of(t, type);
    assert.equal(found.length, 1, type);
    return found[0]!;
  };
  /** A request path of a route, its parameters filled in. */
  const pathOf = (r: (typeof ROUTES)[number]) => `${API_PREFIX}${r.path.replace(/\{\w+\}/g, 'x')}`;

  it('limits each source address in AWS WAF, in us-east-1: every request, and the creation routes tighter, at the stage limits', () => {
    const manifest = JSON.parse(readFileSync(join(prodOut, 'manifest.json'), 'utf8'));
    assert.match(manifest.artifacts['VideoService-prod-edge'].environment, /\/us-east-1$/);
    const [, acl] = one(prodEdge, 'AWS::WAFv2::WebACL');
    assert.deepEqual([acl.Properties.Scope, acl.Properties.DefaultAction], ['CLOUDFRONT', { Allow: {} }]);
    const rules = acl.Properties.Rules as Record<string, any>[];
    const limits = rules.map((r) => {
      const { Limit, AggregateKeyType, EvaluationWindowSec } = r.Statement.RateBasedStatement;
      return [r.Name, AggregateKeyType, EvaluationWindowSec, Limit];
    });
    assert.deepEqual(limits, [
      ['creations-per-address', 'IP', 60, STAGES.prod.edge.creationsPerMinute],
      ['requests-per-address', 'IP', 60, STAGES.prod.edge.requestsPerMinute],
    ]);
    // The tighter rule counts POST /v1/videos and POST /v1/videos:quick, the path URL-decoded twice (%3A and %253A are
    // a colon); the other counts everything.
    const byteMatches = (node: unknown): string[] =>
      !node || typeof node !== 'object'
        ? []
        : 'ByteMatchStatement' in node
          ? [
              (({ SearchString, TextTransformations }) =>
                `${SearchString} ${(TextTransformations as { Priority: number; Type: string }[]).map((x) => `${x.Priority}:${x.Type}`).join(' ')}`)(
                (node as any).ByteMatchStatement,
              ),
            ]
          : Object.values(node).flatMap(byteMatches);
    assert.deepEqual(byteMatches(rules[0]!.Statement.RateBasedStatement.ScopeDownStatement), [
      'POST 0:NONE',
      '/v1/videos 0:URL_DECODE 1:URL_DECODE',
      'POST 0:NONE',
      '/v1/videos:quick 0:URL_DECODE 1:URL_DECODE',
    ]);
    assert.equal(rules[1]!.Statement.RateBasedStatement.ScopeDownStatement, undefined);
    // Only what it blocks is logged.
    const [, logging] = one(prodEdge, 'AWS::WAFv2::LoggingConfiguration');
    assert.deepEqual(logging.Properties.LoggingFilter, {
      DefaultBehavior: 'DROP',
      Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
    });
    // WAF's prefix, and a name of its own per stack: the retained group of a torn-down stack does not block the next.
    const [, wafLogs] = one(prodEdge, 'AWS::Logs::LogGroup');
    assert.deepEqual(wafLogs.Properties.LogGroupName['Fn::Join'][1].slice(0, 1), ['aws-waf-logs-video-service-prod-']);
    assert.match(JSON.stringify(wafLogs.Properties.LogGroupName), /"Ref":"AWS::StackId"/);
    assert.equal((wafLogs as { DeletionPolicy?: string }).DeletionPolicy, 'RetainExceptOnCreate');
  });

  it("answers an address past a limit 429 with Retry-After, in the contract's error envelope as the document lists it for every route", () => {
    const [, acl] = one(prodEdge, 'AWS::WAFv2::WebACL');
    for (const rule of acl.Properties.Rules as Record<string, any>[]) {
      const response = rule.Action.Block.CustomResponse;
      assert.equal(response.ResponseCode, 429);
      assert.deepEqual(response.ResponseHeaders, [{ Name: 'Retry-After', Value: '60' }]);
      const body = acl.Properties.CustomResponseBodies[response.CustomResponseBodyKey];
      assert.equal(body.ContentType, 'APPLICATION_JSON');
      const parsed = JSON.parse(body.Content);
      assert.equal(parsed.error.code, 'rate_limited');
      assert.match(parsed.error.message, new RegExp(`More than ${rule.Statement.RateBasedStatement.Limit} `));
      for (const r of ROUTES) checkAgainstContract(r.method, pathOf(r), 429, 'application/json', parsed);
    }
  });

  it('puts CloudFront in front: the API its only origin, with the origin-verify header from the secret; nothing cached, every method, every header the API reads; IPv4', () => {
    const [distId, dist] = one(prod, 'AWS::CloudFront::Distribution');
    const config = dist.Properties.DistributionConfig;
    const [apiId] = one(prod, 'AWS::ApiGatewayV2::Api');
    const [secretId] = of(prod, 'AWS::SecretsManager::Secret').find(([, r]) => r.Metadata?.['aws:cdk:path']?.includes('/Edge/OriginVerify/'))!;
    assert.equal(config.Origins.length, 1);
    const [origin] = config.Origins;
    assert.deepEqual(origin.DomainName, { 'Fn::Join': ['', [{ Ref: apiId }, `.execute-api.${STAGES.prod.region}.`, { Ref: 'AWS::URLSuffix' }]] });
    assert.deepEqual(origin.CustomOriginConfig, { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    // A dynamic reference: CloudFormation reads the value when it deploys, and it is in neither the template nor the code.
    assert.deepEqual(origin.OriginCustomHeaders, [
      { HeaderName: 'x-origin-verify', HeaderValue: { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] } },
    ]);
    const behavior = config.DefaultCacheBehavior;
    assert.equal(config.CacheBehaviors, undefined, 'one behavior for every path');
    assert.deepEqual([...behavior.AllowedMethods].sort(), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    assert.equal(behavior.ViewerProtocolPolicy, 'https-only');
    // AWS's managed policies (CloudFront developer guide, managed cache and origin request policies).
    const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    const FORWARDS: Record<string, (header: string) => boolean> = {
      // AllViewerExceptHostHeader: every header of the viewer's request but Host, all cookies and query strings.
      'b689b0a8-53d0-40ab-baf2-68738e2966ac': (h) => h !== 'host',
    };
    assert.equal(behavior.CachePolicyId, CACHING_DISABLED);
    const forwards = FORWARDS[behavior.OriginRequestPolicyId];
    assert.ok(forwards, `a known origin request policy: ${behavior.OriginRequestPolicyId}`);
    // The request headers the service reads: the document's API key header and header parameters, and the body's type.
    const doc = openApiDocument('https://api.example.com/v1') as Record<string, any>;
    const headers = new Set<string>(['content-type']);
    for (const scheme of Object.values(doc.components.securitySchemes ?? {}) as { in?: string; name?: string }[])
      if (scheme.in === 'header') headers.add(scheme.name!.toLowerCase());
    for (const path of Object.values(doc.paths) as Record<string, { parameters?: { in: string; name: string }[] }>[])
      for (const op of Object.values(path)) for (const p of op.parameters ?? []) if (p.in === 'header') headers.add(p.name.toLowerCase());
    assert.ok(headers.has('x-api-key') && headers.has('idempotency-key'), [...headers].join(', '));
    for (const h of headers) assert.ok(forwards(h), `${h} reaches the API`);
    assert.equal(config.IPV6Enabled, false);
    assert.deepEqual(config.WebACLId['Fn::GetStackOutput'] && { ...config.WebACLId['Fn::GetStackOutput'], OutputName: undefined }, {
      StackName: 'VideoService-prod-edge',
      Region: 'us-east-1',
      OutputName: undefined,
    });
    assert.deepEqual(prodEdge.Outputs[config.WebACLId['Fn::GetStackOutput'].OutputName].Value, {
      'Fn::GetAtt': [one(prodEdge, 'AWS::WAFv2::WebACL')[0], 'Arn'],
    });
    // Its address is the API's public one: the BaseUrl output and the links every function builds.
    const address = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distId, 'DomainName'] }, '/v1']] };
    assert.deepEqual(prod.Outputs.BaseUrl.Value, address);
    for (const [id, f] of of(prod, 'AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.TABLE_NAME))
      assert.deepEqual(f.Properties.Environment.Variables.PUBLIC_BASE_URL, address, id);
  });

  it('checks the origin on every route of prod, $default too, before any function runs; dev has neither check nor distribution', () => {
    const [authorizerId, authorizer] = one(prod, 'AWS::ApiGatewayV2::Authorizer');
    const [verifierId, verifier] = of(prod, 'AWS::Lambda::Function').find(([, r]) =>
      r.Metadata?.['aws:cdk:path']?.endsWith('/Edge/edge-origin-verify/Resource'),
    )!;
    assert.deepEqual(
      {
        type: authorizer.Properties.AuthorizerType,
        identity: authorizer.Properties.IdentitySource,
        ttl: authorizer.Properties.AuthorizerResultTtlInSeconds,
        simple: authorizer.Properties.EnableSimpleResponses,
        fn: JSON.stringify(authorizer.Properties.AuthorizerUri).includes(verifierId),
      },
      { type: 'REQUEST', identity: ['$request.header.x-origin-verify'], ttl: 3600, simple: true, fn: true },
    );
    const routes = of(prod, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    assert.equal(routes.length, DEPLOYED_ROUTES.length + 1);
    for (const r of routes) assert.deepEqual([r.AuthorizationType, r.AuthorizerId], ['CUSTOM', { Ref: authorizerId }], r.RouteKey);
    // The check may read its secret and nothing else of the service.
    const [secretId] = of(prod, 'AWS::SecretsManager::Secret').find(([, r]) => r.Metadata?.['aws:cdk:path']?.includes('/Edge/OriginVerify/'))!;
    assert.deepEqual(verifier.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET_ARN, { Ref: secretId });
    assert.equal(verifier.Properties.Environment.Variables.TABLE_NAME, undefined);
    const role = verifier.Properties.Role['Fn::GetAtt'][0];
    const granted = of(prod, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((st) => actionsOf(st).some((a) => /^(dynamodb|s3|states|secretsmanager):/.test(a)));
    assert.deepEqual(
      granted.map((st) => [actionsOf(st), st.Resource]),
      [[['secretsmanager:GetSecretValue'], { Ref: secretId }]],
    );
    // dev: the API as it is, reached at its own address.
    assert.equal(ofType('AWS::ApiGatewayV2::Authorizer').length + ofType('AWS::CloudFront::Distribution').length, 0);
    for (const [, r] of ofType('AWS::ApiGatewayV2::Route')) assert.equal(r.Properties.AuthorizationType ?? 'NONE', 'NONE');
    assert.deepEqual(template.Outputs.BaseUrl.Value, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ofType('AWS::ApiGatewayV2::Api')[0]![0], 'ApiEndpoint'] }, '/v1']] });
  });

  it('bundles the origin check: the value passes, anything else does not', async () => {
    const [, verifier] = of(prod, 'AWS::Lambda::Function').find(([, r]) => r.Metadata?.['aws:cdk:path']?.endsWith('/Edge/edge-origin-verify/Resource'))!;
    const bundle = join(prodOut, verifier.Metadata!['aws:asset:path']!, 'index.mjs');
    process.env.ORIGIN_VERIFY = 'the-value';
    try {
      const { handler } = (await import(pathToFileURL(bundle).href)) as { handler: (e: unknown) => Promise<{ isAuthorized: boolean }> };
      const event = (value?: string) => ({ version: '2.0', type: 'REQUEST', headers: value === undefined ? {} : { 'x-origin-verify': value } });
      assert.deepEqual(await Promise.all([event('the-value'), event('the-valuE'), event(''), event()].map((e) => handler(e).then((r) => r.isAuthorized))), [
        true,
        false,
        false,
        false,
      ]);
    } finally {
      delete process.env.ORIGIN_VERIFY;
    }
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
    stack = await startLocalStack({
      bucketGrants: BUCKET_GRANTS,
      shortLived: true,
      port: 0,
      s3Dir: join(dir, 's3'),
      env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL' },
      moduleOf: bundleOf,
    });
    checkFetchesTo(stack.baseUrl);
    const { services } = await import('../../functions/app/services.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 500, trialVideos: 0, now: new Date() });
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

// The dashboard, AWS's linters and the limits table, on the templates synthesized above; last, so that cfn-lint, started
// when they exist, runs beside the tests above.
describeTemplateChecks(() => [out, prodOut]);
