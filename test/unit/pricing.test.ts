import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import type { AppError } from '../../functions/core/errors.ts';
import { type Account, DEFAULT_LIMITS, pricesFrom, chargeFor } from '../../functions/core/pricing.ts';

const now = new Date('2026-11-23T10:00:00Z');
const params = (extra: object = {}) => createVideoBody.parse({ topic: 'cats', ...extra });
const account = (a: Partial<Account> = {}): Account => ({ userId: 'U', balance: 1000, trialVideosLeft: 0, heavyUsed: 0, activeTasks: 0, ledgerSeq: 0, ...a });
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'no error';
};

describe('pricing', () => {
  it('charges 100 for a plain video and adds each extra', () => {
    assert.equal(chargeFor(params(), account(), DEFAULT_LIMITS, now, 60).cost, 100);
    const all = params({ placement: { product: 'Tea' }, ai_visual: true, music: 'song', voice: 'clone' });
    const c = chargeFor(all, account(), DEFAULT_LIMITS, now, 60);
    assert.equal(c.cost, 100 + 50 + 100 + 70 + 100);
    assert.deepEqual(c.extras, ['placement', 'ai_visual', 'song', 'voice_clone']);
  });

  it('makes the base price free on a trial video but still charges extras', () => {
    const c = chargeFor(params({ placement: { product: 'Tea' } }), account({ trialVideosLeft: 1 }), DEFAULT_LIMITS, now, 60);
    assert.deepEqual([c.cost, c.trial], [50, true]);
  });

  it('takes heavy extras from the plan allowance, and refuses past it unless billing is doubloons', () => {
    const plan = { name: 'creator', heavyPerMonth: 2 };
    const heavy = params({ ai_visual: true, placement: { product: 'Tea' } });
    const within = chargeFor(heavy, account({ plan, heavyMonth: '2026-11', heavyUsed: 1 }), DEFAULT_LIMITS, now, 60);
    assert.deepEqual([within.cost, within.heavyAllowanceMonth], [150, '2026-11']);
    const used = account({ plan, heavyMonth: '2026-11', heavyUsed: 2 });
    assert.equal(
      codeOf(() => chargeFor(heavy, used, DEFAULT_LIMITS, now, 60)),
      'fair_use_exceeded',
    );
    const paid = chargeFor(params({ ai_visual: true, placement: { product: 'Tea' }, billing: 'doubloons' }), used, DEFAULT_LIMITS, now, 60);
    assert.deepEqual([paid.cost, paid.heavyAllowanceMonth], [250, undefined]);
    // A new month starts a new allowance.
    const lastMonth = account({ plan, heavyMonth: '2026-10', heavyUsed: 2 });
    assert.equal(chargeFor(heavy, lastMonth, DEFAULT_LIMITS, now, 60).heavyAllowanceMonth, '2026-11');
  });

  it('makes users without a plan pay for heavy extras', () => {
    assert.equal(chargeFor(params({ music: 'song' }), account(), DEFAULT_LIMITS, now, 60).cost, 170);
  });

  it('refuses a short balance with 402 and an eleventh active task with 429', () => {
    assert.equal(
      codeOf(() => chargeFor(params(), account({ balance: 99 }), DEFAULT_LIMITS, now, 60)),
      'insufficient_funds',
    );
    assert.equal(
      codeOf(() => chargeFor(params(), account({ activeTasks: 10 }), DEFAULT_LIMITS, now, 60)),
      'active_tasks_exceeded',
    );
    assert.equal(
      codeOf(() => chargeFor(params(), account({ balance: 0, trialVideosLeft: 1 }), DEFAULT_LIMITS, now, 60)),
      'no error',
    );
  });

  it('charges the prices a deployment sets, and refuses unknown or negative ones', () => {
    const prices = pricesFrom({ base: 80, song: 0 }, 'PRICES');
    assert.deepEqual(prices, { base: 80, placement: 50, ai_visual: 100, song: 0, voice_clone: 100 });
    assert.equal(chargeFor(params({ music: 'song', placement: { product: 'Tea' } }), account(), DEFAULT_LIMITS, now, 60, prices).cost, 130);
    assert.throws(() => pricesFrom({ bass: 1 }, 'PRICES'), /PRICES names an unknown item "bass"/);
    assert.throws(() => pricesFrom({ base: -1 }, 'PRICES'), /PRICES: base must be a non-negative integer/);
  });
});
