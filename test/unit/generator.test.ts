import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVideoBody, quickVideoBody } from '../../functions/contract/orders.ts';
import { validate } from '../../functions/app/validate.ts';
import { InvalidParams } from '../../functions/core/errors.ts';
import { FONTS } from '../../functions/generator/fonts.ts';
import { layoutCaption, measure } from '../../functions/generator/layout.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { GeneratorFailed } from '../../functions/core/generator.ts';
import { formatScript, parseScript } from '../../functions/core/script-text.ts';
import { writeScript } from '../../functions/generator/writer.ts';

const BOX = { width: 840, height: 740, maxSize: 92, minSize: 40, lineSpacing: 1.25 };

describe('caption layout', () => {
  it('fits every line in the safe width and loses no drawable character, splitting a too-long word', () => {
    const text = 'Непереносимость Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen и mixed Latin text';
    const l = layoutCaption(FONTS.caption, text, BOX);
    assert.ok(l.lines.length >= 3);
    for (const line of l.lines) assert.ok(measure(FONTS.caption, line, l.size) <= BOX.width, line);
    assert.ok(l.lines.length * l.lineHeight <= BOX.height);
    assert.equal(l.lines.join(' ').replace(/- /g, '').replace(/\s+/g, ''), text.replace(/\s+/g, ''));
  });

  it('shrinks long captions instead of cutting them, and refuses text that cannot fit at all', () => {
    const long = 'очень длинная подпись '.repeat(12);
    const l = layoutCaption(FONTS.caption, long, BOX);
    assert.ok(l.size < BOX.maxSize);
    assert.equal(l.lines.join(' ').replace(/\s+/g, ' '), long.trim().replace(/\s+/g, ' '));
    assert.throws(() => layoutCaption(FONTS.caption, 'слово '.repeat(400), BOX), GeneratorFailed);
  });

  it('shrinks a caption before it splits a word with a hyphen the client did not write', () => {
    const l = layoutCaption(FONTS.caption, 'Подписывайтесь', { ...BOX, height: 440 });
    assert.deepEqual(l.lines, ['Подписывайтесь']);
    assert.ok(l.size < BOX.maxSize, `at ${l.size} px`);
  });

  it('leaves out what the font cannot draw (emoji) and keeps Cyrillic', () => {
    assert.deepEqual(layoutCaption(FONTS.caption, 'Кофе ☕️ time 🔥', BOX).lines, ['Кофе time']);
    assert.deepEqual(layoutCaption(FONTS.caption, '  🎉  ', BOX).lines, []);
  });
});

describe('writer', () => {
  it('writes 4 to 8 scenes that fill the duration, with a posting pack', () => {
    for (const duration of [10, 15, 30, 45, 60]) {
      const s = writeScript({ params: createVideoBody.parse({ topic: 'Green tea', duration_seconds: duration }) });
      assert.ok(s.scenes.length >= 4 && s.scenes.length <= 8, `${s.scenes.length} scenes for ${duration}s`);
      assert.ok(Math.abs(s.scenes.reduce((a, b) => a + b.seconds, 0) - duration) < 0.05);
      assert.ok(s.pack.title && s.pack.description);
      assert.ok(s.pack.hashtags.length > 0 && s.pack.hashtags.every((h) => /^#\S+$/.test(h)));
    }
  });

  it('is deterministic, writes in the topic’s language, and shows the product and the call to action', () => {
    const params = planFromPrompt('Видео про утренний кофе с моим продуктом Бодрость, призыв: Заходите в кофейню');
    const a = writeScript({ params });
    assert.deepEqual(a, writeScript({ params }));
    assert.equal(a.language, 'ru');
    assert.ok(a.scenes.some((s) => s.caption.includes('Бодрость')));
    assert.equal(a.scenes.at(-1)!.caption, 'Заходите в кофейню');
  });

  it('rewrites along a regen note', () => {
    const params = createVideoBody.parse({ topic: 'Green tea', duration_seconds: 30 });
    const first = writeScript({ params });
    const again = writeScript({ params, regen: { note: 'Mention that it has less caffeine than coffee, and make it funny', previous: first } });
    assert.notDeepEqual(again.scenes, first.scenes);
    assert.ok(formatScript(again).includes('less caffeine than coffee'));
    assert.match(again.scenes[0]!.voiceover, /really|Stay with me/);
  });
});

describe('script text', () => {
  it('round-trips the written script and parses free text', () => {
    const s = writeScript({ params: createVideoBody.parse({ topic: 'Green tea', duration_seconds: 20 }) });
    const parsed = parseScript(formatScript(s), 20);
    assert.deepEqual(
      parsed.map((p) => [p.caption, p.voiceover]),
      s.scenes.map((p) => [p.caption, p.voiceover]),
    );
    const free = parseScript('First we boil water.\n\nThen we wait three minutes.\n\nScene 3\nCaption: Enjoy', 15);
    assert.deepEqual(
      free.map((p) => p.caption),
      ['First we boil water.', 'Then we wait three minutes.', 'Enjoy'],
    );
    assert.ok(Math.abs(free.reduce((a, b) => a + b.seconds, 0) - 15) < 0.05);
  });

  it('refuses text that cannot be a script, naming text', () => {
    for (const bad of ['', '   \n\n ', Array.from({ length: 13 }, (_, i) => `part ${i}`).join('\n\n'), `Caption: ${'x'.repeat(200)}`]) {
      assert.throws(
        () => parseScript(bad, 30),
        (e: unknown) => e instanceof InvalidParams && e.field === 'text',
        JSON.stringify(bad).slice(0, 40),
      );
    }
  });
});

describe('prompts', () => {
  it('gives a clear validation error for an empty or whitespace-only prompt', () => {
    for (const prompt of ['', '   ', '\n\t']) {
      assert.throws(
        () => validate(quickVideoBody, { prompt }),
        (e: unknown) => e instanceof InvalidParams && e.message === 'prompt: must not be empty',
      );
    }
  });
});
