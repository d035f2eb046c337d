/**
 * An OpenAI-compatible chat-completions adapter for the planner and the writer. Answers are JSON validated by zod:
 * a malformed or invalid answer, a timeout, a 429 or a 5xx may pass on a retry (GeneratorBusy); any other refusal is
 * lasting (GeneratorFailed).
 */
import * as z from 'zod/mini';
import '../contract/zod.ts';
import { createVideoBody, type OrderParams } from '../contract/orders.ts';
import { GeneratorBusy, type Planner, type Script, type WriteRequest, type Writer } from '../core/generator.ts';
import { allotSeconds } from '../core/script-text.ts';
import { type OpenAiEndpoint, postOpenAi } from './openai-http.ts';
import { languageOf } from './writer.ts';

export type LlmConfig = OpenAiEndpoint;

const completion = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).check(z.minLength(1)) });

export class ChatCompletions {
  constructor(private readonly config: LlmConfig) {}

  /** Asks for a JSON object and returns it validated by `schema`. */
  async json<S extends z.ZodMiniType>(schema: S, system: string, user: string): Promise<z.output<S>> {
    const body = {
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    };
    const res = await postOpenAi(this.config, 'chat/completions', body, 'The language model');
    const text = await res.text().catch(() => '');
    let content: unknown;
    try {
      const body = completion.parse(JSON.parse(text));
      content = JSON.parse(stripFences(body.choices[0]!.message.content));
    } catch {
      throw new GeneratorBusy('The language model gave a malformed answer');
    }
    const parsed = schema.safeParse(content);
    if (!parsed.success)
      throw new GeneratorBusy(`The language model's answer does not fit: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }
}

/** Some models wrap JSON in a Markdown code fence even when asked not to. */
const stripFences = (s: string) =>
  s
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');

// Not strict: a model may add keys of its own; only these are read.
const planned = z.object(z.pick(createVideoBody, { topic: true, duration_seconds: true, language: true, tone: true, cta: true, captions: true }).shape);

/**
 * Plans a prompt: the model's answer over the deterministic plan of the prompt (`fixed`). The paid extras are always
 * `fixed`'s, which plans one only on an explicit ask (planner.ts): the model is not asked for them and any it names
 * are dropped (`planned` reads none), so no answer makes a customer pay for what they did not ask for. Only a
 * proposal: the plan step keeps the parameters the order was charged for (core/pricing.ts keepPriced).
 */
export class LlmPlanner implements Planner {
  constructor(
    private readonly llm: ChatCompletions,
    private readonly fixed: (prompt: string) => OrderParams,
  ) {}

  async plan(prompt: string): Promise<OrderParams> {
    const answer = await this.llm.json(
      z.partial(planned, { duration_seconds: true, language: true, tone: true, captions: true }),
      'You turn a one-line request for a short vertical video into JSON with the keys topic (string, what the video is about, ' +
        'at most 300 characters), duration_seconds (integer 10..60), language ("ru" or "en"), tone (one of neutral, energetic, ' +
        'calm, funny, serious), cta (optional call to action, at most 80 characters) and captions (boolean). The topic keeps ' +
        'every word of what the video is about, a song, a voice or AI images included ("How to record my voice at home" ' +
        'keeps "voice"). Music, voice and pictures are not yours to choose. Answer with JSON only.',
      prompt,
    );
    return createVideoBody.parse({ ...this.fixed(prompt), ...answer });
  }
}

const written = z.object({
  scenes: z
    .array(
      z.object({
        caption: z.string().check(z.trim(), z.minLength(1), z.maxLength(120)),
        voiceover: z.string().check(z.trim(), z.maxLength(500)),
        visual: z.string().check(z.trim(), z.maxLength(200)),
      }),
    )
    .check(z.minLength(4), z.maxLength(8)),
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
  description: z.string().check(z.trim(), z.minLength(1), z.maxLength(300)),
  hashtags: z.array(z.string().check(z.trim(), z.regex(/^#\S+$/))).check(z.minLength(1), z.maxLength(10)),
});

export class LlmWriter implements Writer {
  constructor(private readonly llm: ChatCompletions) {}

  async write(req: WriteRequest): Promise<Script> {
    const { params } = req;
    const language = languageOf(params);
    const brief = {
      topic: params.topic,
      language,
      tone: params.tone,
      duration_seconds: params.duration_seconds,
      ...(params.placement ? { product_placement: params.placement } : {}),
      ...(params.cta ? { call_to_action: params.cta } : {}),
      ...(req.regen ? { previous_script: req.regen.previous.scenes.map(({ seconds: _s, ...rest }) => rest), change_request: req.regen.note } : {}),
    };
    const answer = await this.llm.json(
      written,
      'You write scripts for short vertical videos. Answer with JSON only: {"scenes": [{"caption", "voiceover", "visual"}] ' +
        '(4 to 8 scenes; caption at most 60 characters, voiceover short enough to be spoken in the scene, visual a picture hint), ' +
        '"title", "description", "hashtags" (each starting with #)}. Write in the given language. When a change_request is given, ' +
        'rewrite previous_script along it. The last scene carries the call to action when one is given.',
      JSON.stringify(brief),
    );
    return {
      language,
      scenes: allotSeconds(answer.scenes, params.duration_seconds),
      pack: { title: answer.title, description: answer.description, hashtags: answer.hashtags },
    };
  }
}
