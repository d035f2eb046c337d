/**
 * Whether each scene's voice can be spoken in the scene's time: the one rule that both a review's edit (review.ts:
 * 422 naming `text`) and the renderer (generator/render.ts: a lasting failure) apply, so an edit accepted at review is
 * one the render speaks. No speech engine runs here, so a line's length is estimated in spoken characters; the
 * renderer speeds its voice up and, past the voice's fastest, squeezes it into the scene, so whatever this rule lets
 * through is spoken in time.
 */
import type { OrderParams } from '../contract/orders.ts';
import type { Scene, Script } from './generator.ts';

/** The pause before a scene's voice starts; the voice must end within the scene. */
export const VOICE_LEAD_IN = 0.15;
/**
 * The fastest a line may have to be spoken, in spoken characters per second (about 380 words a minute in English).
 * Measured over 629 lines (the embedded writer's and the labelled prompts, ru and en): eSpeak's fastest (450 wpm)
 * speaks 84% of them at least this fast and all at 30 or more, so such a line at the limit is squeezed by a sixth at
 * most; the embedded writer's densest scene (124 prompts, every duration from 10 to 60 s) needs 32.5.
 */
export const MAX_SPOKEN_PER_SECOND = 36;
/** A digit or a symbol is read as a word ("50%": "fifty percent"); % # & @ are punctuation to Unicode, not to a voice. */
const WORD_READ = 6;
const READ_AS_WORD = /[\p{N}\p{S}%‰#&@]/u;
/** A letter outside the voice's alphabets is spelled out (Cyrillic in an English script). */
const SPELLED = 3;
/** An abbreviation (two to four capitals) is spelled too, each letter a syllable: it counts twice. */
const ABBREVIATION = /(?<![\p{L}\p{N}])\p{Lu}{2,4}(?![\p{L}\p{N}])/gu;
const ALPHABETS = { en: /\p{Script=Latin}/u, ru: /[\p{Script=Cyrillic}\p{Script=Latin}]/u } as const;

/** The length of a line as the voice says it, in spoken characters. */
export function spokenLength(text: string, language: Script['language']): number {
  const line = text.replace(/\s+/g, ' ').trim();
  let n = 0;
  for (const m of line.matchAll(ABBREVIATION)) n += m[0].length;
  for (const c of line) {
    if (READ_AS_WORD.test(c)) n += WORD_READ;
    else if (/\p{M}/u.test(c)) continue;
    else if (/\p{L}/u.test(c)) n += ALPHABETS[language].test(c) ? 1 : SPELLED;
    else n += 1;
  }
  return n;
}

/** The first scene whose voice cannot be spoken in its time, said for the client; undefined when every one can. */
export function voiceMisfit(
  scenes: readonly Pick<Scene, 'voiceover' | 'seconds'>[],
  language: Script['language'],
  voice: OrderParams['voice'],
): string | undefined {
  if (voice === 'none') return undefined;
  for (const [i, scene] of scenes.entries()) {
    const length = spokenLength(scene.voiceover, language);
    // The epsilon keeps tenths of a second exact (1.15 - 0.15 is 0.9999999999999999).
    const fit = Math.floor(Math.max(0, scene.seconds - VOICE_LEAD_IN) * MAX_SPOKEN_PER_SECOND + 1e-9);
    if (length > fit)
      return (
        `the voice of scene ${i + 1} cannot be spoken in its ${scene.seconds} s: it is ${length} spoken characters long and at most ${fit} fit ` +
        `(${MAX_SPOKEN_PER_SECOND} a second; a digit or a symbol counts ${WORD_READ}); shorten it`
      );
  }
  return undefined;
}
