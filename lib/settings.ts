/**
 * The deployment's settings: the stage's committed configuration (lib/stages.ts, chosen by `-c stage=<name>`, dev by
 * default), with any single setting overridden by CDK context (`-c key=value`) for one synth. Each is checked at synth,
 * so a wrong value fails `cdk synth` with its name instead of a function at run time. Secrets never come through here:
 * the link-signing key is generated into Secrets Manager by the stack, and an AI provider's key is named by its secret.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node } from 'constructs';
import * as z from 'zod';
import { pricesFrom } from '../functions/core/pricing.ts';
import type { ProviderName } from '../functions/generator/openai-http.ts';
import { SIZES } from './functions.ts';
import { ROOT } from './paths.ts';
import { type Demand, demandProblem, slotsFor } from './sizing.ts';
import { STAGES, type ProvidersConfig, type StageConfig, type StageName } from './stages.ts';

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** The stack of a stage (bin/app.ts); the deploy's checks find it by this name. */
export const stackNameOf = (stage: string) => `VideoService-${stage}`;

export interface Settings extends Omit<StageConfig, 'logLevel'> {
  /** Part of the stack's name: VideoService-<stage>. */
  stage: StageName;
  /** What the deploy records as its version (lib/tags.ts): context `version` (the pipeline passes the commit), else package.json's. */
  version: string;
  /** The address in the trial watermark; default: the host of the public base address. */
  serviceAddress?: string;
  logLevel: (typeof LOG_LEVELS)[number];
}

function int(node: Node, key: string, fallback: number, min = 0): number {
  const v = node.tryGetContext(key) as unknown;
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`Context ${key} must be an integer >= ${min}, got "${String(v)}"`);
  return n;
}

/** A number from context (a decimal allowed), else `fallback`; its range is checked by the caller. */
function num(node: Node, key: string, fallback: number): number {
  const v = node.tryGetContext(key) as unknown;
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`Context ${key} must be a number, got "${String(v)}"`);
  return n;
}

/**
 * The stage's demand with any of its figures from context (`-c slotSecondsPerOrder=18` re-derives the slots from a
 * measured figure), and the render slots it needs; context `renderSlots` still sets them outright.
 */
function sizing(node: Node, base: StageConfig): Pick<StageConfig, 'demand' | 'renderSlots'> {
  const demand: Demand = {
    peakOrdersPerHour: num(node, 'peakOrdersPerHour', base.demand.peakOrdersPerHour),
    slotSecondsPerOrder: num(node, 'slotSecondsPerOrder', base.demand.slotSecondsPerOrder),
    targetUtilisation: num(node, 'targetUtilisation', base.demand.targetUtilisation),
  };
  const problem = demandProblem(demand);
  if (problem) throw new Error(`Demand (lib/stages.ts or context): ${problem}`);
  return { demand, renderSlots: int(node, 'renderSlots', slotsFor(demand), 1) };
}

function text(node: Node, key: string): string | undefined {
  const v = node.tryGetContext(key) as unknown;
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`Context ${key} must be a string`);
  return v;
}

function prices(node: Node, base: StageConfig['prices']): StageConfig['prices'] {
  const v = node.tryGetContext('prices') as unknown;
  if (v === undefined || v === '') return pricesFrom(base, 'prices (lib/stages.ts)');
  const given = typeof v === 'string' ? (JSON.parse(v) as object) : (v as object);
  return pricesFrom({ ...base, ...given }, 'prices (context)');
}

/** The functions that call each provider, whose timeout one call must end within. */
const CALLER_TIMEOUT_MS: Record<ProviderName, number> = {
  llm: SIZES.step.timeout.toMilliseconds(),
  images: SIZES.render.timeout.toMilliseconds(),
  speech: SIZES.render.timeout.toMilliseconds(),
};
const secretId = z
  .string()
  .regex(
    /^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}|[\w/+=.@-]{1,512})$/,
    'must be a secret name or a complete secret ARN',
  );
const provider = (name: ProviderName) =>
  z.strictObject({
    url: z.url({ protocol: /^https$/, error: 'must be an https:// address' }),
    model: z.string().min(1).optional(),
    timeoutMs: z
      .int()
      .min(1000)
      .max(CALLER_TIMEOUT_MS[name] - 1000, `must be below the timeout of the functions that call it (${CALLER_TIMEOUT_MS[name] / 1000} s)`)
      .optional(),
    apiKeySecret: secretId.optional(),
  });
