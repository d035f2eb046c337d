/**
 * The deploy's concurrency check (lib/preflight.ts): whether the render and delivery functions' reservations fit the
 * account's Lambda quota, with the numbers of a default account, of new accounts (quotas of 10 and 50) and of an update that
 * replaces the reservation the function already holds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONCURRENCY_QUOTA_CODE, concurrencyAdvice, concurrencyVerdict, MINIMUM_UNRESERVED } from '../../lib/preflight.ts';
import { ROOT } from '../../lib/paths.ts';
import { STAGES } from '../../lib/stages.ts';

const where = { stage: 'VideoService-prod', region: 'eu-central-1' };
const wantedOf = (stage: (typeof STAGES)[keyof typeof STAGES]) => ({
  renderSlots: stage.renderSlots,
  testRenderSlots: stage.testRenderSlots,
  deliveryConcurrency: stage.deliveryConcurrency,
});
const prod = wantedOf(STAGES.prod);
const prodSlots = prod.renderSlots;
/** What prod reserves in all: its render slots (both lanes') and its deliveries. */
const prodTotal = prod.renderSlots + prod.testRenderSlots + prod.deliveryConcurrency;

describe('the concurrency preflight', () => {
  it("lets the first deploy reserve the stages' slots and deliveries in an account with the default quota of 1000", () => {
    for (const wanted of [wantedOf(STAGES.dev), prod]) {
      const reserved = wanted.renderSlots + wanted.testRenderSlots + wanted.deliveryConcurrency;
      const facts = { quota: 1000, unreserved: 1000, held: 0, wanted };
      const v = concurrencyVerdict(facts);
      assert.deepEqual(v, {
        ok: true,
        unreservedAfter: 1000 - reserved,
        maxSlots: 900 - wanted.testRenderSlots - wanted.deliveryConcurrency,
        quotaNeeded: 1000,
      });
      assert.match(concurrencyAdvice(facts, v, where).join('\n'), new RegExp(`^ok: .* reserves ${reserved} and leaves ${1000 - reserved} unreserved`));
    }
  });

  for (const quota of [10, 50]) {
    it(`refuses a new account's quota of ${quota}, asking for more with the exact command: no renderSlots fits`, () => {
      const facts = { quota, unreserved: quota, held: 0, wanted: prod };
      const v = concurrencyVerdict(facts);
      // Lambda keeps 100 unreserved: the quota must cover those, the slots and the deliveries.
      assert.deepEqual(v, { ok: false, unreservedAfter: quota - prodTotal, maxSlots: 0, quotaNeeded: MINIMUM_UNRESERVED + prodTotal });
      const advice = concurrencyAdvice(facts, v, where).join('\n');
      assert.ok(
        advice.includes(
          `aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value 1000 --region eu-central-1`,
        ),
        advice,
      );
      assert.match(advice, new RegExp(`at least ${MINIMUM_UNRESERVED + prodTotal}`));
      assert.match(advice, /no renderSlots fits .* only a larger quota helps/);
    });
  }

  it('counts what the functions already hold on an update: the same reservations again fit at the minimum', () => {
    // Others reserve 1000 - 100 - prodTotal, the stack's functions prodTotal: exactly 100 left, which the same keep.
    const update = { quota: 1000, unreserved: 100, held: prodTotal, wanted: prod };
    assert.deepEqual(concurrencyVerdict(update), { ok: true, unreservedAfter: 100, maxSlots: prodSlots, quotaNeeded: 1000 });
    // As a first create (nothing held) the same numbers would not fit.
    assert.equal(concurrencyVerdict({ ...update, held: 0 }).ok, false);
  });

  it('refuses an update that grows the reservation past the minimum, naming the largest renderSlots that fits beside the deliveries', () => {
    // The render function held two slots fewer than the stage now wants.
    const facts = { quota: 1000, unreserved: 101, held: prodTotal - 2, wanted: prod };
    const v = concurrencyVerdict(facts);
    assert.deepEqual(v, { ok: false, unreservedAfter: 99, maxSlots: prodSlots - 1, quotaNeeded: 1001 });
    const advice = concurrencyAdvice(facts, v, where);
    assert.match(advice[0]!, /leave 99 unreserved; Lambda keeps 100/);
    assert.ok(advice.some((l) => l.includes('--desired-value 1001 ')));
    assert.ok(advice.some((l) => l.includes(`lower renderSlots to ${prodSlots - 1} or less`) && l.includes(`-c renderSlots=${prodSlots - 1}`)));
  });

  it("prints what docs/deploy.md shows for a new account's quota of 50", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    const shown = /```text\n(not enough Lambda concurrency[^`]*)```/.exec(doc)?.[1];
    const facts = { quota: 50, unreserved: 50, held: 0, wanted: prod };
    assert.equal(shown, `${concurrencyAdvice(facts, concurrencyVerdict(facts), where).join('\n')}\n`);
  });
});
