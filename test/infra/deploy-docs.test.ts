/**
 * The figures docs/deploy.md quotes that the template decides: prod's alarms, the alarm metrics CloudWatch charges for,
 * and what they cost a month. Synthesizes prod as `cdk synth -c stage=prod` does (with an alarm address, which prod
 * requires) and counts them in its templates; a failure names the figures to write.
 *
 * CloudWatch's price (https://aws.amazon.com/cloudwatch/pricing/, Alarms): $0.10 a month per standard-resolution alarm
 * metric (period of 60 s or more), $0.30 per high-resolution one, and an alarm on a metric-math expression is charged
 * for each metric the expression reads; a composite alarm is $0.50.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';

/** Dollars a month per alarm metric, by resolution, and per composite alarm. */
const ALARM_PRICES = { standard: 0.1, highResolution: 0.3, composite: 0.5 } as const;

interface AlarmProps {
  Period?: number;
  Metrics?: { MetricStat?: { Period: number } }[];
}

/** Prod's alarms as CloudWatch bills them: their count, their alarm metrics, and dollars a month. */
function alarmBill(templates: Record<string, any>[]): { alarms: number; metrics: number; dollars: number } {
  let alarms = 0;
  let metrics = 0;
  let dollars = 0;
  for (const t of templates) {
    for (const r of Object.values(t.Resources as Record<string, { Type: string; Properties: AlarmProps }>)) {
      if (r.Type === 'AWS::CloudWatch::CompositeAlarm') {
        alarms++;
        dollars += ALARM_PRICES.composite;
      }
      if (r.Type !== 'AWS::CloudWatch::Alarm') continue;
      alarms++;
      // A metric alarm reads one metric; a metric-math one each MetricStat of its Metrics (expressions are not billed).
      const stats = r.Properties.Metrics ? r.Properties.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Period] : [])) : [r.Properties.Period ?? 60];
      metrics += stats.length;
      for (const period of stats) dollars += period < 60 ? ALARM_PRICES.highResolution : ALARM_PRICES.standard;
    }
  }
  return { alarms, metrics, dollars: Math.round(dollars * 100) / 100 };
}

const out = mkdtempSync(join(tmpdir(), 'video-service-docs-'));
let synth: { status: number | null; output: string };
before(() => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const res = spawnSync('npx', ['cdk', 'synth', '-q', '-o', out, '-c', 'stage=prod', '-c', 'alarmEmail=oncall@example.com'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  });
  synth = { status: res.status, output: `${res.stdout}${res.stderr}` };
});
after(() => rmSync(out, { recursive: true, force: true }));

describe('docs/deploy.md', () => {
  it("quotes prod's alarm count, alarm metrics and monthly cost as the synthesized prod has them", () => {
    assert.equal(synth.status, 0, synth.output.slice(-3000));
    const templates = readdirSync(out)
      .filter((f) => /^VideoService-prod.*\.template\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as Record<string, any>);
    assert.equal(templates.length, 2, 'the stage stack and the edge stack');
    const bill = alarmBill(templates);
    assert.ok(bill.alarms > 50, `${bill.alarms} alarms`);
    const line = `In prod: ${bill.alarms} alarms on ${bill.metrics} alarm metrics, $${bill.dollars.toFixed(2)} a month.`;
    const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8').replace(/\s+/g, ' ');
    const quoted = /In prod: \d+ alarms on \d+ alarm metrics, \$\d+\.\d\d a month\./.exec(doc)?.[0];
    assert.equal(quoted, line, `docs/deploy.md (Watching it) should say: "${line}"`);
  });

  it('prices a metric-math alarm per metric it reads, a high-resolution one at $0.30, a composite at $0.50', () => {
    const t = {
      Resources: {
        a: { Type: 'AWS::CloudWatch::Alarm', Properties: { Period: 300 } },
        b: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: { Metrics: [{ MetricStat: { Period: 60 } }, { MetricStat: { Period: 60 } }, { Expression: 'm1/m2' }] },
        },
        c: { Type: 'AWS::CloudWatch::Alarm', Properties: { Period: 10 } },
        d: { Type: 'AWS::CloudWatch::CompositeAlarm', Properties: {} },
        e: { Type: 'AWS::SNS::Topic', Properties: {} },
      },
    };
    assert.deepEqual(alarmBill([t]), { alarms: 4, metrics: 4, dollars: 1.1 });
  });
});
