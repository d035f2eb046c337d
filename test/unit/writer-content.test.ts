/** The embedded writer says what the customer asked: scenes from the prompt's own content (issue 29). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentOf } from '../../functions/generator/content.ts';
import { stems } from '../../functions/generator/pictures.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { writeScript } from '../../functions/generator/writer.ts';
import { LABELLED_PROMPTS } from './writer-labelled.ts';

/** A word's stem, or the word itself when it has none worth matching (a number, "20%", "$15"). */
const keysOf = (text: string) => new Set([...stems(text).map((w) => w.stem), ...(text.match(/[$€]?\d+%?/g) ?? [])]);

/** The non-CTA scenes of each labelled prompt's script, and whether each carries a word of the prompt's content. */
function scenesOf() {
  return LABELLED_PROMPTS.map((l) => {
    const script = writeScript({ params: planFromPrompt(l.prompt) });
    const wanted = keysOf(l.words.join(' '));
    const scenes = script.scenes.slice(0, -1).map((s) => {
      const said = keysOf(`${s.caption} ${s.voiceover}`);
      return { caption: s.caption, carries: [...wanted].some((k) => said.has(k)) };
    });
    return { prompt: l.prompt, scenes };
  });
}

describe('the embedded writer', () => {
  it('labels half Russian and half English prompts of every kind', () => {
    assert.ok(LABELLED_PROMPTS.length >= 40);
    const ru = LABELLED_PROMPTS.filter((l) => /[а-яё]/i.test(l.prompt)).length;
    assert.equal(ru * 2, LABELLED_PROMPTS.length);
    for (const kind of ['offer', 'how-to', 'product', 'place', 'event'])
      assert.ok(
        LABELLED_PROMPTS.some((l) => l.kind === kind),
        kind,
      );
  });

  it("makes at least 80% of the non-CTA scenes carry a word of the prompt's content", () => {
    const all = scenesOf().flatMap((p) => p.scenes.map((s) => ({ ...s, prompt: p.prompt })));
    const missing = all.filter((s) => !s.carries);
    const share = 1 - missing.length / all.length;
    assert.ok(share >= 0.8, `${(share * 100).toFixed(1)}% of ${all.length}; without content: ${missing.map((s) => `${s.prompt} -> ${s.caption}`).join(' | ')}`);
  });

  it('shares no non-CTA caption between two prompts', () => {
    const seen = new Map<string, string>();
    for (const p of scenesOf()) {
      for (const s of new Set(p.scenes.map((x) => x.caption.toLowerCase()))) {
        assert.ok(!seen.has(s), `"${s}" in both "${seen.get(s)}" and "${p.prompt}"`);
        seen.set(s, p.prompt);
      }
    }
  });

  it('finds the offer, the time and the steps a topic names, in its order', () => {
    assert.deepEqual(contentOf('Кофейни у дома, скидка 20% на капучино по утрам'), {
      subject: 'Кофейни у дома',
      promo: true,
      items: [
        { kind: 'offer', text: 'Скидка 20% на капучино по утрам' },
        { kind: 'time', text: 'По утрам' },
      ],
    });
    assert.deepEqual(contentOf('Уход за кошкой: как часто кормить и расчесывать').items, [
      { kind: 'question', text: 'Как часто кормить' },
      { kind: 'question', text: 'Как часто расчесывать' },
    ]);
    assert.equal(contentOf('Explain how solar panels work').subject, 'How solar panels work');
    assert.equal(contentOf('Explain how solar panels work').promo, false, 'a how-to gets advice, not an invitation');
    assert.deepEqual(contentOf('Solar panels and batteries').items, [], 'a list of things is one subject, not steps');
  });

  it('says the points in the tone asked for', () => {
    const voices = (prompt: string) =>
      writeScript({ params: planFromPrompt(prompt) })
        .scenes.slice(1, -1)
        .map((s) => s.voiceover);
    assert.ok(voices('Energetic video about our gym: free first week, open 24/7').every((v) => v.endsWith('!')));
    assert.ok(voices('Calm video about our gym: free first week, open 24/7').some((v) => v.endsWith('.')));
  });

  it('shows the four prompts of the issue with their subjects', () => {
    const captions = (prompt: string) =>
      writeScript({ params: planFromPrompt(prompt) })
        .scenes.map((s) => s.caption)
        .join(' | ');
    assert.match(captions('Рекламный ролик кофейни у дома, скидка 20% на капучино по утрам'), /кофейни.*20% на капучино.*утрам/is);
    assert.match(captions('Funny 30 second video about green tea with a song'), /green tea/i);
    assert.match(captions('Explain how solar panels work in 20 seconds, calm tone'), /^How solar panels work \|/);
    assert.match(captions('Видео про уход за кошкой: как часто кормить и расчесывать'), /кошкой.*кормить.*расчесывать/is);
  });
});
