/**
 * A POST to an OpenAI-compatible endpoint, with the generator's error mapping: unreachable, too slow, rate-limited
 * (429) or failing (5xx) may pass on a retry (GeneratorBusy); any other refusal is lasting (GeneratorFailed). `what`
 * names the service in the messages ("The language model", "The image generator").
 */
import { GeneratorBusy, GeneratorFailed, type KeySource, type SecretKeys } from '../core/generator.ts';

/**
 * The AI providers: each is configured by the environment variables that start with its prefix (endpointFromEnv), and
 * without `<prefix>_MODEL` or `_TIMEOUT_MS` uses its defaults.
 */
export const PROVIDERS = {
  llm: { prefix: 'GENERATOR_LLM', model: 'gpt-4o-mini', timeoutMs: 20_000 },
  images: { prefix: 'GENERATOR_IMAGES', model: 'gpt-image-1', timeoutMs: 60_000 },
  speech: { prefix: 'GENERATOR_SPEECH', model: 'gpt-4o-mini-tts', timeoutMs: 30_000 },
} as const;
export type ProviderName = keyof typeof PROVIDERS;
/** The id of the voice cloned at the speech provider, for `voice: clone`. */
export const CLONE_VOICE = 'GENERATOR_SPEECH_CLONE_VOICE';

export interface OpenAiEndpoint {
  /** Base URL of the API, e.g. https://host/v1. */
  baseUrl: string;
  model: string;
  apiKey?: string | KeySource;
  timeoutMs: number;
}

/**
 * The provider's endpoint as configured by `<prefix>_URL`, `_MODEL`, `_TIMEOUT_MS` and its key: `_API_KEY` itself, or
 * `_API_KEY_SECRET`, the name or ARN of the secret that holds it (read through `secrets`); undefined without a URL.
 */
export function endpointFromEnv(env: NodeJS.ProcessEnv, provider: ProviderName, secrets?: SecretKeys): OpenAiEndpoint | undefined {
  const { prefix, ...defaults } = PROVIDERS[provider];
  const baseUrl = env[`${prefix}_URL`];
  if (!baseUrl) return undefined;
  const secretId = env[`${prefix}_API_KEY_SECRET`];
  if (secretId && !secrets) throw new Error(`${prefix}_API_KEY_SECRET is set but this process reads no secrets`);
  const apiKey = env[`${prefix}_API_KEY`] || (secretId ? secrets!(secretId) : undefined);
  return {
    baseUrl,
    model: env[`${prefix}_MODEL`] ?? defaults.model,
    timeoutMs: Number(env[`${prefix}_TIMEOUT_MS`] ?? defaults.timeoutMs),
    ...(apiKey ? { apiKey } : {}),
  };
}

export async function postOpenAi(endpoint: OpenAiEndpoint, path: string, body: object, what: string): Promise<Response> {
  const { apiKey } = endpoint;
  const res = await post(endpoint, path, body, what, typeof apiKey === 'object' ? await apiKey.key() : apiKey);
  // A key from a secret the provider refuses may have been rotated since it was read: once more with a fresh read.
  if (res.status === 401 && typeof apiKey === 'object' && apiKey.renew()) {
    await res.body?.cancel();
    return check(await post(endpoint, path, body, what, await apiKey.key()), what);
  }
  return check(res, what);
}

async function post(endpoint: OpenAiEndpoint, path: string, body: object, what: string, key: string | undefined): Promise<Response> {
  try {
    return await fetch(`${endpoint.baseUrl.replace(/\/$/, '')}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model: endpoint.model, ...body }),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new GeneratorBusy(timedOut ? `${what} did not answer within ${endpoint.timeoutMs} ms` : `${what} is unreachable: ${(err as Error).message}`);
  }
}

async function check(res: Response, what: string): Promise<Response> {
  if (res.status === 429 || res.status >= 500) {
    await res.body?.cancel();
    throw new GeneratorBusy(`${what} is busy (${res.status})`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new GeneratorFailed(`${what} refused the request (${res.status})`);
  }
  return res;
}
