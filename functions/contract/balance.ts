import * as z from 'zod/mini';

/** GET /balance. heavy_videos_left appears only for users with a plan. */
export const balanceResponse = z.object({
  balance: z.int(),
  trial_videos_left: z.int(),
  plan: z.optional(z.string()),
  heavy_videos_left: z.optional(z.int()),
});
export type BalanceResponse = z.infer<typeof balanceResponse>;
