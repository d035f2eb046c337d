/**
 * The deployment's settings, from CDK context (`cdk.json`, or `-c key=value` on the command line). Each is checked at
 * synth, so a wrong value fails `cdk synth` with its name instead of a function at run time. Secrets never come
 * through here: the link-signing key is generated into Secrets Manager by the stack.
 */
import type { Node } from 'constructs';
import { DEFAULT_LIMITS, pricesFrom, type Prices } from '../functions/core/pricing.ts';

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

export interface Settings {
  /** Part of the stack's name: VideoService-<stage>. */
  stage: string;
  /** The API's public base address with /v1 (a custom domain in front of the HTTP API); default: the API's own URL. */
  publicBaseUrl?: string;
  /** The address in the trial watermark; default: the host of the public base address. */
  serviceAddress?: string;
  logLevel: (typeof LOG_LEVELS)[number];
  limitActiveTasks: number;
  limitPostsPerMinute: number;
  prices: Prices;
  /** Seconds a director-mode script waits for its review. */
  reviewDeadlineSeconds: number;
  /** The first gap between webhook attempts, in milliseconds; it doubles per attempt. */
  webhookRetryBaseMs: number;
  /** Where alarms are mailed (an SNS e-mail subscription); none when unset. */
  alarmEmail?: string;
  /** The oldest API order's wait for a render slot that raises an alarm. */
  queueWaitAlarmSeconds: number;
  /** Orders generated at once: the render queue's slots, and the render function's reserved concurrency. */
  renderSlots: number;
  /** The IAM principal (the chat bot's role) allowed to invoke the bot's order function; none when unset. */
  botPrincipalArn?: string;
}

function int(node: Node, key: string, fallback: number, min = 0): number {
  const v = node.tryGetContext(key) as unknown;
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`Context ${key} must be an integer >= ${min}, got "${String(v)}"`);
  return n;
}

function text(node: Node, key: string): string | undefined {
  const v = node.tryGetContext(key) as unknown;
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`Context ${key} must be a string`);
  return v;
}

function prices(node: Node): Prices {
  const v = node.tryGetContext('prices') as unknown;
  const given = typeof v === 'string' ? (JSON.parse(v) as object) : ((v ?? {}) as object);
  return pricesFrom(given, 'prices (context)');
}

export function settingsOf(node: Node): Settings {
  const stage = text(node, 'stage') ?? 'dev';
  if (!/^[A-Za-z0-9-]{1,20}$/.test(stage)) throw new Error(`Context stage must be 1 to 20 letters, digits or dashes, got "${stage}"`);
  const logLevel = (text(node, 'logLevel') ?? 'INFO').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  const publicBaseUrl = text(node, 'publicBaseUrl');
  if (publicBaseUrl && !/^https:\/\/[^/]+\/v1$/.test(publicBaseUrl)) throw new Error('Context publicBaseUrl must look like https://host/v1');
  const serviceAddress = text(node, 'serviceAddress');
  const alarmEmail = text(node, 'alarmEmail');
  const botPrincipalArn = text(node, 'botPrincipalArn');
  if (botPrincipalArn && !/^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/.+$/.test(botPrincipalArn))
    throw new Error('Context botPrincipalArn must be an IAM role or user ARN');
  return {
    stage,
    ...(publicBaseUrl ? { publicBaseUrl } : {}),
    ...(serviceAddress ? { serviceAddress } : {}),
    logLevel: logLevel as Settings['logLevel'],
    limitActiveTasks: int(node, 'limitActiveTasks', DEFAULT_LIMITS.activeTasks, 1),
    limitPostsPerMinute: int(node, 'limitPostsPerMinute', DEFAULT_LIMITS.postsPerMinute, 1),
    prices: prices(node),
    reviewDeadlineSeconds: int(node, 'reviewDeadlineSeconds', 7 * 24 * 3600, 60),
    webhookRetryBaseMs: int(node, 'webhookRetryBaseMs', 30_000, 1000),
    ...(alarmEmail ? { alarmEmail } : {}),
    renderSlots: int(node, 'renderSlots', 4, 1),
    queueWaitAlarmSeconds: int(node, 'queueWaitAlarmSeconds', 900, 60),
    ...(botPrincipalArn ? { botPrincipalArn } : {}),
  };
}
