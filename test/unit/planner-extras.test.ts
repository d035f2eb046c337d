/**
 * Paid extras only on an explicit ask (issue 37): over the labelled set (test/unit/extras-labelled.ts) the planner
 * plans exactly the extras each prompt asks for, and a song, a voice or AI images the video is about stay in its
 * topic. 100% is required: a miss either charges a customer for what they never asked for or drops what they paid for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extrasOf } from '../../functions/core/pricing.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { ASKING, EXTRAS_LABELLED, SUBJECT_ONLY } from './extras-labelled.ts';

const cyrillic = (s: string) => /[а-яё]/i.test(s);
const sorted = (extras: readonly string[]) => [...extras].sort().join('+') || 'none';

describe('the planner plans a paid extra only when the prompt asks for it', () => {
  it('is tried on at least 60 prompts, Russian and English, at least half naming an extra only as their subject', () => {
    assert.ok(EXTRAS_LABELLED.length >= 60, `${EXTRAS_LABELLED.length} prompts`);
    const ru = EXTRAS_LABELLED.filter((l) => cyrillic(l.prompt)).length;
    assert.ok(ru >= 25 && EXTRAS_LABELLED.length - ru >= 25, `${ru} Russian, ${EXTRAS_LABELLED.length - ru} English`);
    assert.ok(SUBJECT_ONLY.length * 2 >= EXTRAS_LABELLED.length, `${SUBJECT_ONLY.length} subject-only`);
    assert.ok(SUBJECT_ONLY.every((l) => l.extras.length === 0));
    assert.ok(ASKING.every((l) => l.extras.length > 0));
  });

  it('plans exactly the extras each prompt asks for, in every prompt of the set', (t) => {
    const misses = EXTRAS_LABELLED.flatMap((l) => {
      const got = sorted(extrasOf(planFromPrompt(l.prompt)));
      return got === sorted(l.extras) ? [] : [`${l.prompt}: expected ${sorted(l.extras)}, got ${got}`];
    });
    const summary = `${EXTRAS_LABELLED.length - misses.length}/${EXTRAS_LABELLED.length} right`;
    t.diagnostic([summary, ...misses].join('\n  '));
    assert.deepEqual(misses, [], summary);
  });

  it('keeps the subject in the topic', () => {
    const misses = EXTRAS_LABELLED.flatMap((l) => {
      const { topic } = planFromPrompt(l.prompt);
      return topic.toLowerCase().includes(l.keeps.toLowerCase()) ? [] : [`${l.prompt}: "${topic}" lost "${l.keeps}"`];
    });
    assert.deepEqual(misses, []);
  });
});
