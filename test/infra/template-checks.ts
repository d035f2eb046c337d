/**
 * What a deploy would find wrong with the synthesized templates, found before it: the dashboard against CloudWatch's
 * dashboard-body limits, AWS's linters (cfn-lint on both stages, asl-validator and the ASL language service on each
 * state machine as CloudFormation fills it), and a table of the documented limits those linters do not know and the
 * stack comes near. The stack test (stack.test.ts) calls this with the cloud assemblies its one `cdk synth` of each
 * stage wrote; every stack in them is checked (prod with the edge has two: its own and the web ACL's in us-east-1).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it, type TestContext } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { getLanguageService } from 'amazon-states-language-service';
import validate from 'asl-validator';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { EVENT_KEYS, eventIdOf } from '../../functions/core/close-order.ts';
import { EXECUTION_NAME_RE, eventExecution, newExecution, orderExecution } from '../../functions/core/executions.ts';
import { newOrderId, ORDER_ID_RE } from '../../functions/core/ids.ts';
import { MAX_REGENS } from '../../functions/core/orders.ts';
import { alarmWidgets, MAX_ALARMS_PER_WIDGET, METRICS_NAMESPACE } from '../../lib/observability.ts';
import { ROOT } from '../../lib/paths.ts';
import { validExecutionName } from '../../local/stepfunctions.ts';
import { NAME_PROPERTY, Resolver, type Template } from '../support/cfn-template.ts';

/** A stack of a cloud assembly, as its manifest names it. */
interface SynthesizedStack {
  name: string;
  /** The cloud assembly directory `cdk synth -o` wrote. */
  dir: string;
  file: string;
  region: string;
  /** Where `cdk deploy` uploads the template (the bootstrap bucket), if it does. */
  templateUrl?: string;
  template: Template;
}

/** Every CloudFormation stack of the cloud assemblies in `dirs`. */
function stacksOf(dirs: string[]): SynthesizedStack[] {
  return dirs.flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; environment?: string; properties?: { templateFile: string; stackTemplateAssetObjectUrl?: string } }>;
    };
    return Object.entries(manifest.artifacts)
      .filter(([, a]) => a.type === 'aws:cloudformation:stack')
      .map(([name, a]) => {
        const file = join(dir, a.properties!.templateFile);
        return {
          name,
          dir,
          file,
          region: a.environment!.split('/').at(-1)!,
          ...(a.properties!.stackTemplateAssetObjectUrl ? { templateUrl: a.properties!.stackTemplateAssetObjectUrl } : {}),
          template: JSON.parse(readFileSync(file, 'utf8')) as Template,
        };
      });
  });
}

const resolverOf = (s: SynthesizedStack) => new Resolver(s.template, s.name, s.region);
const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
type Dimension = { Name: string; Value: unknown };

// CloudWatch API Reference, "Dashboard Body Structure and Syntax": the limits of a dashboard body.
const WIDGET_TYPES = new Set(['metric', 'text', 'log', 'alarm', 'explorer']);
const MAX_WIDGETS = 500;
const MAX_METRICS_PER_WIDGET = 500;
const GRID_WIDTH = 24;
const MAX_HEIGHT = 1000;
const ALARM_SORTS = new Set(['default', 'stateUpdatedTimestamp', 'timestamp']);
const ALARM_STATES = new Set(['ALARM', 'INSUFFICIENT_DATA', 'OK']);

type Widget = { type: string; x?: number; y?: number; width?: number; height?: number; properties: Record<string, any> };

