import * as z from 'zod/mini';
import { text } from './zod.ts';

/** Body of POST /videos/{id}/review. */
export const reviewBody = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('approve') }),
  /** The client's own script text, in the same form as the order's `script` field. */
  z.strictObject({ action: z.literal('edit'), text: text(5000) }),
  /** What to change; the script is rewritten along it and comes back for review. */
  z.strictObject({ action: z.literal('regen'), note: text(1000) }),
]);
export type ReviewDecision = z.infer<typeof reviewBody>;
