import type { BalanceResponse } from '../contract/balance.ts';
import { type Account, heavyLeft, isLive } from './pricing.ts';

export function balanceView(account: Account, now: Date): BalanceResponse {
  const heavy = heavyLeft(account, now);
  return {
    balance: account.balance,
    trial_videos_left: account.trialVideosLeft,
    ...(account.plan ? { plan: account.plan.name, heavy_videos_left: heavy ?? 0 } : {}),
    livemode: isLive(account),
  };
}
