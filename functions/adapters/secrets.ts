/**
 * The link-signing key: LINK_SIGNING_KEY on one machine; on AWS, the Secrets Manager secret named by
 * LINK_SIGNING_KEY_SECRET_ARN, read through Powertools Parameters and kept for an hour, so a warm function makes no
 * extra call per request.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import type { Config } from './config.ts';

const KEEP_SECONDS = 3600;

export async function linkSigningKey(cfg: Config): Promise<string> {
  if (cfg.linkSigningKey) return cfg.linkSigningKey;
  if (!cfg.linkSigningKeySecretArn) throw new Error('Missing required setting LINK_SIGNING_KEY or LINK_SIGNING_KEY_SECRET_ARN');
  const key = await getSecret(cfg.linkSigningKeySecretArn, { maxAge: KEEP_SECONDS });
  if (typeof key !== 'string' || !key) throw new Error('The link-signing secret is empty');
  return key;
}
