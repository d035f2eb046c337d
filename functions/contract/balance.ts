import { z } from 'zod';

/** GET /balance. heavy_videos_left appears only for users with a plan. */
export const balanceResponse = z.object({
  balance: z.int(),
  trial_videos_left: z.int(),
  plan: z.string().optional(),
  heavy_videos_left: z.int().optional(),
});
export type BalanceResponse = z.infer<typeof balanceResponse>;
