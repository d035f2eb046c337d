/**
 * The reliability figures in the benchmark report: read from the newest run of the money-under-load suite
 * (reports/tmp/reliability-<scale>.json, written by test/reliability/load.test.ts; the full scale by
 * `npm run test:reliability`), with the date and scale of that run. The load takes minutes, so the bench does not
 * repeat it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../lib/paths.ts';
import type { LoadReport } from '../test/reliability/load.ts';
import type { Figure } from './report.ts';

export function reliabilityFigures(): Figure[] {
  const files = ['full', 'small'].map((s) => join(ROOT, 'reports', 'tmp', `reliability-${s}.json`)).filter(existsSync);
  const newest = files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) {
    console.log('No reliability run yet: `npm run test:reliability` (or `npm test`) writes its figures.');
    return [];
  }
  const r = JSON.parse(readFileSync(newest, 'utf8')) as LoadReport & { at: string };
  const section = `Reliability: money under load with faults (${r.scale} scale, run of ${r.at.slice(0, 16)}, seed ${r.seed})`;
  const zero = { op: '<=' as const, limit: 0 };
  return [
    { section, name: 'creations attempted', value: r.creations.attempted, unit: 'creations' },
    { section, name: 'orders created', value: r.creations.created, unit: 'orders' },
    { section, name: 'repeats with the same key answered with the same order', value: r.creations.replayed, unit: 'answers' },
    { section, name: 'orders done / error', value: r.orders.done, unit: `done / ${r.orders.error} error` },
    { section, name: 'service kills survived', value: r.faults.serviceKills, unit: 'kills' },
    { section, name: 'DynamoDB Local restarts survived', value: r.faults.dynamoRestarts, unit: 'restarts' },
    { section, name: 'webhook events delivered / dropped', value: r.webhooks.delivered, unit: `delivered / ${r.webhooks.dropped} dropped` },
    {
      section,
      name: 'invariant violations (ledger, double charge or refund, lost order, undelivered event)',
      value: r.violations.length,
      unit: 'violations',
      target: zero,
    },
  ];
}
