/**
 * The paid extras this process's generator delivers, read where orders are created (a module of its own, so that the
 * API's functions do not load the generator). AI visuals need an image generator (GENERATOR_IMAGES_URL) and a cloned
 * voice a speech provider with the cloned voice's id (GENERATOR_SPEECH_URL and GENERATOR_SPEECH_CLONE_VOICE): the
 * embedded generator makes neither, so without them both are refused at creation (422 naming the field).
 */
import type { Deliverable } from '../core/generator.ts';
import { CLONE_VOICE, PROVIDERS } from './openai-http.ts';

/** The settings that decide what is delivered: creation reads these (on AWS the stack gives them, with no key). */
export const DELIVERABLE_SETTINGS = [`${PROVIDERS.images.prefix}_URL`, `${PROVIDERS.speech.prefix}_URL`, CLONE_VOICE] as const;

export function deliverableFromEnv(env: NodeJS.ProcessEnv = process.env): Deliverable {
  const [images, speech, cloneVoice] = DELIVERABLE_SETTINGS.map((k) => Boolean(env[k]));
  return { ai_visual: images!, voice_clone: speech! && cloneVoice! };
}
