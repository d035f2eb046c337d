/** The plans an operator can give a user, and the trial new users get. */
const PLANS: Record<string, { heavyPerMonth: number }> = {
  creator: { heavyPerMonth: 20 },
  studio: { heavyPerMonth: 100 },
};
export const DEFAULT_TRIAL_VIDEOS = 3;

export function planNamed(name: string): { name: string; heavyPerMonth: number } {
  const plan = PLANS[name];
  if (!plan) throw new Error(`Unknown plan "${name}"; plans: ${Object.keys(PLANS).join(', ')}`);
  return { name, ...plan };
}