/** Each way a dashboard body breaks the documented limits, named; none for a body CloudWatch takes. */
export function dashboardProblems(body: { widgets: Widget[] }): string[] {
  const problems: string[] = [];
  const int = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
  if (!Array.isArray(body.widgets) || body.widgets.length > MAX_WIDGETS) problems.push(`widgets: 0-${MAX_WIDGETS} widgets`);
  for (const [i, w] of (body.widgets ?? []).entries()) {
    const at = `widget ${i} (${w.type} "${w.properties?.title ?? ''}")`;
    if (!WIDGET_TYPES.has(w.type)) problems.push(`${at}: type ${w.type}`);
    if (w.width !== undefined && !int(w.width, 1, GRID_WIDTH)) problems.push(`${at}: width ${w.width} not 1-${GRID_WIDTH}`);
    if (w.height !== undefined && !int(w.height, 1, MAX_HEIGHT)) problems.push(`${at}: height ${w.height} not 1-${MAX_HEIGHT}`);
    if ((w.x === undefined) !== (w.y === undefined)) problems.push(`${at}: x and y go together`);
    if (w.x !== undefined && !int(w.x, 0, GRID_WIDTH - 1)) problems.push(`${at}: x ${w.x} not 0-${GRID_WIDTH - 1}`);
    if (w.y !== undefined && !int(w.y, 0, Number.MAX_SAFE_INTEGER)) problems.push(`${at}: y ${w.y} below 0`);
    if ((w.x ?? 0) + (w.width ?? 6) > GRID_WIDTH) problems.push(`${at}: past the ${GRID_WIDTH}-column grid`);
    const p = w.properties ?? {};
    if (w.type === 'metric') {
      const metrics = (p.metrics ?? []) as unknown[][];
      if (metrics.length > MAX_METRICS_PER_WIDGET) problems.push(`${at}: ${metrics.length} metrics, over ${MAX_METRICS_PER_WIDGET}`);
      if (!metrics.length && !p.annotations?.alarms) problems.push(`${at}: neither metrics nor an alarm annotation`);
      if ((p.annotations?.alarms ?? []).length > 1) problems.push(`${at}: more than one alarm annotation`);
      if (typeof p.region !== 'string') problems.push(`${at}: no region`);
      const periods = [p.period, ...metrics.map((m) => (m.at(-1) as { period?: number } | undefined)?.period)].filter((x) => x !== undefined);
      for (const period of periods) if (!(Number.isInteger(period) && period >= 60 && period % 60 === 0)) problems.push(`${at}: period ${period}`);
      for (const m of metrics) {
        const id = (m.at(-1) as { id?: string } | undefined)?.id;
        if (id !== undefined && !/^[a-z]/.test(id)) problems.push(`${at}: metric id ${id} does not start with a lowercase letter`);
      }
    }
    if (w.type === 'alarm') {
      const alarms = p.alarms as unknown[];
      if (!Array.isArray(alarms) || alarms.length < 1 || alarms.length > MAX_ALARMS_PER_WIDGET)
        problems.push(`${at}: ${alarms?.length} alarms, not 1-${MAX_ALARMS_PER_WIDGET}`);
      for (const a of alarms ?? []) if (typeof a !== 'string' || !a.startsWith('arn:')) problems.push(`${at}: ${JSON.stringify(a)} is not an alarm ARN`);
      if (p.sortBy !== undefined && !ALARM_SORTS.has(p.sortBy)) problems.push(`${at}: sortBy ${p.sortBy}`);
      for (const s of p.states ?? []) if (!ALARM_STATES.has(s)) problems.push(`${at}: state ${s}`);
    }
  }
  return problems;
}

/** The dashboard's body as CloudFormation hands it to CloudWatch: the Fn::Join resolved, alarm ARNs and all. */
function dashboardBody(s: SynthesizedStack): { widgets: Widget[] } {
  const dashboards = ofType(s.template, 'AWS::CloudWatch::Dashboard');
  assert.equal(dashboards.length, 1, `${s.name}: one dashboard`);
  return JSON.parse(resolverOf(s).string(dashboards[0]![1].Properties!.DashboardBody));
}

type Lint = { code: number; stdout: string; stderr: string } | { missing: string };

/**
 * cfn-lint on every template, in one process (loading its schemas is a good part of its time), each in the region its
 * own metadata names; `missing` where the command is not installed. It runs in the background, beside other tests.
 */