const providersSchema = z.strictObject({
  llm: provider('llm').optional(),
  images: provider('images').optional(),
  speech: provider('speech')
    .extend({ cloneVoice: z.string().min(1).optional() })
    .optional(),
});

/** The stage's providers, each one replaced by context `providers` (JSON; a provider set to null is removed). */
function providers(node: Node, base: ProvidersConfig | undefined): ProvidersConfig | undefined {
  const v = node.tryGetContext('providers') as unknown;
  const given = v === undefined || v === '' ? {} : typeof v === 'string' ? (JSON.parse(v) as object) : (v as object);
  const merged = Object.fromEntries(Object.entries({ ...base, ...given }).filter(([, p]) => p !== null));
  const checked = providersSchema.safeParse(merged);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const where = ['providers', ...issue.path].join('.');
    // A key given inline would be written into the template: it belongs in the secret named by apiKeySecret.
    throw new Error(
      `Context ${where}: ${issue.message}${issue.code === 'unrecognized_keys' && issue.keys.some((k) => /key/i.test(k)) ? ' (an API key goes in the secret named by apiKeySecret)' : ''}`,
    );
  }
  return Object.keys(checked.data).length ? (checked.data as ProvidersConfig) : undefined;
}

/** CloudFront takes certificates from ACM in us-east-1 only. */
const EDGE_CERTIFICATE_REGION = 'us-east-1';
/** AWS WAF's smallest rate limit, and its largest. */
const WAF_LIMITS = { min: 10, max: 2_000_000_000 };

/**
 * The edge (context `edge=true|false` turns it on or off for one synth): each per-address limit within what WAF takes,
 * creations within requests, and each at least what one key may do by its own limits, so that the edge never refuses a
 * lone key that the service itself would serve.
 */
function edgeOf(node: Node, base: StageConfig['edge'], perKey: { limitGetsPerMinute: number; limitPostsPerMinute: number }): StageConfig['edge'] {
  const v = node.tryGetContext('edge') as unknown;
  if (v !== undefined && v !== '' && !['true', 'false', true, false].includes(v as string))
    throw new Error(`Context edge must be true or false, got "${String(v)}"`);
  const edge = { ...base, ...(v === undefined || v === '' ? {} : { enabled: String(v) === 'true' }) };
  for (const key of ['requestsPerMinute', 'creationsPerMinute'] as const) {
    const n = edge[key];
    if (!Number.isInteger(n) || n < WAF_LIMITS.min || n > WAF_LIMITS.max)
      throw new Error(`edge.${key} must be an integer from ${WAF_LIMITS.min} to ${WAF_LIMITS.max} (AWS WAF's range), got ${n}`);
  }
  if (edge.creationsPerMinute > edge.requestsPerMinute) throw new Error('edge.creationsPerMinute must not exceed edge.requestsPerMinute');
  if (edge.creationsPerMinute < perKey.limitPostsPerMinute)
    throw new Error(`edge.creationsPerMinute must be at least limitPostsPerMinute (${perKey.limitPostsPerMinute}): one key's POSTs`);
  const oneKey = perKey.limitGetsPerMinute + perKey.limitPostsPerMinute;
  if (edge.requestsPerMinute < oneKey)
    throw new Error(`edge.requestsPerMinute must be at least limitGetsPerMinute + limitPostsPerMinute (${oneKey}): one key's requests`);
  return edge;
}

/**
 * The custom domain: context `domainName` and `certificateArn` together (they replace the stage's), the certificate in
 * the region that serves the domain: us-east-1 for CloudFront (the edge on), the stage's region for API Gateway.
 */
function domainOf(node: Node, base: StageConfig['domain'], certificateRegion: string): StageConfig['domain'] {
  const [name, certificateArn] = [text(node, 'domainName'), text(node, 'certificateArn')];
  if (!name !== !certificateArn) throw new Error('Context domainName and certificateArn go together');
  const domain = name && certificateArn ? { name, certificateArn } : base;
  if (!domain) return undefined;
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain.name))
    throw new Error(`domainName must be a lowercase host name, got "${domain.name}"`);
  const arn = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/.exec(domain.certificateArn);
  if (!arn) throw new Error(`certificateArn must be an ACM certificate ARN, got "${domain.certificateArn}"`);
  if (arn[1] !== certificateRegion)
    throw new Error(
      `certificateArn must be a certificate in ${certificateRegion} (${certificateRegion === EDGE_CERTIFICATE_REGION ? 'CloudFront, the edge on' : 'API Gateway, the edge off'}), got one in ${arn[1]}`,
    );
  return domain;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The stages whose alarms must reach somebody: their stack is not built without an alarm address. */
