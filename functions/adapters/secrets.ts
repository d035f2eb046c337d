/**
 * The link-signing key: LINK_SIGNING_KEY on one machine; on AWS, the Secrets Manager secret named by
 * LINK_SIGNING_KEY_SECRET_ARN, read once and kept for an hour, so a warm function makes no extra call per request.
 * Hand-written rather than Powertools Parameters: esbuild hoists a bundled library's import of the Secrets Manager
 * client to the top of the bundle, so every cold start would load the client; a dynamic import of the client itself
 * loads it only when a request needs the key.
 */
import type { Config } from './config.ts';

const KEEP_MS = 3_600_000;
let kept: { key: Promise<string>; until: number } | undefined;

async function fetchKey(secretId: string): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const out = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!out.SecretString) throw new Error('The link-signing secret is empty');
  return out.SecretString;
}

export async function linkSigningKey(cfg: Config): Promise<string> {
  if (cfg.linkSigningKey) return cfg.linkSigningKey;
  if (!cfg.linkSigningKeySecretArn) throw new Error('Missing required setting LINK_SIGNING_KEY or LINK_SIGNING_KEY_SECRET_ARN');
  const now = Date.now();
  if (!kept || kept.until < now) {
    const key = fetchKey(cfg.linkSigningKeySecretArn);
    kept = { key, until: now + KEEP_MS };
    // A failed read is not kept: the next request tries again.
    key.catch(() => (kept = undefined));
  }
  return kept.key;
}
