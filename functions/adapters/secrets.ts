/**
 * The link-signing keys: LINK_SIGNING_KEY (and LINK_SIGNING_KEY_PREVIOUS) on one machine; on AWS, the Secrets Manager
 * secret named by LINK_SIGNING_KEY_SECRET_ARN, its AWSCURRENT version (signs) and its AWSPREVIOUS one (still checks the
 * links signed before the last rotation), read once and kept for an hour, so a warm function makes no extra call per
 * request. A link that neither key verifies may be signed with a key this process has not seen yet (a rotation within
 * the hour): the keys are read again, at most once a minute, before the link is refused.
 * Hand-written rather than Powertools Parameters: esbuild hoists a bundled library's import of the Secrets Manager
 * client to the top of the bundle, so every cold start would load the client; a dynamic import of the client itself
 * loads it only when a request needs the key.
 */
import type { LinkKeys } from '../core/links.ts';
import type { Config } from './config.ts';

const KEEP_MS = 3_600_000;
const REFRESH_MS = 60_000;

async function fetchKeys(secretId: string): Promise<LinkKeys> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  const read = async (stage: 'AWSCURRENT' | 'AWSPREVIOUS') => {
    try {
      return (await client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }))).SecretString;
    } catch (err) {
      // A secret never rotated has no AWSPREVIOUS version.
      if (stage === 'AWSPREVIOUS' && (err as Error).name === 'ResourceNotFoundException') return undefined;
      throw err;
    }
  };
  const [current, previous] = await Promise.all([read('AWSCURRENT'), read('AWSPREVIOUS')]);
  if (!current) throw new Error('The link-signing secret is empty');
  return { current, ...(previous ? { previous } : {}) };
}

export class LinkKeyStore {
  private kept: { keys: Promise<LinkKeys>; at: number } | undefined;

  constructor(
    private readonly cfg: Pick<Config, 'linkSigningKey' | 'linkSigningKeyPrevious' | 'linkSigningKeySecretArn'>,
    private readonly clock: () => number = Date.now,
  ) {}

  keys(): Promise<LinkKeys> {
    const now = this.clock();
    const { linkSigningKey, linkSigningKeyPrevious, linkSigningKeySecretArn } = this.cfg;
    if (linkSigningKey) return Promise.resolve({ current: linkSigningKey, ...(linkSigningKeyPrevious ? { previous: linkSigningKeyPrevious } : {}) });
    if (!linkSigningKeySecretArn) throw new Error('Missing required setting LINK_SIGNING_KEY or LINK_SIGNING_KEY_SECRET_ARN');
    if (!this.kept || this.kept.at + KEEP_MS < now) this.read(linkSigningKeySecretArn, now);
    return this.kept!.keys;
  }

  /** Reads the secret again unless it was read within the last minute; true when it did. */
  refresh(): boolean {
    const now = this.clock();
    if (!this.cfg.linkSigningKeySecretArn || (this.kept && this.kept.at + REFRESH_MS > now)) return false;
    this.read(this.cfg.linkSigningKeySecretArn, now);
    return true;
  }

  private read(secretId: string, now: number): void {
    const keys = fetchKeys(secretId);
    const kept = { keys, at: now };
    this.kept = kept;
    // A failed read is not kept: the next request tries again.
    keys.catch(() => {
      if (this.kept === kept) this.kept = undefined;
    });
  }
}
