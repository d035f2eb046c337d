/**
 * What the alarm replay (test/infra/normal-day.test.ts) needs besides the stack: the prod template, synthesized
 * offline; the map from its alarms' dimensions (CloudFormation references) to the names the local stack records; the
 * alarms whose metrics the local stack cannot emit, with the reason; and the virtual clock that places each stretch of
 * the replay at its time of the day.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../lib/paths.ts';
import { LOCAL_API_ID } from '../../local/metrics.ts';
import type { AlarmDefinition, MetricStat } from './alarms.ts';
import type { Template } from './cfn-template.ts';

/** The alarm e-mail the prod synth is given: prod refuses to synthesize without one. */
export const REPLAY_ALARM_EMAIL = 'oncall@example.com';

/**
 * The prod stage's main template, synthesized as `cdk synth -c stage=prod` would, with the app run directly as the CDK
 * CLI runs it (CDK_CONTEXT_JSON, CDK_OUTDIR) so that no function is bundled: the alarms do not depend on the bundles,
 * and bundling forty functions would cost a minute. Resource paths are recorded (the CLI's default) to name them.
 */
export async function synthProd(env: NodeJS.ProcessEnv): Promise<Template> {
  const out = mkdtempSync(join(tmpdir(), 'video-service-replay-synth-'));
  const cdk = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { app: string; context: Record<string, unknown> };
  const context = {
    ...cdk.context,
    stage: 'prod',
    alarmEmail: REPLAY_ALARM_EMAIL,
    'aws:cdk:bundling-stacks': [],
    'aws:cdk:enable-path-metadata': true,
  };
  try {
    const [command, ...args] = cdk.app.split(' ');
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(command!, args, {
        cwd: ROOT,
        env: { ...Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('AWS_'))), CDK_OUTDIR: out, CDK_CONTEXT_JSON: JSON.stringify(context) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d));
      child.stderr.on('data', (d: Buffer) => (text += d));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`the prod synth exited with ${code}: ${text.slice(-3000)}`))));
    });
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { templateFile: string } }>;
    };
    const main = manifest.artifacts['VideoService-prod'];
    if (!main?.properties) throw new Error(`no VideoService-prod stack in the prod synth: ${output.slice(-2000)}`);
    return JSON.parse(readFileSync(join(out, main.properties.templateFile), 'utf8')) as Template;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** An alarm's short name: its construct id (Observability/<id>), e.g. `Errors-render-video`. */
export function alarmName(template: Template, alarm: AlarmDefinition): string {
  const path = template.Resources[alarm.id]?.Metadata?.['aws:cdk:path'] ?? '';
  return path.split('/').at(-2) ?? alarm.id;
}

/** The function a Lambda resource runs, by its construct id (`<kind>-<name>`, lib/functions.ts): `<name>`. */
function functionOf(template: Template, id: string): string {
  const path = template.Resources[id]?.Metadata?.['aws:cdk:path'];
  const m = path && /\/(?:http|step|bot|job|edge)-([^/]+)\/Resource$/.exec(path);
  if (!m) throw new Error(`no function name for ${id} (${path})`);
  return m[1]!;
}

/** The names the local stack records for the template's resources: the API, each function, each machine, the table. */
export interface LocalNames {
  machineArn: (machine: 'order' | 'delivery') => string;
  tableName: string;
}

/**
 * The value the local stack records for an alarm dimension's value: a string as it is; a reference to the API, a
 * function, a state machine or the table as the local stand-ins name it. Anything else is an error, so that no alarm
 * silently matches nothing.
 */
export function localDimension(template: Template, names: LocalNames) {
  return (_name: string, value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    const id = v.Ref ?? v['Fn::GetAtt']?.[0];
    const resource = id ? template.Resources[id] : undefined;
    if (!id || !resource) throw new Error(`an alarm dimension the replay cannot map: ${JSON.stringify(value)}`);
    switch (resource.Type) {
      case 'AWS::ApiGatewayV2::Api':
        return LOCAL_API_ID;
      case 'AWS::Lambda::Function':
        return functionOf(template, id);
      case 'AWS::StepFunctions::StateMachine': {
        const machine = /\/(order|delivery)-machine\/Resource$/.exec(resource.Metadata?.['aws:cdk:path'] ?? '')?.[1] as 'order' | 'delivery' | undefined;
        if (!machine) throw new Error(`no machine for ${id}`);
        return names.machineArn(machine);
      }
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table':
        return names.tableName;
      default:
        throw new Error(`an alarm dimension on a ${resource.Type} the replay cannot map (${id})`);
    }
  };
}

/**
 * Metrics on AWS that the local stack cannot emit, and why. An alarm all of whose metrics are here cannot fire in the
 * replay; the test lists them.
 */
export function localGap(metric: MetricStat, fn: (value: unknown) => string, reserved: ReadonlySet<string>): string | undefined {
  if (metric.namespace === 'AWS/States' && metric.name === 'ExecutionThrottled') {
    return "Step Functions throttles state transitions past the account's quota; the local engine has no such quota";
  }
  if (metric.namespace === 'AWS/Lambda') {
    const name = fn(metric.dimensions.find((d) => d.Name === 'FunctionName')?.Value);
    if (metric.name === 'Throttles' && !reserved.has(name)) {
      return "Lambda throttles a function without reserved concurrency only at the account's concurrency limit, which the local stack does not have (it throttles the reserved ones)";
    }
    if (name === 'place-order') return "the bot's function is invoked by the bot's IAM role on AWS; the local stack serves no bot";
  }
  return undefined;
}

/**
 * The replay's clock: each stretch of the day runs for real, placed at a virtual time; a datapoint recorded at real
 * time t in a stretch that began at real r and virtual v is stamped v + (t - r). Stretches follow each other in real
 * time, and a later one may not start before the earlier one's virtual end.
 */
export class VirtualClock {
  private readonly stretches: { name: string; real: number; virtual: number }[] = [];

  /** The stretch `name` starts now, at virtual time `virtual` (epoch ms). */
  begin(name: string, virtual: number): void {
    const real = Date.now();
    const last = this.stretches.at(-1);
    if (last && virtual < last.virtual + (real - last.real)) {
      throw new Error(`${name} at ${new Date(virtual).toISOString()} would overlap ${last.name}, which ran ${real - last.real} ms`);
    }
    this.stretches.push({ name, real, virtual });
  }

  /** The virtual time of real time `real` (before the first stretch: the first stretch's offset). */
  virtual(real: number): number {
    let s = this.stretches[0];
    if (!s) throw new Error('no stretch has begun');
    for (const x of this.stretches) if (x.real <= real) s = x;
    return s.virtual + (real - s.real);
  }

  /** Each stretch so far: its name, virtual start and real length (the last one's up to now). */
  summary(): string[] {
    return this.stretches.map((x, i) => {
      const end = this.stretches[i + 1]?.real ?? Date.now();
      return `${new Date(x.virtual).toISOString().slice(0, 16)} ${x.name}: ${((end - x.real) / 1000).toFixed(1)} s`;
    });
  }
}
