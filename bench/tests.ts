/**
 * `npm run bench -- tests`: the two fast test tiers, each run as a developer runs it (`npm run test:unit`,
 * `npm run test:integration`), timed beside its target: the unit tier in CPU seconds (user + system of every process it
 * starts), the integration tier in wall seconds. CPU is read from this process's reaped children (/proc/self/stat).
 * The times are written to reports/test-tiers.json, where the docs test compares the times the docs quote.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/paths.ts';
import type { Figure } from './report.ts';

/** User + system CPU seconds of this process's waited-for children so far (Linux; 0 elsewhere). */
function childCpuSeconds(): number {
  try {
    // Fields after the command name (which may hold spaces) start at the state, field 3; cutime and cstime are 16 and 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    return ticks / hz;
  } catch {
    return 0;
  }
}

export interface TierRun {
  tier: string;
  ok: boolean;
  wallS: number;
  cpuS: number;
}

export function runTier(script: string): TierRun {
  const cpu0 = childCpuSeconds();
  const t0 = performance.now();
  const res = spawnSync('npm', ['run', '-s', script], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { tier: script, ok: res.status === 0, wallS: (performance.now() - t0) / 1000, cpuS: childCpuSeconds() - cpu0 };
}

export const TIER_TARGETS = { unitCpuS: 20, integrationWallS: 180 };

export function benchTests(): Figure[] {
  const section = 'test tiers (this machine)';
  const unit = runTier('test:unit');
  const integration = runTier('test:integration');
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  console.log('\n| tier | passed | CPU (user+sys) | wall | target |');
  console.log('|---|---|---|---|---|');
  for (const [r, target] of [
    [unit, `CPU < ${TIER_TARGETS.unitCpuS} s ${verdict(unit.ok && unit.cpuS < TIER_TARGETS.unitCpuS)}`],
    [integration, `wall < ${TIER_TARGETS.integrationWallS} s ${verdict(integration.ok && integration.wallS < TIER_TARGETS.integrationWallS)}`],
  ] as const)
    console.log(`| npm run ${r.tier} | ${r.ok ? 'yes' : 'NO'} | ${r.cpuS.toFixed(1)} s | ${r.wallS.toFixed(1)} s | ${target} |`);
  const round = (r: TierRun) => ({ passed: r.ok, cpuSeconds: Number(r.cpuS.toFixed(1)), wallSeconds: Number(r.wallS.toFixed(1)) });
  writeFileSync(
    join(ROOT, 'reports', 'test-tiers.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), targets: TIER_TARGETS, unit: round(unit), integration: round(integration) }, null, 2)}\n`,
  );
  return [
    { section, name: 'npm run test:unit, CPU (user+sys)', value: unit.cpuS, unit: 's', target: { op: '<', limit: TIER_TARGETS.unitCpuS } },
    { section, name: 'npm run test:unit, wall', value: unit.wallS, unit: 's' },
    { section, name: 'npm run test:integration, wall', value: integration.wallS, unit: 's', target: { op: '<', limit: TIER_TARGETS.integrationWallS } },
    { section, name: 'npm run test:integration, CPU (user+sys)', value: integration.cpuS, unit: 's' },
  ];
}
