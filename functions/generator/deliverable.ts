/**
 * The paid extras this process's generator delivers, read where orders are created (a module of its own, so that the
 * API's functions do not load the generator). AI visuals need an image generator (GENERATOR_IMAGES_URL) and a cloned
 * voice a speech provider with the cloned voice's id (GENERATOR_SPEECH_URL and GENERATOR_SPEECH_CLONE_VOICE): the
 * embedded generator makes neither, so without them both are refused at creation (422 naming the field).
 */
import type { Deliverable } from '../core/generator.ts';

export function deliverableFromEnv(env: NodeJS.ProcessEnv = process.env): Deliverable {
  return { ai_visual: Boolean(env.GENERATOR_IMAGES_URL), voice_clone: Boolean(env.GENERATOR_SPEECH_URL && env.GENERATOR_SPEECH_CLONE_VOICE) };
}
