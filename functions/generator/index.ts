/**
 * The generator this process uses, chosen by configuration: the embedded planner and writer, or the OpenAI-compatible
 * adapter when GENERATOR_LLM_URL is set; the embedded renderer either way, with the AI providers configured. API keys
 * kept in secrets (`<prefix>_API_KEY_SECRET`, as on AWS) are opened by `secrets`, which the app gives. Test-mode
 * orders get their own (testModeGenerator): nothing they do may cost the operator a provider's call.
 */
import { ChatCompletions, LlmPlanner, LlmWriter } from './llm.ts';
import { endpointFromEnv } from './openai-http.ts';
import { planFromPrompt } from './planner.ts';
import type { Generator, Renderer, SecretKeys } from '../core/generator.ts';
import { EmbeddedWriter } from './writer.ts';

const embedded = { planner: { plan: async (prompt: string) => planFromPrompt(prompt) }, writer: new EmbeddedWriter() };

/** The generator of test-mode orders: the embedded planner and writer, and a short clip marked TEST (test-clip.ts). */
export function testModeGenerator(): Generator {
  return {
    ...embedded,
    renderer: { render: async (req) => new (await import('./test-clip.ts')).TestClipRenderer().render(req) },
  };
}

export function generatorFromEnv(env: NodeJS.ProcessEnv = process.env, secrets?: SecretKeys): Generator {
  // Loaded on first use: only the render step needs ffmpeg, the fonts, eSpeak and the AI providers (providers.ts).
  const renderer: Renderer = {
    render: async (req) => {
      const [{ EmbeddedRenderer }, { providersFromEnv }] = await Promise.all([import('./render.ts'), import('./providers.ts')]);
      return new EmbeddedRenderer(providersFromEnv(env, secrets)).render(req);
    },
  };
  const endpoint = endpointFromEnv(env, 'llm', secrets);
  if (!endpoint) return { ...embedded, renderer };
  const llm = new ChatCompletions(endpoint);
  return { planner: new LlmPlanner(llm, planFromPrompt), writer: new LlmWriter(llm), renderer };
}
