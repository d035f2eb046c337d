/**
 * Secrets read from Secrets Manager, each kept for an hour so that a warm function makes no extra call per request, and
 * read again (at most once a minute) when what was kept is refused, as after a rotation made by another process:
 * - the link-signing keys: LINK_SIGNING_KEY (and LINK_SIGNING_KEY_PREVIOUS) on one machine; on AWS, the secret named by
 *   LINK_SIGNING_KEY_SECRET_ARN, its AWSCURRENT version (signs) and its AWSPREVIOUS one (still checks the links signed
 *   before the last rotation), read again when a link verifies with neither;
 * - the edge's origin-verify value, the same way: ORIGIN_VERIFY on one machine, the secret named by
 *   ORIGIN_VERIFY_SECRET_ARN on AWS, read again when a request matches neither version;
 * - an AI provider's API key (`<prefix>_API_KEY_SECRET`), read again when the provider answers 401.
 * Hand-written rather than Powertools Parameters: esbuild hoists a bundled library's import of the Secrets Manager
 * client to the top of the bundle, so every cold start would load the client; a dynamic import of the client itself
 * loads it only when a request needs a secret.
 */
import { GeneratorBusy, GeneratorFailed, type KeySource, type SecretKeys } from '../core/generator.ts';
import type { LinkKeys } from '../core/links.ts';
import type { Config } from './config.ts';

const KEEP_MS = 3_600_000;
const REFRESH_MS = 60_000;

let client: import('@aws-sdk/client-secrets-manager').SecretsManagerClient | undefined;

/** One version of a secret's string; undefined for an AWSPREVIOUS that a secret never rotated does not have. */
async function readVersion(secretId: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | undefined> {
  const sdk = await import('@aws-sdk/client-secrets-manager');
  client ??= new sdk.SecretsManagerClient({});
  try {
    return (await client.send(new sdk.GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }))).SecretString;
  } catch (err) {
    if (stage === 'AWSPREVIOUS' && (err as Error).name === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

async function fetchVersions(secretId: string, setting: string): Promise<LinkKeys> {
  const [current, previous] = await Promise.all([readVersion(secretId, 'AWSCURRENT'), readVersion(secretId, 'AWSPREVIOUS')]);
  if (!current) throw new Error(`The secret of ${setting} is empty`);
  return { current, ...(previous ? { previous } : {}) };
}

/** A value read from Secrets Manager, kept for an hour; a failed read is not kept, so the next use tries again. */
class Kept<T> {
  private kept: { value: Promise<T>; at: number } | undefined;

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly clock: () => number,
  ) {}

  get(): Promise<T> {
    const now = this.clock();
    if (!this.kept || this.kept.at + KEEP_MS < now) this.read(now);
    return this.kept!.value;
  }

  /** Reads again unless it was read within the last minute; true when it did. */
  refresh(): boolean {
    const now = this.clock();
    if (this.kept && this.kept.at + REFRESH_MS > now) return false;
    this.read(now);
    return true;
  }

  private read(now: number): void {
    const kept = { value: this.fetch(), at: now };
    this.kept = kept;
    kept.value.catch(() => {
      if (this.kept === kept) this.kept = undefined;
    });
  }
}

/**
 * A secret with its value before the last rotation: given by a setting (one machine) or read from the Secrets Manager
 * secret named by `<setting>_SECRET_ARN` (AWS), its AWSCURRENT and AWSPREVIOUS versions.
 */
export class RotatedSecret {
  private readonly secret: Kept<LinkKeys> | undefined;

  constructor(
    private readonly given: { current?: string | undefined; previous?: string | undefined; secretArn?: string | undefined },
    private readonly setting: string,
    clock: () => number = Date.now,
  ) {
    const arn = given.secretArn;
    if (arn && !given.current) this.secret = new Kept(() => fetchVersions(arn, setting), clock);
  }

  values(): Promise<LinkKeys> {
    const { current, previous } = this.given;
    if (current) return Promise.resolve({ current, ...(previous ? { previous } : {}) });
    if (!this.secret) throw new Error(`Missing required setting ${this.setting} or ${this.setting}_SECRET_ARN`);
    return this.secret.get();
  }

  /** Reads the secret again unless it was read within the last minute; true when it did. */
  refresh(): boolean {
    return this.secret?.refresh() ?? false;
  }
}

export class LinkKeyStore extends RotatedSecret {
  constructor(cfg: Pick<Config, 'linkSigningKey' | 'linkSigningKeyPrevious' | 'linkSigningKeySecretArn'>, clock: () => number = Date.now) {
    super({ current: cfg.linkSigningKey, previous: cfg.linkSigningKeyPrevious, secretArn: cfg.linkSigningKeySecretArn }, 'LINK_SIGNING_KEY', clock);
  }

  keys(): Promise<LinkKeys> {
    return this.values();
  }
}

/**
 * An AI provider's API key: the secret's string (AWSCURRENT). A read Secrets Manager refuses for good (no such secret,
 * no grant, an empty secret) fails the order; a throttled or failing one may pass on the workflow's retry.
 */
class ProviderKey implements KeySource {
  private readonly secret: Kept<string>;

  constructor(
    private readonly secretId: string,
    clock: () => number,
  ) {
    this.secret = new Kept(() => this.fetch(), clock);
  }

  key(): Promise<string> {
    return this.secret.get();
  }

  renew(): boolean {
    return this.secret.refresh();
  }

  private async fetch(): Promise<string> {
    let value: string | undefined;
    try {
      value = await readVersion(this.secretId, 'AWSCURRENT');
    } catch (err) {
      const { name, $fault } = err as { name?: string; $fault?: string };
      const message = `The API key in secret ${this.secretId} could not be read (${name})`;
      throw $fault === 'client' && !/Throttl/.test(name ?? '') ? new GeneratorFailed(message) : new GeneratorBusy(message);
    }
    if (!value?.trim()) throw new GeneratorFailed(`The secret ${this.secretId} holds no API key`);
    return value.trim();
  }
}

/** The API keys of the AI providers, one kept key per secret for the life of the process. */
export function providerKeys(clock: () => number = Date.now): SecretKeys {
  const opened = new Map<string, ProviderKey>();
  return (secretId) => opened.get(secretId) ?? opened.set(secretId, new ProviderKey(secretId, clock)).get(secretId)!;
}
