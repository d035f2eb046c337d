/**
 * Render slots sized from demand (lib/sizing.ts): slots = ceil(orders an hour x slot seconds / 3,600 / utilisation),
 * with the worked example of docs/deploy.md (1,000 orders an hour at 15 s, 70% busy: 1x, 10x, 100x), whole products
 * that floating point would push a hair over, and the checks that name a wrong figure.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { demandProblem, slotsFor } from '../../lib/sizing.ts';
import { STAGES } from '../../lib/stages.ts';

const at = (peakOrdersPerHour: number, slotSecondsPerOrder = 15, targetUtilisation = 0.7) => ({ peakOrdersPerHour, slotSecondsPerOrder, targetUtilisation });

describe('render slots sized from demand', () => {
  it('gives the worked example: 6, 60 and 596 slots at 1x, 10x and 100x of 1,000 orders an hour', () => {
    // 1,000 x 15 / 3,600 = 4.17 slots busy; at 70%: 5.95, so 6.
    assert.deepEqual(
      [1_000, 10_000, 100_000].map((n) => slotsFor(at(n))),
      [6, 60, 596],
    );
    // The same demand fully busy: the 4.17 of today's 4 slots, which is why 4 fell behind at the baseline.
    assert.equal(slotsFor(at(1_000, 15, 1)), 5);
  });

  it('rounds up, except a product that is whole', () => {
    assert.equal(slotsFor(at(240, 15, 0.5)), 2, '240 x 15 / 3,600 / 0.5 is exactly 2');
    assert.equal(slotsFor(at(241, 15, 0.5)), 3);
    assert.equal(slotsFor(at(360, 21, 0.3)), 7, '360 x 21 / 3,600 / 0.3, which floating point puts at 7.000000000000001');
    assert.equal(slotsFor(at(1, 1, 1)), 1, 'at least one slot');
  });

  it('grows with each figure and shrinks with the utilisation allowed', () => {
    assert.ok(slotsFor(at(2_000)) > slotsFor(at(1_000)));
    assert.ok(slotsFor(at(1_000, 30)) > slotsFor(at(1_000, 15)));
    assert.ok(slotsFor(at(1_000, 15, 0.9)) < slotsFor(at(1_000, 15, 0.5)));
  });

  it('names a figure that cannot size anything', () => {
    assert.equal(demandProblem(at(1_000)), undefined);
    assert.match(demandProblem(at(0))!, /peakOrdersPerHour must be an integer >= 1/);
    assert.match(demandProblem(at(10.5))!, /peakOrdersPerHour/);
    assert.match(demandProblem(at(1_000, 0))!, /slotSecondsPerOrder must be a number above 0/);
    assert.match(demandProblem(at(1_000, 15, 0))!, /targetUtilisation must be above 0 and at most 1/);
    assert.match(demandProblem(at(1_000, 15, 1.2))!, /targetUtilisation/);
  });

  it("derives each stage's slots from its demand, as docs/deploy.md's table of scales shows", () => {
    for (const stage of Object.values(STAGES)) assert.equal(stage.renderSlots, slotsFor(stage.demand));
    const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    for (const [scale, n] of [
      ['1x', 1_000],
      ['10x', 10_000],
      ['100x', 100_000],
    ] as const) {
      const row = new RegExp(`^\\| ${scale} \\| ${n.toLocaleString('en-US')} \\|.*\\| ${slotsFor(at(n))} \\|`, 'm');
      assert.match(doc, row, `docs/deploy.md's ${scale} row`);
    }
  });
});
