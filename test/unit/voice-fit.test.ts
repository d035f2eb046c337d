/**
 * The voice rule (core/voice-fit.ts) that a review's edit and the renderer both apply: a scene's voice, in spoken
 * characters, must fit its time at the fastest pace. test/generator/voice-fit.test.ts checks the renderer's side with
 * the real voice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SPOKEN_PER_SECOND, spokenLength, VOICE_LEAD_IN, voiceMisfit } from '../../functions/core/voice-fit.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { writeScript } from '../../functions/generator/writer.ts';
import { LABELLED } from './planner-labelled.ts';
import { LABELLED_PROMPTS } from './writer-labelled.ts';

describe('the voice rule', () => {
  it('counts a line as the voice says it: a digit or a symbol as a word, a letter of another alphabet spelled out', () => {
    assert.equal(spokenLength('Tea  time.\n', 'en'), 9);
    assert.equal(spokenLength('Скидка 50%!', 'ru'), 6 + 1 + 3 * 6 + 1);
    assert.equal(spokenLength('Чай', 'ru'), 3);
    assert.equal(spokenLength('Чай', 'en'), 9);
    assert.equal(spokenLength('iPhone', 'ru'), 6);
    assert.equal(spokenLength('USB ports, SMS', 'en'), 14 + 6, 'an abbreviation spelled');
    assert.equal(spokenLength('Кофе 🔥', 'ru'), 4 + 1 + 6);
    assert.equal(spokenLength('й'.normalize('NFD'), 'ru'), 1, 'a combining mark is part of its letter');
  });

  it('lets through a scene at its limit and refuses one character more, naming the scene, its seconds and the limit', () => {
    const seconds = 1.15;
    const fit = 36;
    assert.equal(Math.round((seconds - VOICE_LEAD_IN) * MAX_SPOKEN_PER_SECOND), fit);
    const short = { voiceover: 'Tea.', seconds: 2 };
    assert.equal(voiceMisfit([short, { voiceover: 'x'.repeat(fit), seconds }], 'en', 'standard'), undefined);
    const misfit = voiceMisfit([short, { voiceover: 'x'.repeat(fit + 1), seconds }], 'en', 'standard');
    assert.match(misfit ?? '', /^the voice of scene 2 cannot be spoken in its 1\.15 s: it is 37 spoken characters long and at most 36 fit/);
    assert.ok(voiceMisfit([{ voiceover: '1'.repeat(8), seconds }], 'en', 'clone'), 'a cloned voice by the same rule');
  });

  it('asks nothing of an order without a voice', () => {
    assert.equal(voiceMisfit([{ voiceover: 'x'.repeat(500), seconds: 1.5 }], 'en', 'none'), undefined);
  });

  it('lets through every script the embedded writer writes (124 labelled prompts, every duration from 10 to 60 s)', () => {
    const prompts = [...LABELLED_PROMPTS.map((l) => l.prompt), ...LABELLED.map((l) => l.prompt)];
    assert.ok(prompts.length >= 120);
    for (const prompt of prompts)
      for (let duration = 10; duration <= 60; duration++) {
        const script = writeScript({ params: { ...planFromPrompt(prompt), duration_seconds: duration } });
        assert.equal(voiceMisfit(script.scenes, script.language, 'standard'), undefined, `${prompt} (${duration} s)`);
      }
  });
});