async function cfnLint(stacks: SynthesizedStack[]): Promise<Lint> {
  const args = ['--format', 'json', '--', ...stacks.map((s) => s.file)];
  try {
    const { stdout, stderr } = await promisify(execFile)('cfn-lint', args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as Error & { code?: number | string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') return { missing: e.message };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

type AslState = { Type: string; Resource?: string; Parameters?: Record<string, unknown>; TimeoutSeconds?: number; TimeoutSecondsPath?: string } & Record<
  string,
  any
>;

/** Each state machine of a stage: its definition as CloudFormation fills it from the ASL asset, and its Task states. */
function machinesOf(s: SynthesizedStack) {
  const r = resolverOf(s);
  return ofType(s.template, 'AWS::StepFunctions::StateMachine').map(([id, m]) => {
    const p = m.Properties!;
    const substitutions = r.value(p.DefinitionSubstitutions ?? {}) as Record<string, string>;
    const file = readFileSync(join(s.dir, `asset.${p.DefinitionS3Location.Key}`), 'utf8');
    // CloudFormation's DefinitionSubstitutions: each ${key} of the definition becomes the key's value.
    const definition = file.replace(/\$\{([^}]+)\}/g, (whole, key: string) => substitutions[key] ?? whole);
    const tasks: [string, AslState][] = [];
    const walk = (states: Record<string, AslState>) => {
      for (const [name, state] of Object.entries(states)) {
        if (state.Type === 'Task') tasks.push([name, state]);
        for (const branch of state.Branches ?? []) walk(branch.States);
        for (const inner of [state.Iterator, state.ItemProcessor]) if (inner) walk(inner.States);
      }
    };
    walk(JSON.parse(file).States);
    // The function behind a Task: its Resource's placeholder (a direct invoke) or its FunctionName's (a token wait).
    const functionOf = (state: AslState) => {
      const placeholder = /^\$\{(\w+)\}$/.exec(String(state.Resource?.startsWith('${') ? state.Resource : state.Parameters?.FunctionName))?.[1];
      const target = (placeholder ? p.DefinitionSubstitutions?.[placeholder] : undefined) as { 'Fn::GetAtt'?: [string, string] } | undefined;
      const fn = target?.['Fn::GetAtt']?.[0];
      assert.ok(fn, `${id}: a Task's function is a substitution of a function's ARN`);
      return s.template.Resources[fn]!;
    };
    return { id, name: String(p.StateMachineName ?? id), definition, tasks, functionOf };
  });
}

// Lambda: "Lambda execution environment lifecycle": the Init phase (imports, the handler's module) may take up to 10 s
// before the timed invoke; a Task must not give up on a call Lambda may still be running.
const LAMBDA_INIT_SECONDS = 10;
/** Lambda's default function timeout (s), when the template sets none. */
const DEFAULT_TIMEOUT = 3;

/**
 * The longest ids the execution names are built from: an order id has one length (ORDER_ID_RE); an event id is the
 * order's and its change's key, the longest being the last review round (one, then one per regen); the moment is
 * the sweep's or a request's clock, taken here at the end of year 9999.
 */
function executionNames(): string[] {
  const orderId = newOrderId(2 ** 48 - 1);
  assert.match(orderId, ORDER_ID_RE);
  const keys = [EVENT_KEYS.error, EVENT_KEYS.done, EVENT_KEYS.awaitingReview(1 + MAX_REGENS)];
  const eventIds = keys.map((k) => eventIdOf(orderId, k));
  const latest = new Date('9999-12-31T23:59:59.999Z');
  return [
    orderExecution({ id: orderId }),
    ...eventIds.map((id) => eventExecution({ id })),
    ...[orderId, ...eventIds].flatMap((id) => [newExecution(id, 's', latest), newExecution(id, 'r', latest)]),
  ];
}

interface LimitRow {
  limit: string;
  /** The documented value, and the AWS page that documents it. */
  value: number;
  doc: string;
  /** `max`: the stack's figure may not pass the value; `min`: it may not fall below it. */
  bound: 'max' | 'min';
  /** The stack's figure, and each item that breaks the limit (or a rule beside it), named; undefined: not in it. */
  measure: (s: SynthesizedStack) => { figure: number; failures?: string[]; note?: string } | undefined;
}

const atMost = (limit: string, value: number, doc: string, measure: LimitRow['measure']): LimitRow => ({ limit, value, doc, bound: 'max', measure });
const atLeast = (limit: string, value: number, doc: string, measure: LimitRow['measure']): LimitRow => ({ limit, value, doc, bound: 'min', measure });

/** An explicit name's row: the longest explicit name of the type (names CloudFormation generates fit by design). */
const nameRow = (type: string, what: string, max: number, chars: RegExp, doc: string): LimitRow => ({
  limit: `${what} name length (characters ${chars.source})`,
  value: max,
  doc,
  bound: 'max',
  measure: (s) => {
    const r = resolverOf(s);
    const all = ofType(s.template, type);
    const names = all.filter(([, x]) => x.Properties?.[NAME_PROPERTY[type]!] !== undefined).map(([id]) => r.nameOf(id));
    return {
      figure: Math.max(0, ...names.map((n) => n.length)),
      failures: names.filter((n) => !chars.test(n)).map((n) => `${n}: characters`),
      note: `${names.length} named in the template, ${all.length - names.length} named by CloudFormation`,
    };
  },
});

const functions = (s: SynthesizedStack) => ofType(s.template, 'AWS::Lambda::Function');

const LIMITS: LimitRow[] = [
  // AWS CloudFormation User Guide, "AWS CloudFormation quotas".
  atMost('Resources per stack', 500, 'CloudFormation quotas', (s) => ({ figure: Object.keys(s.template.Resources).length })),
  atMost('Outputs per stack', 200, 'CloudFormation quotas', (s) => ({ figure: Object.keys(s.template.Outputs ?? {}).length })),
  atMost('Parameters per stack', 200, 'CloudFormation quotas', (s) => ({ figure: Object.keys(s.template.Parameters ?? {}).length })),
  // 1 MB for a template in S3; 51,200 bytes for one sent in the request. `cdk deploy` uploads it to the bootstrap
  // bucket and passes its URL (the manifest's stackTemplateAssetObjectUrl), so the S3 figure applies.
  atMost('Template body in S3 (bytes; cdk deploy uploads it to the bootstrap bucket)', 1_048_576, 'CloudFormation quotas', (s) => ({
    figure: statSync(s.file).size,
    failures: s.templateUrl ? [] : ['no stackTemplateAssetObjectUrl: the 51,200-byte request limit would apply'],
  })),
  // Lambda API Reference, "CreateFunction": FunctionName.
  nameRow('AWS::Lambda::Function', 'Function', 64, /^[A-Za-z0-9_-]+$/, 'Lambda CreateFunction'),
  // IAM User Guide, "IAM and AWS STS quotas"; IAM API Reference, "CreateRole".
  nameRow('AWS::IAM::Role', 'Role', 64, /^[\w+=,.@-]+$/, 'IAM and AWS STS quotas'),
  // Step Functions Developer Guide, "Step Functions service quotas"; names CloudWatch Logs can show.
  nameRow('AWS::StepFunctions::StateMachine', 'State machine', 80, /^[A-Za-z0-9_-]+$/, 'Step Functions service quotas'),
  // CloudWatch Logs API Reference, "CreateLogGroup".
  nameRow('AWS::Logs::LogGroup', 'Log group', 512, /^[.\-_/#A-Za-z0-9]+$/, 'CloudWatch Logs CreateLogGroup'),
  // CloudWatch API Reference, "PutMetricAlarm": AlarmName, ASCII.
  nameRow('AWS::CloudWatch::Alarm', 'Alarm', 255, /^[\x20-\x7e]+$/, 'CloudWatch PutMetricAlarm'),
  // CloudWatch API Reference, "PutDashboard": DashboardName.
  nameRow('AWS::CloudWatch::Dashboard', 'Dashboard', 255, /^[A-Za-z0-9_-]+$/, 'CloudWatch PutDashboard'),
  // Lambda Developer Guide, "Lambda quotas": 4 KB for all of a function's environment variables together. Measured
  // as their JSON (keys, values, quotes and separators), the references resolved at their deployed length.
  atMost("A function's environment variables (bytes, together)", 4096, 'Lambda quotas', (s) => {
    const r = resolverOf(s);
    const sizes = functions(s).map(([, f]) => Buffer.byteLength(JSON.stringify(r.value(f.Properties?.Environment?.Variables ?? {}))));
    return sizes.length ? { figure: Math.max(...sizes) } : undefined;
  }),
  // IAM User Guide, "IAM and AWS STS quotas": a role's inline policies together, 10,240 characters without white space.
  // CDK's grants are inline policies (AWS::IAM::Policy) on each function's role.
  atMost("A role's inline policies (characters, together)", 10_240, 'IAM and AWS STS quotas', (s) => {
    const r = resolverOf(s);
    const byRole = new Map<string, number>();
    for (const [, p] of ofType(s.template, 'AWS::IAM::Policy'))
      for (const role of p.Properties!.Roles as { Ref: string }[])
        byRole.set(role.Ref, (byRole.get(role.Ref) ?? 0) + JSON.stringify(r.value(p.Properties!.PolicyDocument)).length);
    for (const [id, role] of ofType(s.template, 'AWS::IAM::Role'))
      for (const p of role.Properties?.Policies ?? []) byRole.set(id, (byRole.get(id) ?? 0) + JSON.stringify(r.value(p.PolicyDocument)).length);
    return { figure: Math.max(0, ...byRole.values()) };
  }),
  // CloudWatch API Reference, "Dashboard Body Structure and Syntax": an alarm widget's `alarms`, 1-100 ARNs.
  atMost('Alarms per alarm-status widget (every alarm on the dashboard)', 100, 'CloudWatch Dashboard Body Structure and Syntax', (s) => {
    if (!ofType(s.template, 'AWS::CloudWatch::Dashboard').length) return undefined;
    const r = resolverOf(s);
    const shown = dashboardBody(s).widgets.filter((w) => w.type === 'alarm');
    const arns = new Set(shown.flatMap((w) => w.properties.alarms as string[]));
    const missing = ofType(s.template, 'AWS::CloudWatch::Alarm').filter(([id]) => !arns.has(r.getAtt(id, 'Arn')));
    return { figure: Math.max(0, ...shown.map((w) => w.properties.alarms.length)), failures: missing.map(([id]) => `${id} is not on the dashboard`) };
  }),
  // Step Functions API Reference, "StartExecution": name 1-80 characters; letters, digits, - and _ for CloudWatch
  // Logs. Every name the code builds (functions/core/executions.ts), from the longest ids it can be given.
  atMost('Execution name length (letters, digits, - and _)', 80, 'Step Functions StartExecution', (s) => {
    if (!machinesOf(s).length) return undefined;
    const names = executionNames();
    const bad = names.filter((n) => !EXECUTION_NAME_RE.test(n) || !validExecutionName(n));
    return { figure: Math.max(...names.map((n) => n.length)), failures: bad.map((n) => `${n}: characters`) };
  }),
  // Lambda Developer Guide, "Lambda execution environment lifecycle" (Init up to 10 s) and "Lambda quotas" (the
  // function timeout). A Task that gives up first lets its retry run the step twice at once.
  atLeast(
    "Task timeout less its function's timeout, for each Task that waits for the call (s)",
    LAMBDA_INIT_SECONDS,
    'Lambda execution environment lifecycle',
    (s) => {
      const margins: [string, number][] = [];
      const failures: string[] = [];
      for (const m of machinesOf(s))
        for (const [name, state] of m.tasks.filter(([, t]) => !String(t.Resource).includes('waitForTaskToken'))) {
          if (state.TimeoutSeconds === undefined) failures.push(`${m.name}.${name}: no TimeoutSeconds`);
          else margins.push([`${m.name}.${name}`, state.TimeoutSeconds - (m.functionOf(state).Properties?.Timeout ?? DEFAULT_TIMEOUT)]);
        }
      if (!margins.length) return failures.length ? { figure: 0, failures } : undefined;
      const [at, figure] = margins.reduce((a, b) => (b[1] < a[1] ? b : a));
      return { figure, failures, note: `the least at ${at}, of ${margins.length} Tasks` };
    },
  ),
  // Step Functions Developer Guide, "Step Functions service quotas": a standard execution runs at most a year. A
  // token wait (a render slot, a review) gives up before that; one with TimeoutSecondsPath reads the review deadline.
  atMost('Task-token wait (s), within the execution time', 365 * 24 * 3600, 'Step Functions service quotas', (s) => {
    const reviewDeadline = Math.max(...functions(s).map(([, f]) => Number(f.Properties?.Environment?.Variables?.REVIEW_DEADLINE_SECONDS ?? 0)));
    const waits: number[] = [];
    const failures: string[] = [];
    for (const m of machinesOf(s))
      for (const [name, state] of m.tasks.filter(([, t]) => String(t.Resource).includes('waitForTaskToken'))) {
        if (state.TimeoutSeconds !== undefined) waits.push(state.TimeoutSeconds);
        else if (state.TimeoutSecondsPath === '$.reviewTimeoutSeconds') waits.push(reviewDeadline);
        else failures.push(`${m.name}.${name}: no timeout`);
      }
    return waits.length || failures.length ? { figure: Math.max(0, ...waits), failures } : undefined;
  }),
  // Lambda Developer Guide, "Lambda quotas" (1,000 concurrent executions by default) and "Configuring reserved
  // concurrency" (100 always left unreserved): the reservations of a stack deployed to a default account.
  atMost(
    'Reserved concurrency, in an account at the default 1,000 (100 stay unreserved)',
    1000 - 100,
    'Lambda quotas; Configuring reserved concurrency',
    (s) => ({ figure: functions(s).reduce((sum, [, f]) => sum + (f.Properties?.ReservedConcurrentExecutions ?? 0), 0) }),
  ),
];

/**
 * The checks, as describe blocks. Call it after the tests that should run while cfn-lint works: it starts cfn-lint
 * (some 10 s of CPU) in a before hook of the file, as soon as the templates exist, and its test only reads the result.
 */
export function describeTemplateChecks(assemblies: () => string[]): void {
  let all: SynthesizedStack[] = [];
  const stacks = () => all;
  let lint: Promise<Lint> | undefined;
  before(() => {
    all = stacksOf(assemblies());
    lint = cfnLint(all);
    lint.catch(() => undefined);
  });

  describe('the dashboard', () => {
    it("shows every alarm, in alarm widgets of at most 100, each widget within CloudWatch's dashboard-body limits", () => {
      assert.ok(
        stacks().some((s) => ofType(s.template, 'AWS::CloudWatch::Dashboard').length),
        'a dashboard to check',
      );
      for (const s of stacks()) {
        const r = resolverOf(s);
        if (!ofType(s.template, 'AWS::CloudWatch::Dashboard').length) {
          assert.deepEqual(ofType(s.template, 'AWS::CloudWatch::Alarm'), [], `${s.name}: no alarm without a dashboard`);
          continue;
        }
        const body = dashboardBody(s);
        assert.deepEqual(dashboardProblems(body), [], s.name);
        const shown = body.widgets.filter((w) => w.type === 'alarm').flatMap((w) => w.properties.alarms as string[]);
        const alarms = ofType(s.template, 'AWS::CloudWatch::Alarm').map(([id]) => r.getAtt(id, 'Arn'));
        assert.deepEqual([...shown].sort(), [...alarms].sort(), `${s.name}: each alarm once`);
      }
    });

    it("reads every metric of the service's namespace, in the alarms and on the dashboard, by the service and the stack's stage", () => {
      // What the functions write (functions/adapters/metrics.ts): these dimension sets exactly, or CloudWatch finds no data.
      const SETS = new Set(['service,stage', 'function,service,stage']);
      for (const s of stacks()) {
        if (!ofType(s.template, 'AWS::CloudWatch::Dashboard').length) continue;
        const stage = s.name.replace(/^VideoService-/, '');
        const problems: string[] = [];
        const check = (where: string, dims: Record<string, unknown>) => {
          if (!SETS.has(Object.keys(dims).sort().join(','))) problems.push(`${where}: dimensions ${Object.keys(dims).join(', ')}`);
          if (dims.service !== 'video-service' || dims.stage !== stage) problems.push(`${where}: service ${dims.service}, stage ${dims.stage}`);
        };
        let read = 0;
        for (const [id, a] of ofType(s.template, 'AWS::CloudWatch::Alarm')) {
          const p = a.Properties as {
            Namespace?: string;
            Dimensions?: Dimension[];
            Metrics?: { MetricStat?: { Metric: { Namespace: string; Dimensions?: Dimension[] } } }[];
          };
          const metrics = [p, ...(p.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []))];
          for (const m of metrics.filter((m) => m.Namespace === METRICS_NAMESPACE)) {
            read++;
            check(id, Object.fromEntries((m.Dimensions ?? []).map((d) => [d.Name, d.Value])));
          }
        }
        for (const w of dashboardBody(s).widgets.filter((w) => w.type === 'metric')) {
          for (const m of (w.properties.metrics ?? []) as unknown[][]) {
            if (m[0] !== METRICS_NAMESPACE) continue;
            read++;
            const pairs = m.slice(2).filter((v) => typeof v === 'string') as string[];
            check(`${w.properties.title}: ${m[1]}`, Object.fromEntries(pairs.flatMap((v, i) => (i % 2 ? [] : [[v, pairs[i + 1]]]))));
          }
        }
        assert.ok(read > 10, `${s.name}: ${read} metrics of the service read`);
        assert.deepEqual(problems, [], s.name);
      }
    });

    it('splits a group past the limit into even widgets, in order, and makes no widget for an empty group', () => {
      const stack = new Stack(new App(), 'Widgets');
      const alarms = (n: number, group: string) =>
        Array.from(
          { length: n },
          (_, i) =>
            new Alarm(stack, `${group}${i}`, { metric: new Metric({ namespace: 'N', metricName: `${group}${i}` }), threshold: 1, evaluationPeriods: 1 }),
        );
      const groups = new Map([
        ['Big', alarms(2 * MAX_ALARMS_PER_WIDGET + 1, 'Big')],
        ['Empty', []],
        ['Small', alarms(3, 'Small')],
      ]);
      const widgets = alarmWidgets(groups).map((w) => w.toJson()[0] as Widget);
      assert.deepEqual(
        widgets.map((w) => [w.properties.title, w.properties.alarms.length]),
        [
          ['Big (1 of 3)', 67],
          ['Big (2 of 3)', 67],
          ['Big (3 of 3)', 67],
          ['Small', 3],
        ],
      );
      const resolved = stack.resolve(widgets.flatMap((w) => w.properties.alarms));
      assert.deepEqual(resolved, stack.resolve([...groups.values()].flat().map((a) => a.alarmArn)), 'every alarm once, in order');
      assert.deepEqual(
        dashboardProblems({ widgets: widgets.map((w) => ({ ...w, properties: { ...w.properties, alarms: w.properties.alarms.map(() => 'arn:a') } })) }),
        [],
      );
    });
  });

  describe('AWS linters on the templates', () => {
    it('passes cfn-lint on every stack of both stages: no error, and no warning but those .cfnlintrc.yaml ignores with its reason', async (t: TestContext) => {
      const result = await lint!;
      if ('missing' in result) {
        // CI (.ci/run) requires it: there a missing cfn-lint fails instead of skipping.
        assert.ok(!process.env.CFN_LINT_REQUIRED, `cfn-lint is required here but not found: ${result.missing}`);
        t.skip(`cfn-lint (AWS's CloudFormation linter, a Python package) is not installed here: ${result.missing}`);
        return;
      }
      // Each template names its stack's region for cfn-lint (bin/app.ts), which checks us-east-1 otherwise.
      for (const s of stacks()) assert.deepEqual(s.template.Metadata?.['cfn-lint']?.config?.regions, [s.region], `${s.name}: linted in ${s.region}`);
      const config = readFileSync(join(ROOT, '.cfnlintrc.yaml'), 'utf8');
      // Each ignored rule has its reason in the comment right above it, which starts with the rule's id.
      const lines = config.split('\n');
      for (const [i, line] of lines.entries()) {
        const id = /^ {2}- ([EWI]\d+)$/.exec(line)?.[1];
        if (!id) continue;
        let first = i;
        while (first > 0 && lines[first - 1]!.startsWith('  #')) first--;
        assert.match(lines.slice(first, i).join(' '), new RegExp(`^ {2}# ${id} .{40,}`), `${id} is ignored with its reason above it`);
      }
      const found = (
        JSON.parse(result.stdout || '[]') as { Rule: { Id: string }; Filename: string; Location: { Start: { LineNumber: number } }; Message: string }[]
      ).map((m) => `${m.Rule.Id} ${relative(ROOT, m.Filename)}:${m.Location.Start.LineNumber} ${m.Message}`);
      assert.deepEqual(found, []);
      assert.equal(result.code, 0, result.stderr);
    });

    it('passes asl-validator and the ASL language service, each state machine as CloudFormation fills it', async () => {
      const service = getLanguageService({});
      for (const s of stacks())
        for (const m of machinesOf(s)) {
          const at = `${s.name} ${m.name}`;
          assert.doesNotMatch(m.definition, /\$\{/, `${at}: every placeholder filled`);
          // asl-validator changes the object it is given: each validator parses the text itself.
          assert.deepEqual(validate(JSON.parse(m.definition)).errors, [], at);
          const doc = TextDocument.create(`file:///${m.name}.asl.json`, 'json', 1, m.definition);
          const diagnostics = await service.doValidation(doc, service.parseJSONDocument(doc));
          assert.deepEqual(
            diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message}`),
            [],
            at,
          );
        }
    });
  });

  describe('the limits the linters do not know', () => {
    it('has the local Step Functions engine refuse the execution names StartExecution refuses', () => {
      for (const name of ['a'.repeat(80), 'vid_01-s1', 'évènement']) assert.ok(validExecutionName(name), name);
      for (const name of ['', 'a'.repeat(81), 'vid:1', 'a b', 'a/b', 'a*', 'a\u0007', 'a\u0085']) assert.ok(!validExecutionName(name), JSON.stringify(name));
    });

    for (const row of LIMITS)
      it(`${row.limit}: ${row.bound === 'max' ? 'at most' : 'at least'} ${row.value.toLocaleString('en')} (${row.doc})`, (t: TestContext) => {
        for (const s of stacks()) {
          const measured = row.measure(s);
          if (!measured) {
            t.diagnostic(`${s.name}: none in it`);
            continue;
          }
          const { figure, failures = [], note } = measured;
          t.diagnostic(`${s.name}: ${figure.toLocaleString('en')}${note ? ` (${note})` : ''}`);
          assert.deepEqual(failures, [], s.name);
          assert.ok(row.bound === 'max' ? figure <= row.value : figure >= row.value, `${s.name}: ${figure} against ${row.value}`);
        }
      });
  });
}
