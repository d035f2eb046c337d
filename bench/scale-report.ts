/**
 * `npm run bench -- scale`: the scale model (bench/scale.ts) at each scale, printed as markdown: a column per scale,
 * what saturates first and at what multiple, and issue 39's Done means beside their targets; figures to the report.
 */
import { emit, type Figure } from './report.ts';
import { runAll, SAMPLE_SHARDS, SCENARIO, type ScaleResult } from './scale.ts';
import { LIMITS, SFN_QUOTAS, type SfnApi, saturatesAt } from './scale-model.ts';

const num = (x: number) =>
  Number.isNaN(x) ? '-' : Math.abs(x) >= 100 || Number.isInteger(x) ? Math.round(x).toLocaleString('en') : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

/** Each quota's load at one scale as a share of its default (1: at the limit). */
export function shares(r: ScaleResult): { what: string; share: number }[] {
  const sfn = (api: SfnApi, label: string) => ({
    what: `${label} (${SFN_QUOTAS[api].perSecond}/s, peak minute)`,
    share: r.sfn[api].peakMinute / SFN_QUOTAS[api].perSecond,
  });
  return [
    { what: `Lambda concurrent executions (${num(LIMITS.lambdaConcurrency)})`, share: r.lambda.peak / LIMITS.lambdaConcurrency },
    { what: `API Gateway requests (${num(LIMITS.apiGateway.perSecond)}/s)`, share: r.apiGateway.peakSecond / LIMITS.apiGateway.perSecond },
    sfn('StartExecution', 'Step Functions StartExecution'),
    sfn('SendTaskSuccess', 'Step Functions SendTaskSuccess'),
    sfn('DescribeExecution', 'Step Functions DescribeExecution'),
    sfn('StateTransition', 'Step Functions state transitions'),
    { what: `DynamoDB table reads (${num(LIMITS.table.readUnits)} RCU/s)`, share: r.table.reads.peak / LIMITS.table.readUnits },
    { what: `DynamoDB table writes (${num(LIMITS.table.writeUnits)} WCU/s)`, share: r.table.writes.peak / LIMITS.table.writeUnits },
    { what: `DynamoDB partition reads (${num(LIMITS.partition.readUnits)} RCU/s)`, share: r.busiest.reads.units / LIMITS.partition.readUnits },
    { what: `DynamoDB partition writes (${num(LIMITS.partition.writeUnits)} WCU/s)`, share: r.busiest.writes.units / LIMITS.partition.writeUnits },
    { what: 'a sweep run (its 60 s timeout)', share: r.sweep.maxSeconds / 60 },
  ];
}

/** Each quota's multiple of the baseline at which it reaches its default (the first first), and its share at the last scale. */
export function saturation(rs: ScaleResult[]) {
  const all = rs.map(shares);
  return all[0]!
    .map(({ what }, i) => ({ what, last: all.at(-1)![i]!.share, ...saturatesAt(rs.map((r, j) => ({ scale: r.scale, share: all[j]![i]!.share }))) }))
    .sort((a, b) => a.multiple - b.multiple);
}

/** Where a quota is reached: a multiple measured between two scales, or how near it is at the last. */
const reached = (s: ReturnType<typeof saturation>[number], last: number) =>
  s.extrapolated ? `not by ${num(last)}x (${pct(s.last)} of it there)` : `~${num(s.multiple)}x`;

/** Issue 39's Done means (the model's part), each beside its target. */
export function targets(rs: ScaleResult[]) {
  const of = (s: number) => rs.find((r) => r.scale === s)!;
  const [top, mid] = [of(1000), of(300)];
  const reads = rs.map((r) => r.perOrder.reads);
  const ratio = Math.max(...reads) / Math.min(...reads);
  const sweep = Math.max(...rs.map((r) => r.sweep.maxSeconds));
  const first = saturation(rs)[0]!;
  return [
    {
      what: `at 1,000x no DynamoDB partition over ${num(LIMITS.partition.readUnits)} RCU / ${num(LIMITS.partition.writeUnits)} WCU a second`,
      value: `${num(top.busiest.reads.units)} RCU/s ${top.busiest.reads.pk}, ${num(top.busiest.writes.units)} WCU/s ${top.busiest.writes.pk}`,
      ok: top.busiest.reads.units <= LIMITS.partition.readUnits && top.busiest.writes.units <= LIMITS.partition.writeUnits,
    },
    {
      what: `whole-table reads under the ${num(LIMITS.table.readUnits)} RCU/s table default at 300x (busiest second)`,
      value: `${num(mid.table.reads.peak)} RCU/s`,
      ok: mid.table.reads.peak < LIMITS.table.readUnits,
    },
    {
      what: 'read units per order flat within 2x from 1x to 1,000x (most over least)',
      value: `${ratio.toFixed(2)}x (${reads.map(num).join(', ')})`,
      ok: ratio <= 2,
    },
    { what: 'every sweep run within its 60 s timeout (longest, any scale)', value: `${num(sweep)} s`, ok: sweep < 60 },
    { what: 'the first quota to saturate, and at what multiple', value: `${first.what}: ${reached(first, top.scale)}`, ok: undefined },
  ];
}

