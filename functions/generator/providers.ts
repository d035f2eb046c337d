/**
 * Optional AI providers behind standard APIs, beside the chat-completions adapter (llm.ts): an OpenAI-compatible
 * images endpoint makes the pictures of `ai_visual` orders, and an OpenAI-compatible speech endpoint speaks the voice
 * of `voice: clone` orders with the voice the operator cloned there. Each is configured by environment
 * (GENERATOR_IMAGES_* and GENERATOR_SPEECH_*: openai-http.ts; on AWS the stack sets them from the stage's `providers`);
 * without it, the extra is refused at creation (deliverable.ts).
 */
import * as z from 'zod/mini';
import { GeneratorBusy, type SecretKeys } from '../core/generator.ts';
import { WaveFile } from './interop.ts';
import { CLONE_VOICE, endpointFromEnv, type OpenAiEndpoint, postOpenAi } from './openai-http.ts';
import { type Speech, VOICE_RATE } from './voice.ts';

const imagesAnswer = z.object({ data: z.array(z.object({ b64_json: z.string() })).check(z.minLength(1)) });
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

/** POST <url>/images/generations: one image for a prompt, as PNG or JPEG bytes. */
export class ImageGenerations {
  constructor(
    private readonly endpoint: OpenAiEndpoint,
    private readonly size = '1024x1536',
  ) {}

  async generate(prompt: string): Promise<Buffer> {
    const res = await postOpenAi(this.endpoint, 'images/generations', { prompt, n: 1, size: this.size, response_format: 'b64_json' }, 'The image generator');
    let image: Buffer;
    try {
      image = Buffer.from(imagesAnswer.parse(await res.json()).data[0]!.b64_json, 'base64');
    } catch {
      throw new GeneratorBusy('The image generator gave a malformed answer');
    }
    if (!image.subarray(0, 4).equals(PNG) && !image.subarray(0, 3).equals(JPEG)) throw new GeneratorBusy('The image generator sent no PNG or JPEG');
    return image;
  }
}

/** POST <url>/audio/speech: the text spoken by `voice`, as mono 16-bit samples at VOICE_RATE. */
export class SpeechSynthesis {
  constructor(private readonly endpoint: OpenAiEndpoint) {}

  async speak(text: string, voice: string, speed = 1): Promise<Speech> {
    const body = { input: text, voice, response_format: 'wav', speed: Math.min(4, Math.max(0.25, speed)) };
    const res = await postOpenAi(this.endpoint, 'audio/speech', body, 'The speech provider');
    let samples: Int16Array;
    try {
      const wav = new WaveFile(new Uint8Array(await res.arrayBuffer()));
      if (wav.bitDepth !== '16') wav.toBitDepth('16');
      if ((wav.fmt as { sampleRate: number }).sampleRate !== VOICE_RATE) wav.toSampleRate(VOICE_RATE);
      const channels = wav.getSamples(false, Int16Array) as unknown as Int16Array | Int16Array[];
      // Several channels come as one array per channel: the first is the voice.
      samples = Array.isArray(channels) ? channels[0]! : channels;
    } catch {
      throw new GeneratorBusy('The speech provider sent no readable WAV');
    }
    if (!samples.length) throw new GeneratorBusy('The speech provider sent no audio');
    return { samples, seconds: samples.length / VOICE_RATE };
  }
}

export interface Providers {
  images?: ImageGenerations;
  speech?: SpeechSynthesis;
  /** The provider's voice id for `voice: clone` (a voice the operator cloned there). */
  cloneVoice?: string;
}

/** The providers configured in `env` (keys kept in secrets are opened by `secrets`); none by default. */
export function providersFromEnv(env: NodeJS.ProcessEnv = process.env, secrets?: SecretKeys): Providers {
  const images = endpointFromEnv(env, 'images', secrets);
  const speech = endpointFromEnv(env, 'speech', secrets);
  const cloneVoice = env[CLONE_VOICE];
  return {
    ...(images ? { images: new ImageGenerations(images) } : {}),
    ...(speech ? { speech: new SpeechSynthesis(speech) } : {}),
    ...(speech && cloneVoice ? { cloneVoice } : {}),
  };
}
