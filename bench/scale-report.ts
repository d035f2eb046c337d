/**
 * `npm run bench -- scale`: the scale model (bench/scale.ts) for this branch and for today's main, printed as markdown
 * tables, the Done-means targets of issue 27 at 100x, and docs/architecture.md's Capacity table; figures to the report.
 */
import { emit, type Figure } from './report.ts';
import { capacityTable, DESIGNS, designTable, runAll, SCENARIO, targets, verdict, warmProcesses } from './scale.ts';
import { SFN_QUOTAS } from './scale-model.ts';

export async function benchScale(): Promise<void> {
  const started = performance.now();
  const results = await runAll();
  const S = SCENARIO;
  console.log(
    `\nScale model: ${S.arrivalMinutes} minutes of arrivals (${S.baseOrdersPerHour} an hour x scale, minute ${S.burstMinute + 1} a burst of ${S.baseBurstPerMinute} x scale), then ${S.drainMinutes} to drain; ` +
      `${S.botShare * 100}% bot, ${S.directorShare * 100}% of API orders director-mode (review after ${S.reviewMeanSeconds / 3600} h on average; those already waiting are there at the start), ` +
      `${S.webhookShare * 100}% of API keys with a webhook, ${S.lostStartShare * 100}% of starts lost, ${S.deadlineShare * 100}% of API orders (this branch's) with deadline_seconds of ${S.deadlineSeconds.join(', ')}; seed ${S.seed}. Warm API processes: ${[1, 10, 100].map((s) => warmProcesses(s)).join(', ')}.`,
  );
  for (const design of Object.keys(DESIGNS) as (keyof typeof DESIGNS)[]) console.log(`\n${designTable(results, design)}`);
  const at100 = results.find((r) => r.design === 'new' && r.scale === 100)!;
  console.log('\n| Done means, at 100x (this branch) | measured | |');
  console.log('|---|---|---|');
  for (const t of targets(at100)) console.log(`| ${t.what} | ${t.value} | ${t.met ? 'MET' : 'MISSED'} |`);
  const old = results.filter((r) => r.design === 'old');
  const fails = [
    { what: '(1) render capacity: 4 slots, the queue grows at 1x', met: old.some((r) => r.scale === 1 && (r.utilisation >= 1 || !r.keepsUp)) },
    {
      what: '(2) the sweep: DescribeExecution throttled, the run rejected, the events pass not reached',
      met: old.some((r) => r.sweep.rejected > 0 && r.sweep.eventsPassReached < r.sweep.runs),
    },
    {
      what: '(3) the queue items: a partition past 1,000 writes / 3,000 reads, or ADMISSIONS past one-at-a-time, at 10x-100x',
      met: results.some((r) => r.design !== 'new' && r.scale >= 10 && verdict(r).saturated.some((s) => /reads of|writes of|transactions on/.test(s.what))),
    },
  ];
  console.log("\n| today's main through the same model fails | |");
  console.log('|---|---|');
  for (const f of fails) console.log(`| ${f.what} | ${f.met ? 'yes' : 'NO'} |`);
  console.log(`\n${capacityTable(results)}`);
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s, of which the runs: ${results.map((r) => r.seconds_wall.toFixed(1)).join(', ')})`);

  const section = 'Scale model (simulated arrivals, this branch at 100x of the baseline; bench/scale.ts)';
  const figures: Figure[] = [
    {
      section,
      name: 'busiest partition, write units a second',
      value: at100.writes.perSecond,
      unit: 'WCU/s',
      target: { op: '<=', limit: 1000 },
      note: at100.writes.key,
    },
    {
      section,
      name: 'busiest partition, read units a second',
      value: at100.reads.perSecond,
      unit: 'RCU/s',
      target: { op: '<=', limit: 3000 },
      note: at100.reads.key,
    },
    ...(Object.keys(SFN_QUOTAS) as (keyof typeof SFN_QUOTAS)[]).map((api) => ({
      section,
      name: `${api}, peak minute, share of eu-central-1's refill (${SFN_QUOTAS[api].perSecond}/s)`,
      value: (100 * at100.sfnPeakMinute[api]) / SFN_QUOTAS[api].perSecond,
      unit: '%',
      target: { op: '<' as const, limit: 50 },
    })),
    {
      section,
      name: 'admissions a second (arrivals: the same, keeping up)',
      value: at100.admissionsPerSecond,
      unit: '/s',
      target: { op: '>=', limit: at100.arrivalsPerSecond * 0.95 },
    },
    { section, name: 'waiting at the end of the run', value: at100.waitingAtEnd, unit: 'orders', target: { op: '<=', limit: 0 } },
    { section, name: 'eta error at creation, p50', value: at100.etaP50 * 100, unit: '%', target: { op: '<=', limit: 25 } },
    { section, name: 'eta error at creation, p90', value: at100.etaP90 * 100, unit: '%' },
    { section, name: 'audit DescribeExecution a run, max', value: at100.sweep.describesPerRunMax, unit: 'calls' },
    { section, name: 'due deadline markers at an audit run, most', value: at100.deadlines?.dueMax ?? 0, unit: 'markers' },
    {
      section,
      name: 'deadline cancels, seconds after the deadline, most',
      value: at100.deadlines?.lateMax ?? 0,
      unit: 's',
      target: { op: '<=', limit: 60 },
    },
  ];
  for (const r of old) {
    const v = verdict(r);
    figures.push({
      section: `Scale model: today's main (${DESIGNS.old})`,
      name: `${r.scale}x: ${v.saturated.length ? `saturated: ${v.saturated.map((s) => s.what).join(', ')}` : 'nothing saturated'}`,
      value: v.saturated.length,
      unit: 'saturated',
    });
  }
  emit(figures);
}
