/**
 * A POST to an OpenAI-compatible endpoint, with the generator's error mapping: unreachable, too slow, rate-limited
 * (429) or failing (5xx) may pass on a retry (GeneratorBusy); any other refusal is lasting (GeneratorFailed). `what`
 * names the service in the messages ("The language model", "The image generator").
 */
import { GeneratorBusy, GeneratorFailed } from '../core/generator.ts';

export interface OpenAiEndpoint {
  /** Base URL of the API, e.g. https://host/v1. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The endpoint configured by `<prefix>_URL`, `_MODEL`, `_API_KEY` and `_TIMEOUT_MS`; undefined without a URL. */
export function endpointFromEnv(env: NodeJS.ProcessEnv, prefix: string, defaults: { model: string; timeoutMs: number }): OpenAiEndpoint | undefined {
  const baseUrl = env[`${prefix}_URL`];
  if (!baseUrl) return undefined;
  const apiKey = env[`${prefix}_API_KEY`];
  return {
    baseUrl,
    model: env[`${prefix}_MODEL`] ?? defaults.model,
    timeoutMs: Number(env[`${prefix}_TIMEOUT_MS`] ?? defaults.timeoutMs),
    ...(apiKey ? { apiKey } : {}),
  };
}

export async function postOpenAi(endpoint: OpenAiEndpoint, path: string, body: object, what: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${endpoint.baseUrl.replace(/\/$/, '')}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}) },
      body: JSON.stringify({ model: endpoint.model, ...body }),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new GeneratorBusy(timedOut ? `${what} did not answer within ${endpoint.timeoutMs} ms` : `${what} is unreachable: ${(err as Error).message}`);
  }
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
