/**
 * The renderer's side of the voice rule (core/voice-fit.ts), with the real eSpeak: every line the rule lets through is
 * spoken within its scene, even lines the fastest voice overruns (digits, a spelled-out word), and a script the rule
 * refuses fails the render with the rule's own words, before any work.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { GeneratorFailed, type Scene } from '../../functions/core/generator.ts';
import { MAX_SPOKEN_PER_SECOND, spokenLength, VOICE_LEAD_IN, voiceMisfit } from '../../functions/core/voice-fit.ts';
import { EmbeddedRenderer, sceneVoice } from '../../functions/generator/render.ts';
import { Voice, VOICE_RATE } from '../../functions/generator/voice.ts';

const voice = new Voice();
after(() => voice.close());
const say = (text: string, language: 'ru' | 'en', wpm?: number) => voice.speak(text, language, wpm);

/** The shortest scene (in tenths of a second) the rule lets `line` through in. */
function tightest(line: string, language: 'ru' | 'en'): Scene {
  const seconds = Math.ceil((VOICE_LEAD_IN + spokenLength(line, language) / MAX_SPOKEN_PER_SECOND) * 10) / 10;
  return { caption: 'x', voiceover: line, visual: 'x', seconds };
}

const LINES: [string, 'ru' | 'en'][] = [
  ['Green tea has less caffeine than coffee, and a calmer kind of energy. Try a cup this afternoon.', 'en'],
  ['Зелёный чай: меньше кофеина, больше спокойствия. Попробуйте сегодня вечером!', 'ru'],
  ['Достопримечательности интернационализация высокопроизводительный.', 'ru'],
  ['Скидка 50% до пятницы! Всего 1990 рублей.', 'ru'],
  ['Call 555 1234 5678 before 2025.', 'en'],
  ['777777777777777', 'ru'],
  ['Видео про чай, in English.', 'en'],
  ['NASA FBI USA HTML CSS API SDK', 'en'],
];

describe('the renderer under the voice rule', () => {
  it('speaks every line the rule lets through within its scene, squeezing what the fastest voice overruns', async () => {
    const squeezed: string[] = [];
    for (const [line, language] of LINES) {
      const scene = tightest(line, language);
      assert.equal(voiceMisfit([scene], language, 'standard'), undefined, line);
      let last = 0;
      const heard = async (text: string, lang: 'ru' | 'en', wpm?: number) => {
        const speech = await say(text, lang, wpm);
        last = speech.seconds;
        return speech;
      };
      const samples = await sceneVoice(scene, language, heard);
      const room = scene.seconds - VOICE_LEAD_IN;
      assert.ok(samples && samples.length / VOICE_RATE <= room, `${line}: ${samples!.length / VOICE_RATE} s in ${scene.seconds} s`);
      if (last > room) squeezed.push(line);
    }
    // Digits said as long numbers overrun eSpeak's fastest: the squeeze is what keeps them in their scene.
    assert.ok(squeezed.includes('777777777777777'), `squeezed: ${squeezed.join(' | ')}`);
  });

  it("fails a script the rule refuses with the rule's words, before any work", async () => {
    const scenes = [{ ...tightest('Tea time.', 'en'), voiceover: 'Tea time. '.repeat(30) }];
    const params = createVideoBody.parse({ topic: 'Tea' });
    const script = { language: 'en' as const, scenes, pack: { title: 'Tea', description: 'Tea', hashtags: ['#tea'] } };
    await assert.rejects(new EmbeddedRenderer().render({ script, params, outDir: '/nonexistent/never-written' }), (err: Error) => {
      assert.ok(err instanceof GeneratorFailed);
      assert.equal(err.message, `The script cannot be spoken: ${voiceMisfit(scenes, 'en', 'standard')}`);
      return true;
    });
  });
});
