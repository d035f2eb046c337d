import * as z from 'zod/mini';
import { text } from './zod.ts';

/** Approve the script as it is: the order goes on to rendering. */
export const reviewApprove = z.strictObject({ action: z.literal('approve') });
/** The client's own script text, in the same form as the order's `script` field. */
export const reviewEdit = z.strictObject({ action: z.literal('edit'), text: text(5000) });
/** What to change; the script is rewritten along it and comes back for review. */
export const reviewRegen = z.strictObject({ action: z.literal('regen'), note: text(1000) });

/** Body of POST /videos/{id}/review, one branch per `action`. */
export const reviewBody = z.discriminatedUnion('action', [reviewApprove, reviewEdit, reviewRegen]);
export type ReviewDecision = z.infer<typeof reviewBody>;
