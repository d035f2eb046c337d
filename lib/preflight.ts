/**
 * The deploy's concurrency check, as pure arithmetic (bin/preflight.ts asks AWS for the numbers). The render function
 * reserves the stage's renderSlots and testRenderSlots and the webhook delivery function its deliveryConcurrency;
 * Lambda refuses a reservation that leaves fewer than 100 executions of the account's quota unreserved, and a new
 * account may have a quota of 10 or 50, so without this check the first deploy fails at a reserving function and rolls
 * back.
 */

/**
 * The functions that reserve concurrency: the settings each reserves (the render function both lanes' slots, the live
 * and the test lane's), and the stack output that names it.
 */
export const RESERVING = [
  { fn: 'render-video', settings: ['renderSlots', 'testRenderSlots'], output: 'RenderFunctionName' },
  { fn: 'deliver-event', settings: ['deliveryConcurrency'], output: 'DeliverFunctionName' },
] as const;
export type ReservingSetting = (typeof RESERVING)[number]['settings'][number];

/** What a reserving function reserves: the sum of its settings. */
export const reservationOf = (r: (typeof RESERVING)[number], settings: Record<ReservingSetting, number>) =>
  r.settings.reduce((sum: number, k) => sum + settings[k], 0);

/** What Lambda keeps unreserved in every account and region: a reservation that leaves fewer is refused. */
export const MINIMUM_UNRESERVED = 100;
/** The account's quota of concurrent executions when nobody asked for another, and what a request usually asks for. */
export const DEFAULT_CONCURRENCY_QUOTA = 1000;
/** Service Quotas' code of Lambda's "Concurrent executions". */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

export interface ConcurrencyFacts {
  /** The account's quota in the region (GetAccountSettings: AccountLimit.ConcurrentExecutions). */
  quota: number;
  /** What no function reserves today (AccountLimit.UnreservedConcurrentExecutions). */
  unreserved: number;
  /** What the stack's reserving functions reserve today: 0 before its first create. */
  held: number;
  /** What the deploy reserves, by setting: the stage's renderSlots, testRenderSlots and deliveryConcurrency. */
  wanted: Record<ReservingSetting, number>;
}

const total = (wanted: ConcurrencyFacts['wanted']) => Object.values(wanted).reduce((a, b) => a + b, 0);

export interface ConcurrencyVerdict {
  ok: boolean;
  /** What stays unreserved once the deploy has replaced `held` by `wanted`. */
  unreservedAfter: number;
  /** The largest renderSlots the quota allows as it is, beside the other reservations; 0: none. */
  maxSlots: number;
  /** The smallest quota with which `wanted` fits (the quota itself when it fits). */
  quotaNeeded: number;
}

export function concurrencyVerdict(f: ConcurrencyFacts): ConcurrencyVerdict {
  // The deploy gives back what the functions hold and takes what the stage wants.
  const unreservedAfter = f.unreserved + f.held - total(f.wanted);
  return {
    ok: unreservedAfter >= MINIMUM_UNRESERVED,
    unreservedAfter,
    maxSlots: Math.max(0, f.unreserved + f.held - MINIMUM_UNRESERVED - (total(f.wanted) - f.wanted.renderSlots)),
    quotaNeeded: Math.max(f.quota, f.quota - unreservedAfter + MINIMUM_UNRESERVED),
  };
}

/** What to do about a verdict, as lines to print: the exact request for more, and the setting to lower. */
export function concurrencyAdvice(f: ConcurrencyFacts, v: ConcurrencyVerdict, where: { stage: string; region: string }): string[] {
  const wanted = RESERVING.flatMap((r) => r.settings.map((k) => `${k} ${f.wanted[k]}`)).join(' + ');
  const facts = `quota ${f.quota}, unreserved ${f.unreserved}, held by the stack's functions ${f.held}, ${wanted}`;
  if (v.ok) return [`ok: ${where.stage} in ${where.region} reserves ${total(f.wanted)} and leaves ${v.unreservedAfter} unreserved (${facts})`];
  const desired = Math.max(v.quotaNeeded, DEFAULT_CONCURRENCY_QUOTA);
  return [
    `not enough Lambda concurrency: ${where.stage} in ${where.region} would reserve ${total(f.wanted)} and leave ${v.unreservedAfter} unreserved; Lambda keeps ${MINIMUM_UNRESERVED} (${facts})`,
    `ask for a quota of at least ${v.quotaNeeded} (${desired} is Lambda's usual quota):`,
    `  aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value ${desired} --region ${where.region}`,
    v.maxSlots > 0
      ? `or lower renderSlots to ${v.maxSlots} or less: the stage's demand in lib/stages.ts, or for one deploy -c renderSlots=${v.maxSlots} (to cdk deploy and to this check)`
      : `no renderSlots fits the quota as it is (every reservation must leave ${MINIMUM_UNRESERVED} unreserved): only a larger quota helps`,
  ];
}

/**
 * What AWS answers CreateDistribution in an account it has not yet verified for CloudFront (403 AccessDenied), which
 * rolls back the create of a stage with the edge on at its distribution. AWS documents no call that says beforehand
 * whether an account is verified; one that already holds the stage's distribution plainly is.
 */
export const CLOUDFRONT_UNVERIFIED =
  'Your account must be verified before you can add new CloudFront resources. To verify your account, please contact AWS Support';
/** Where that message sends the account's owner. */
export const SUPPORT_CENTER = 'https://console.aws.amazon.com/support/home#/';

/**
 * The CloudFront check of a stage with the edge on, as lines to print: nothing to say when the edge is off or the
 * stack already has its distribution (output DistributionId); else a warning with the support path and the way to
 * deploy without the edge first. A warning, not a refusal: an account AWS has verified holds no distribution either.
 */
export function edgeAdvice(w: { stack: string; edge: boolean; distributionId?: string }): string[] {
  if (!w.edge) return [];
  if (w.distributionId) return [`ok: ${w.stack} has its CloudFront distribution (${w.distributionId})`];
  return [
    `warning: ${w.stack} creates a CloudFront distribution (the edge is on), and AWS refuses one in an account it has not verified for CloudFront ("${CLOUDFRONT_UNVERIFIED}"): the create then rolls back at the distribution`,
    `  in a new account, before the first deploy: open a case in the AWS Support Center (${SUPPORT_CENTER}), service CloudFront, asking to verify the account, and deploy once AWS confirms`,
    '  or deploy without the edge first (-c edge=false, or edge.enabled false in lib/stages.ts) and turn it on once AWS has verified the account: a refused distribution then rolls back only that update (docs/deploy.md, CloudFront on a new account)',
  ];
}
