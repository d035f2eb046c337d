/**
 * Money under load with faults (test/reliability/load.ts): the small scale in `npm test`, the full one (1,000
 * creations from 20 users over 120 s, 15% by the bot, 10 kills, the receiver down for a minute, at least 300
 * orders) in `npm run test:reliability`.
 * Its figures go to reports/tmp/reliability-<scale>.json for the benchmark report and docs/reliability.md.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { runLoad, SCALES } from './load.ts';

const scale = SCALES[process.env.RELIABILITY_SCALE === 'full' ? 'full' : 'small'];
const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 1_000_000);

describe(`money under load with faults (${scale.name}: ${scale.creations} creations, ${scale.users} users, ${scale.kills} kills)`, () => {
  it('keeps every balance equal to its ledger, ends every order, charges and refunds at most once, and delivers or drops every event', async () => {
    const report = await runLoad(scale, seed, (line) => console.log(`# ${line}`));
    mkdirSync(join(ROOT, 'reports', 'tmp'), { recursive: true });
    writeFileSync(join(ROOT, 'reports', 'tmp', `reliability-${scale.name}.json`), `${JSON.stringify({ at: new Date().toISOString(), ...report }, null, 2)}\n`);
    console.log(`# ${JSON.stringify(report)}`);
    assert.deepEqual(report.violations, [], `seed ${seed}`);
    assert.equal(report.faults.serviceKills, scale.kills);
    assert.equal(report.faults.dynamoRestarts, 1);
    assert.ok(report.orders.total > 0 && report.orders.done + report.orders.error === report.orders.total);
    // At full scale both ends are certain to be reached; the small run has too few orders to insist.
    if (scale.name === 'full') {
      assert.ok(report.orders.done > 0 && report.orders.error > 0, 'both ends were reached');
      assert.ok(report.orders.total >= 300, `at least 300 orders: ${report.orders.total}`);
      assert.ok(report.creations.bot > 0, 'the bot placed orders among them');
    }
    assert.ok(report.creations.replayed > 0, 'some creations were repeated with their key');
    assert.ok(report.webhooks.delivered > 0);
  });
});
