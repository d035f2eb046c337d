/**
 * The paid extras this process's generator delivers, read where orders are created (a module of its own, so that the
 * API's functions do not load the generator). The embedded generator makes neither AI pictures nor a cloned voice:
 * both are refused at creation (422 naming the field) until a provider that makes them is configured.
 */
import type { Deliverable } from '../core/generator.ts';

export function deliverableFromEnv(_env: NodeJS.ProcessEnv = process.env): Deliverable {
  return { ai_visual: false, voice_clone: false };
}
