/**
 * The AI providers behind standard APIs (functions/generator/providers.ts), against a local HTTP stand-in that speaks
 * OpenAI's images and speech endpoints and answers real PNGs and WAVs: the adapters, their error mapping, the
 * configuration, and the paid extras delivered, measurably, by the renderer.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { GeneratorBusy, GeneratorFailed, type RenderResult, type Script } from '../../functions/core/generator.ts';
import { deliverableFromEnv } from '../../functions/generator/deliverable.ts';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { ImageGenerations, providersFromEnv, SpeechSynthesis } from '../../functions/generator/providers.ts';
import { EmbeddedRenderer, REGIONS } from '../../functions/generator/render.ts';
import { VOICE_RATE } from '../../functions/generator/voice.ts';
import { type AiProvider, startAiProvider } from '../support/ai-provider.ts';
import { framesAt, meanAbsDiff, probe } from '../support/media.ts';

let provider: AiProvider;
const dir = mkdtempSync(join(tmpdir(), 'providers-test-'));
before(async () => {
  provider = await startAiProvider();
});
after(async () => {
  await provider.stop();
  rmSync(dir, { recursive: true, force: true });
});

const endpoint = (timeoutMs = 5000) => ({ baseUrl: provider.url, model: 'test-model', apiKey: provider.key, timeoutMs });
const env = () => ({
  GENERATOR_IMAGES_URL: provider.url,
  GENERATOR_IMAGES_API_KEY: provider.key,
  GENERATOR_SPEECH_URL: provider.url,
  GENERATOR_SPEECH_API_KEY: provider.key,
  GENERATOR_SPEECH_CLONE_VOICE: 'cloned-voice-1',
});

describe('the images adapter', () => {
  it('returns the generated image, asked for by the standard request', async () => {
    const png = await new ImageGenerations(endpoint()).generate('a teacup on a table');
    const file = join(dir, 'image.png');
    writeFileSync(file, png);
    assert.deepEqual([probe(file).video.width, probe(file).video.height], [1024, 1536]);
    const sent = provider.requests.at(-1)!;
    assert.equal(sent.path, '/v1/images/generations');
    assert.deepEqual(sent.body, { model: 'test-model', prompt: 'a teacup on a table', n: 1, size: '1024x1536', response_format: 'b64_json' });
  });

  it('maps a busy, slow or garbled provider to a failure that may pass, and a refusal to a lasting one', async () => {
    const images = new ImageGenerations(endpoint(300));
    for (const failure of [{ status: 429 }, { status: 503 }, { delayMs: 600 }, 'malformed' as const]) {
      provider.failNext(failure);
      await assert.rejects(images.generate('x'), GeneratorBusy, JSON.stringify(failure));
    }
    provider.failNext({ status: 400 });
    await assert.rejects(images.generate('x'), GeneratorFailed);
    await assert.rejects(new ImageGenerations({ ...endpoint(), apiKey: 'wrong' }).generate('x'), GeneratorFailed);
  });
});

describe('the speech adapter', () => {
  it('returns mono samples at the voice rate, as long as the text and the speed say', async () => {
    const speech = new SpeechSynthesis(endpoint());
    const slow = await speech.speak('one two three four five six', 'cloned-voice-1');
    assert.ok(slow.samples.length > 0 && Math.abs(slow.seconds - 6 * 0.35) < 0.1, `${slow.seconds} s`);
    const fast = await speech.speak('one two three four five six', 'cloned-voice-1', 2);
    assert.ok(Math.abs(fast.seconds - slow.seconds / 2) < 0.1, `${fast.seconds} s at speed 2`);
    assert.equal(provider.requests.at(-1)!.body.voice, 'cloned-voice-1');
    assert.equal(provider.requests.at(-1)!.body.response_format, 'wav');
    assert.ok(Math.max(...slow.samples.slice(0, VOICE_RATE)) > 1000, 'not silence');
  });

  it('maps failures as the images adapter does', async () => {
    const speech = new SpeechSynthesis(endpoint(300));
    provider.failNext({ status: 500 });
    await assert.rejects(speech.speak('x', 'v'), GeneratorBusy);
    provider.failNext('malformed');
    await assert.rejects(speech.speak('x', 'v'), GeneratorBusy);
    provider.failNext({ status: 422 });
    await assert.rejects(speech.speak('x', 'v'), GeneratorFailed);
  });
});

describe('configuration', () => {
  it('offers AI visuals with an image generator and a cloned voice with a speech provider that has one, and neither by default', () => {
    assert.deepEqual(deliverableFromEnv({}), { ai_visual: false, voice_clone: false });
    assert.deepEqual(deliverableFromEnv(env()), { ai_visual: true, voice_clone: true });
    assert.deepEqual(deliverableFromEnv({ ...env(), GENERATOR_SPEECH_CLONE_VOICE: '' }), { ai_visual: true, voice_clone: false });
    assert.deepEqual(Object.keys(providersFromEnv({})), []);
    assert.deepEqual(Object.keys(providersFromEnv(env())).sort(), ['cloneVoice', 'images', 'speech']);
  });
});

describe('the paid extras, delivered by the renderer', () => {
  const script: Script = {
    language: 'en',
    scenes: [
      { caption: 'Green tea', voiceover: 'Green tea is good for you.', visual: 'teacup', seconds: 3 },
      { caption: 'Follow us', voiceover: 'Follow us for more.', visual: 'bell', seconds: 3 },
    ],
    pack: { title: 'Tea', description: 'Tea', hashtags: [] },
  };
  const render = (name: string, extra: object) =>
    new EmbeddedRenderer(providersFromEnv(env())).render({ script, params: createVideoBody.parse({ topic: 'Tea', ...extra }), outDir: join(dir, name) });
  // Music off: the voice is compared alone. Both extras are compared with this one render of the script without them.
  let withoutExtras: Promise<RenderResult> | undefined;
  const plain = () => (withoutExtras ??= render('plain', { music: 'none' }));
  const pcm = (file: string) =>
    execFileSync(FFMPEG, ['-v', 'error', '-i', file, '-map', '0:a', '-ac', '1', '-ar', '8000', '-f', 's16le', '-'], { maxBuffer: 1e8 });

  it('an ai_visual order’s frames differ from the same script’s without it, around its picture', async () => {
    const [plainAt, aiAt] = [framesAt((await plain()).video, [1.5]), framesAt((await render('ai', { music: 'none', ai_visual: true })).video, [1.5])];
    const background = { x: 0, y: 1560, width: 1080, height: 300 };
    assert.ok(meanAbsDiff(plainAt.region(1.5, background), aiAt.region(1.5, background)) > 10, 'the background is the generated image');
    assert.ok(meanAbsDiff(plainAt.region(1.5, REGIONS.caption), aiAt.region(1.5, REGIONS.caption)) > 1, 'behind the caption too');
    assert.equal(provider.requests.filter((r) => r.path === '/v1/images/generations' && String(r.body.prompt).startsWith('teacup. Green tea')).length, 1);
  });

  it('a cloned voice differs from the standard one', async () => {
    const [standard, clone] = [await plain(), await render('clone', { music: 'none', voice: 'clone' })];
    const a = pcm(standard.video);
    const b = pcm(clone.video);
    assert.ok(meanAbsDiff(a, b) > 20, `audio differs by ${meanAbsDiff(a, b)}`);
    assert.ok(
      provider.requests.some((r) => r.path === '/v1/audio/speech' && r.body.voice === 'cloned-voice-1' && r.body.input === 'Green tea is good for you.'),
    );
  });

  it('refuses to render an extra whose provider is gone since the order was taken (a lasting failure, refunded)', async () => {
    const params = createVideoBody.parse({ topic: 'Tea', ai_visual: true });
    await assert.rejects(new EmbeddedRenderer().render({ script, params, outDir: join(dir, 'gone') }), GeneratorFailed);
  });
});
