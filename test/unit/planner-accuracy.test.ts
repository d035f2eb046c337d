/**
 * The planner over a labelled set of prompts (test/unit/planner-labelled.ts, Russian and English): each field must be
 * right in at least 95% of them. The misses are listed in the message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { LABELLED } from './planner-labelled.ts';

const FIELDS = ['tone', 'duration_seconds', 'language', 'music', 'voice', 'ai_visual', 'captions', 'product', 'cta'] as const;
type Field = (typeof FIELDS)[number];

const cyrillic = (s: string) => /[а-яё]/i.test(s);

describe('the planner on a labelled set of prompts', () => {
  it('has at least 80 prompts, in Russian and in English', () => {
    assert.ok(LABELLED.length >= 80, `${LABELLED.length} prompts`);
    const ru = LABELLED.filter((l) => cyrillic(l.prompt)).length;
    assert.ok(ru >= 30 && LABELLED.length - ru >= 30, `${ru} Russian, ${LABELLED.length - ru} English`);
  });

  it('gets each field right in at least 95% of the prompts', (t) => {
    const misses: Record<Field, string[]> = Object.fromEntries(FIELDS.map((f) => [f, []])) as unknown as Record<Field, string[]>;
    for (const l of LABELLED) {
      const p = planFromPrompt(l.prompt);
      const expected: Record<Field, unknown> = {
        tone: l.tone ?? 'neutral',
        duration_seconds: l.duration_seconds ?? 30,
        language: l.language ?? (cyrillic(l.prompt) ? 'ru' : 'en'),
        music: l.music ?? 'stock',
        voice: l.voice ?? 'standard',
        ai_visual: l.ai_visual ?? false,
        captions: l.captions ?? true,
        product: l.product,
        cta: l.cta,
      };
      const got: Record<Field, unknown> = { ...p, product: p.placement?.product, cta: p.cta };
      for (const f of FIELDS) if (got[f] !== expected[f]) misses[f].push(`${l.prompt}: expected ${String(expected[f])}, got ${String(got[f])}`);
    }
    const lines = FIELDS.map((f) => `${f}: ${(100 * (1 - misses[f].length / LABELLED.length)).toFixed(1)}%${misses[f].map((m) => `\n  ${m}`).join('')}`);
    t.diagnostic(lines.join('\n'));
    for (const f of FIELDS) assert.ok(misses[f].length <= LABELLED.length * 0.05, lines.join('\n'));
  });
});