export const PAGED_STAGES: readonly StageName[] = ['prod'];

/**
 * Refuses a paged stage with no alarm e-mail: its alarms would go to a topic nobody reads. Called by the app before
 * it builds the stage's stacks (bin/app.ts), not by settingsOf, so that the preflight and the tests of the settings
 * read prod without one.
 */
export function requireAlarmAddress(settings: Pick<Settings, 'stage' | 'alarmEmails'>): void {
  if (!PAGED_STAGES.includes(settings.stage) || settings.alarmEmails.length > 0) return;
  throw new Error(
    `Stage ${settings.stage} has no alarm address, so its alarms would reach nobody: set alarmEmails in lib/stages.ts (the ` +
      `committed on-call address) or pass context alarmEmail (-c alarmEmail=<address>); each recipient confirms the ` +
      `subscription e-mail SNS sends after the deploy`,
  );
}

export function settingsOf(node: Node): Settings {
  const stage = text(node, 'stage') ?? 'dev';
  if (!Object.hasOwn(STAGES, stage)) throw new Error(`Context stage must be one of ${Object.keys(STAGES).join(', ')} (lib/stages.ts), got "${stage}"`);
  const { providers: stageProviders, ...base }: StageConfig = STAGES[stage as StageName];
  const logLevel = (text(node, 'logLevel') ?? base.logLevel).toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  const serviceAddress = text(node, 'serviceAddress');
  const alarmEmail = text(node, 'alarmEmail');
  const alarmEmails = alarmEmail ? [...base.alarmEmails, alarmEmail] : [...base.alarmEmails];
  for (const e of alarmEmails) if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(e)) throw new Error(`alarm e-mail "${e}" is not an address`);
  const botPrincipalArn = text(node, 'botPrincipalArn') ?? base.botPrincipalArn;
  if (botPrincipalArn && !/^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/.+$/.test(botPrincipalArn))
    throw new Error('botPrincipalArn must be an IAM role or user ARN');
  const account = text(node, 'account') ?? base.account;
  if (account && !/^\d{12}$/.test(account)) throw new Error(`account must be 12 digits, got "${account}"`);
  const ai = providers(node, stageProviders);
  const region = text(node, 'region') ?? base.region;
  const perKey = {
    limitGetsPerMinute: int(node, 'limitGetsPerMinute', base.limitGetsPerMinute, 1),
    limitPostsPerMinute: int(node, 'limitPostsPerMinute', base.limitPostsPerMinute, 1),
  };
  const edge = edgeOf(node, base.edge, perKey);
  const domain = domainOf(node, base.domain, edge.enabled ? EDGE_CERTIFICATE_REGION : region);
  const version = text(node, 'version') ?? packageVersion();
  if (!/^[\w.+-]{1,128}$/.test(version)) throw new Error(`Context version must be a tag value (letters, digits, . + - _), got "${version}"`);
  return {
    ...base,
    stage: stage as StageName,
    version,
    ...(account ? { account } : {}),
    region,
    edge,
    ...(domain ? { domain } : {}),
    ...(serviceAddress ? { serviceAddress } : {}),
    logLevel: logLevel as Settings['logLevel'],
    alarmEmails,
    limitActiveTasks: int(node, 'limitActiveTasks', base.limitActiveTasks, 1),
    ...perKey,
    limitResendsPerHour: int(node, 'limitResendsPerHour', base.limitResendsPerHour, 0),
    limitReviewsPending: int(node, 'limitReviewsPending', base.limitReviewsPending, 1),
    prices: prices(node, base.prices),
    reviewDeadlineSeconds: int(node, 'reviewDeadlineSeconds', base.reviewDeadlineSeconds, 60),
    webhookRetryBaseMs: int(node, 'webhookRetryBaseMs', base.webhookRetryBaseMs, 1000),
    ...sizing(node, base),
    testRenderSlots: int(node, 'testRenderSlots', base.testRenderSlots, 1),
    deliveryConcurrency: int(node, 'deliveryConcurrency', base.deliveryConcurrency, 1),
    queueWaitAlarmSeconds: int(node, 'queueWaitAlarmSeconds', base.queueWaitAlarmSeconds, 60),
    ...(botPrincipalArn ? { botPrincipalArn } : {}),
    ...(ai ? { providers: ai } : {}),
  };
}
