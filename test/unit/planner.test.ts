import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extrasOf } from '../../functions/core/pricing.ts';
import { detectLanguage } from '../../functions/core/language.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';

describe('planner', () => {
  it('reads extras, duration, tone and language from an English prompt', () => {
    const p = planFromPrompt('Funny 20 seconds video about cats with a song, AI visuals, with my product Purrfect Food');
    assert.equal(p.language, 'en');
    assert.equal(p.duration_seconds, 20);
    assert.equal(p.tone, 'funny');
    assert.equal(p.music, 'song');
    assert.equal(p.ai_visual, true);
    assert.equal(p.placement?.product, 'Purrfect Food');
    assert.deepEqual(extrasOf(p), ['placement', 'ai_visual', 'song']);
    assert.equal(p.topic, 'Cats');
  });

  it('reads a Russian prompt', () => {
    const p = planFromPrompt('Спокойное видео про утренний кофе с песней, 45 секунд, моим голосом');
    assert.equal(p.language, 'ru');
    assert.equal(p.duration_seconds, 45);
    assert.equal(p.tone, 'calm');
    assert.equal(p.music, 'song');
    assert.equal(p.voice, 'clone');
    assert.equal(p.topic, 'Утренний кофе');
  });

  it('cuts a duration, a tone and the kind of video with the words that belong to them, and nothing else', () => {
    for (const [prompt, topic] of [
      ['Explain how solar panels work in 20 seconds, calm tone', 'Explain how solar panels work'],
      ['A 10 second video about tea in a funny style', 'Tea'],
      ['Сделай видео за 20 секунд в спокойном тоне про утренний кофе', 'Утренний кофе'],
      ['Cats in 15 sec', 'Cats'],
      // The word that says what kind of video it is goes with the video word.
      ['Рекламный ролик кофейни у дома, скидка 20% на капучино по утрам', 'Кофейни у дома, скидка 20% на капучино по утрам'],
      ['A promo video for my bakery, 20% off croissants', 'My bakery, 20% off croissants'],
      // A preposition stays before a word not in the nominative's form, so the topic reads as written (issue 29).
      ['Смешное видео про котов с песней на 20 секунд', 'Про котов'],
      ['Видео о весне на английском языке, без музыки', 'О весне'],
      ['Ролик про йогу моим голосом, спокойный тон', 'Про йогу'],
      ['Видео на тему весны', 'На тему весны'],
      ['Видео про кроссовки для бега', 'Кроссовки для бега'],
      ['Ролик для детей про космос', 'Для детей про космос'],
      // Thirty minutes is the offer's, not the video's length.
      ['Автосервис: замена масла за 30 минут', 'Автосервис: замена масла за 30 минут'],
    ] as const) {
      assert.equal(planFromPrompt(prompt).topic, topic, prompt);
    }
  });

  it('is deterministic and keeps a plain prompt free of extras', () => {
    const prompt = 'How to brew green tea';
    assert.deepEqual(planFromPrompt(prompt), planFromPrompt(prompt));
    assert.deepEqual(extrasOf(planFromPrompt(prompt)), []);
    assert.equal(planFromPrompt(prompt).duration_seconds, 30);
  });

  it('clamps durations into 10 to 60 seconds', () => {
    assert.equal(planFromPrompt('video about rain 3 minutes').duration_seconds, 60);
    assert.equal(planFromPrompt('video about rain 2 sec').duration_seconds, 10);
  });

  it('detects the language by letters', () => {
    assert.equal(detectLanguage('Привет, world'), 'ru');
    assert.equal(detectLanguage('hello мир wide'), 'en');
    assert.equal(detectLanguage('12345'), 'en');
  });
});
