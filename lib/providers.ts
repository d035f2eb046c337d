/**
 * The stage's AI providers (lib/stages.ts `providers`) as each function's settings and grants: a function that calls a
 * provider (lib/access.ts `providers`) gets its address, model, timeout and the id of its key's secret, and may read
 * that one secret; a function that takes orders (`takesOrders`) gets the addresses alone, to refuse an extra nobody
 * delivers. The key itself never enters the template or a function's environment.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { DELIVERABLE_SETTINGS } from '../functions/generator/deliverable.ts';
import { CLONE_VOICE, PROVIDERS, type ProviderName } from '../functions/generator/openai-http.ts';
import type { Access } from './access.ts';
import type { ProvidersConfig } from './stages.ts';

export class ProviderSettings {
  /** The ARN of each provider's key secret, as IAM matches it (a name gets Secrets Manager's random suffix, -??????). */
  private readonly secretArns = new Map<ProviderName, string>();

  constructor(
    scope: Construct,
    private readonly config: ProvidersConfig = {},
  ) {
    for (const name of Object.keys(PROVIDERS) as ProviderName[]) {
      const id = config[name]?.apiKeySecret;
      if (!id) continue;
      const byName = () =>
        Stack.of(scope).formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${id}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
      this.secretArns.set(name, id.startsWith('arn:') ? id : byName());
    }
  }

  /** The settings a function with this access gets. */
  environment(access: Access): Record<string, string> {
    const env: Record<string, string> = {};
    for (const name of access.providers ?? []) {
      const p = this.config[name];
      if (!p) continue;
      const { prefix } = PROVIDERS[name];
      env[`${prefix}_URL`] = p.url;
      if (p.model) env[`${prefix}_MODEL`] = p.model;
      if (p.timeoutMs) env[`${prefix}_TIMEOUT_MS`] = String(p.timeoutMs);
      if (p.apiKeySecret) env[`${prefix}_API_KEY_SECRET`] = p.apiKeySecret;
    }
    if (access.providers?.includes('speech') && this.config.speech?.cloneVoice) env[CLONE_VOICE] = this.config.speech.cloneVoice;
    if (access.takesOrders) {
      const [images, speech, cloneVoice] = DELIVERABLE_SETTINGS;
      const given = { [images]: this.config.images?.url, [speech]: this.config.speech?.url, [cloneVoice]: this.config.speech?.cloneVoice };
      for (const [k, v] of Object.entries(given)) if (v) env[k] = v;
    }
    return env;
  }

  /** The read of the key secrets of the providers this function calls; undefined when it calls none with a key. */
  grant(access: Access): PolicyStatement | undefined {
    const arns = (access.providers ?? []).flatMap((name) => this.secretArns.get(name) ?? []);
    return arns.length ? new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: arns }) : undefined;
  }
}