/** The markdown table: a row per figure, a column per scale. */
export function scaleTable(rs: ScaleResult[]): string {
  const row = (label: string, f: (r: ScaleResult) => string) => `| ${label} | ${rs.map(f).join(' | ')} |`;
  const per1000 = (r: ScaleResult, n: number) => num((1000 * n) / r.orders);
  const q = SFN_QUOTAS;
  const sfn = (api: SfnApi, label: string) =>
    row(`${label} a second, peak minute (of ${q[api].perSecond}); peak second; calls over the quota`, (r) =>
      [r.sfn[api].peakMinute, r.sfn[api].peakSecond, r.sfn[api].throttled].map(num).join('; '),
    );
  return [
    `| figure | ${rs.map((r) => `${r.scale}x`).join(' | ')} |`,
    `|---|${rs.map(() => '---').join('|')}|`,
    row(
      'render slots (shards); run',
      (r) => `${num(r.slots)} (${r.shards}); ${r.sampled < 1 ? `a sample: ${Math.round(r.sampled * r.shards)} shards` : 'all'}`,
    ),
    row(`orders created in the ${SCENARIO.countedSeconds} s counted; admitted`, (r) => `${num(r.orders)}; ${num(r.admissions)}`),
    row(
      '**read units per order**; write units per order; requests per order',
      (r) => `**${num(r.perOrder.reads)}**; ${num(r.perOrder.writes)}; ${num(r.perOrder.requests)}`,
    ),
    row(
      `whole table, read units a second: mean; busiest second (of ${num(LIMITS.table.readUnits)})`,
      (r) => `${num(r.table.reads.mean)}; ${num(r.table.reads.peak)}`,
    ),
    row(
      `whole table, write units a second: mean; busiest second (of ${num(LIMITS.table.writeUnits)})`,
      (r) => `${num(r.table.writes.mean)}; ${num(r.table.writes.peak)}`,
    ),
    row(`busiest partition, read units a second (of ${num(LIMITS.partition.readUnits)})`, (r) => `${num(r.busiest.reads.units)} ${r.busiest.reads.pk}`),
    row(`busiest partition, write units a second (of ${num(LIMITS.partition.writeUnits)})`, (r) => `${num(r.busiest.writes.units)} ${r.busiest.writes.pk}`),
    row(`Lambda concurrent executions, peak (of ${num(LIMITS.lambdaConcurrency)}); of them renders`, (r) => `${num(r.lambda.peak)}; ${num(r.lambda.renders)}`),
    row(`API Gateway requests, busiest second (of ${num(LIMITS.apiGateway.perSecond)}, burst ${num(LIMITS.apiGateway.burst)}); over the quota`, (r) =>
      [r.apiGateway.peakSecond, r.apiGateway.throttled].map(num).join('; '),
    ),
    sfn('StartExecution', 'StartExecution'),
    sfn('SendTaskSuccess', 'SendTaskSuccess'),
    sfn('DescribeExecution', 'DescribeExecution'),
    sfn('StateTransition', 'state transitions'),
    row('sweep runs; longest run (of its 60 s timeout); most calls in a run', (r) => `${r.sweep.runs}; ${num(r.sweep.maxSeconds)} s; ${num(r.sweep.maxCalls)}`),
    row('per 1,000 orders: claims lost; transactions cancelled by another; single writes sent again', (r) =>
      [r.conflicts.claimsLost, r.conflicts.txConflicts, r.conflicts.writeRetries].map((n) => per1000(r, n)).join('; '),
    ),
    row('per 1,000 orders: waits recorded again; steps retried; creations left to the audit', (r) =>
      [r.conflicts.waitRetries, r.conflicts.stepRetries, r.conflicts.startsFailed].map((n) => per1000(r, n)).join('; '),
    ),
    row('ghost tickets made; counts the recounts corrected', (r) => `${num(r.conflicts.ghosts)}; ${num(r.conflicts.corrected)}`),
    row('heavy keys’ creations held back at 10 active (all shards run only)', (r) => (r.sampled < 1 ? '-' : num(r.heldBack))),
    row('eta error at creation, p50; waiting at the end', (r) => `${pct(r.etaP50)}; ${num(r.waitingAtEnd)}`),
    row('the run, wall seconds', (r) => r.wallSeconds.toFixed(1)),
  ].join('\n');
}

