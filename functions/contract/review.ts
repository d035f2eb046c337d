import * as z from 'zod/mini';
import { text } from './zod.ts';

/** One branch of the review body: its `action`, what the decision does, its other fields and an example of them. */
const decision = <A extends string, F extends z.core.$ZodLooseShape>(action: A, description: string, fields: F, example: Record<string, string>) =>
  z
    .strictObject({ action: z.literal(action).check(z.describe(`\`${action}\`: ${description}`)), ...fields })
    .check(z.meta({ description, examples: [{ action, ...example }] }));

export const reviewApprove = decision('approve', 'Approve the script as it is: the order goes on to rendering.', {}, {});
export const reviewEdit = decision(
  'edit',
  "Replace the script with the client's own text: the order goes on to rendering with it.",
  {
    text: text(5000).check(
      z.describe(
        "The whole script, in the form of the order's `script` field (per scene a block of `Caption:`, `Voice:` and `Visual:` lines, and optionally `Image: <asset id>` for the scene's picture, an asset of this key; blocks separated by a blank line), 1 to 5000 characters; refused with 422 naming `text` when it cannot be read as a script, a scene's voice is too long to be spoken in the scene's time (the scene and the limit are named), or an `Image:` names no usable asset of this key.",
      ),
    ),
  },
  {
    text: 'Scene 1\nCaption: Green tea\nVoice: Three cups a day, and here is why.\nVisual: steam over a cup\n\nScene 2\nCaption: Follow for more\nVoice: Follow for more tea facts.\nVisual: bell',
  },
);
export const reviewRegen = decision(
  'regen',
  'Have the script rewritten along a note; it comes back for review.',
  {
    note: text(1000).check(
      z.describe(
        'What to change, 1 to 1000 characters. The script is rewritten along it and the order comes back to `awaiting_review` (at most 3 rewrites per order; then 409 `regen_limit_reached`).',
      ),
    ),
  },
  { note: 'Make it funnier and mention that it is best brewed at 80 °C' },
);

export const reviewBody = z.discriminatedUnion('action', [reviewApprove, reviewEdit, reviewRegen]).check(
  z.meta({
    description:
      'Body of POST /videos/{id}/review: the decision on the script of an order in `awaiting_review`, one branch per `action`. Each decision makes the order `running` again, which takes one of the key’s active tasks.',
    examples: [{ action: 'approve' }, { action: 'regen', note: 'Shorter sentences, and end with a question' }],
  }),
);
export type ReviewDecision = z.infer<typeof reviewBody>;