export async function benchScale(): Promise<void> {
  const started = performance.now();
  const rs = await runAll();
  const S = SCENARIO;
  console.log(
    `\nScale model (issue 39): ${S.warmupSeconds + S.countedSeconds} simulated seconds a scale, the first ${S.warmupSeconds} not counted; ` +
      `${S.baseOrdersPerHour} orders an hour x scale, from second ${S.burstStartsAt} a minute of ${S.baseBurstPerMinute} x scale; ` +
      `${pct(S.heavyShare)} of API orders from heavy keys (at most ${S.heavyPerMinute} a minute, ${S.maxActive} active), the rest from light keys, ${pct(S.botShare)} of theirs the bot's; ` +
      `${pct(S.directorShare)} director mode, ${pct(S.webhookShare)} of keys with a webhook, clients polling as Retry-After says; ${pct(S.ghostShare)} of waits a ghost; seed ${S.seed}. ` +
      `Scales past ${SAMPLE_SHARDS} shards run a sample of them, scaled to the whole.\n`,
  );
  console.log(scaleTable(rs));
  console.log('\n| quota (account or table default) | reaches it at |\n|---|---|');
  for (const s of saturation(rs)) console.log(`| ${s.what} | ${reached(s, rs.at(-1)!.scale)} |`);
  console.log('\n| Done means (issue 39) | measured | |\n|---|---|---|');
  for (const t of targets(rs)) console.log(`| ${t.what} | ${t.value} | ${t.ok === undefined ? 'reported' : verdict(t.ok)} |`);
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);

  const section = 'Scale model (simulated, 1x to 1,000x of the baseline; bench/scale.ts)';
  const of = (s: number) => rs.find((r) => r.scale === s)!;
  const reads = rs.map((r) => r.perOrder.reads);
  const first = saturation(rs)[0]!;
  const figures: Figure[] = [
    ...rs.flatMap((r) => [
      { section, name: `${r.scale}x: read units per order`, value: r.perOrder.reads, unit: 'RCU' },
      { section, name: `${r.scale}x: write units per order`, value: r.perOrder.writes, unit: 'WCU' },
    ]),
    {
      section,
      name: 'read units per order, most over least (1x to 1,000x)',
      value: Math.max(...reads) / Math.min(...reads),
      unit: 'x',
      target: { op: '<=', limit: 2 },
    },
    {
      section,
      name: '1,000x: busiest partition, read units a second',
      value: of(1000).busiest.reads.units,
      unit: 'RCU/s',
      target: { op: '<=', limit: LIMITS.partition.readUnits },
    },
    {
      section,
      name: '1,000x: busiest partition, write units a second',
      value: of(1000).busiest.writes.units,
      unit: 'WCU/s',
      target: { op: '<=', limit: LIMITS.partition.writeUnits },
    },
    {
      section,
      name: '300x: whole table, read units in the busiest second',
      value: of(300).table.reads.peak,
      unit: 'RCU/s',
      target: { op: '<', limit: LIMITS.table.readUnits },
    },
    { section, name: 'longest sweep run, any scale', value: Math.max(...rs.map((r) => r.sweep.maxSeconds)), unit: 's', target: { op: '<', limit: 60 } },
    { section, name: `first to saturate: ${first.what}`, value: first.multiple, unit: 'x' },
  ];
  emit(figures);
}
