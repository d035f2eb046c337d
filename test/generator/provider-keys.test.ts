/**
 * An AI provider's API key kept in Secrets Manager, as on AWS (`<prefix>_API_KEY_SECRET`; the stack grants the read):
 * the real SDK client reads it from a loopback Secrets Manager stand-in, the adapters call a loopback provider with it,
 * a key rotated at the provider and in the secret is read again once after the provider's 401, and a read that fails
 * maps to the generator's errors (a lasting refusal fails and refunds the order, a throttle or outage retries).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { providerKeys } from '../../functions/adapters/secrets.ts';
import { GeneratorBusy, GeneratorFailed } from '../../functions/core/generator.ts';
import { generatorFromEnv } from '../../functions/generator/index.ts';
import { endpointFromEnv } from '../../functions/generator/openai-http.ts';
import { providersFromEnv } from '../../functions/generator/providers.ts';
import { type AiProvider, startAiProvider } from '../support/ai-provider.ts';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.ts';

let provider: AiProvider;
let secrets: SecretsManagerStandIn;
const saved = { ...process.env };
const SECRET = 'video-service/images-key';
before(async () => {
  [provider, secrets] = await Promise.all([startAiProvider('key-one'), startSecretsManager()]);
  Object.assign(process.env, secrets.env);
});
after(async () => {
  process.env = saved;
  await Promise.all([provider.stop(), secrets.stop()]);
});

const reads = (id = SECRET) => secrets.reads.get(id) ?? 0;
const imagesWith = (secretId: string, clock: () => number = Date.now) =>
  providersFromEnv({ GENERATOR_IMAGES_URL: provider.url, GENERATOR_IMAGES_API_KEY_SECRET: secretId }, providerKeys(clock)).images!;

describe("an AI provider's key in Secrets Manager", () => {
  it('is read once and kept: calls carry it, a warm process reads it no more', async () => {
    secrets.put(SECRET, 'key-one\n');
    const images = imagesWith(SECRET);
    for (let i = 0; i < 3; i++) assert.ok((await images.generate(`tea ${i}`)).length > 100);
    assert.equal(reads(), 1);
    assert.equal(provider.requests.filter((r) => r.path === '/v1/images/generations').length, 3);
  });

  it('is read again after the provider refuses it (a rotation), once within a minute, and a refusal after that fails', async () => {
    const id = 'video-service/rotated-key';
    let clock = Date.parse('2026-11-25T10:00:00Z');
    secrets.put(id, 'key-one');
    provider.setKey('key-one');
    const images = imagesWith(id, () => clock);
    await images.generate('before');
    // The operator rotates: the provider takes the new key only, and the secret holds it.
    secrets.put(id, 'key-two');
    provider.setKey('key-two');
    clock += 120_000;
    assert.ok((await images.generate('after the rotation')).length > 100);
    assert.equal(reads(id), 2, 'one fresh read after the 401');
    assert.equal(provider.requests.at(-2)?.body.prompt, 'after the rotation', 'the refused call was made once again');
    // A key the provider refuses again within the minute is not read again: the order's failure is lasting.
    provider.setKey('key-three');
    clock += 10_000;
    await assert.rejects(images.generate('refused'), (err: Error) => err instanceof GeneratorFailed && /refused the request \(401\)/.test(err.message));
    assert.equal(reads(id), 2);
    provider.setKey('key-one');
  });

  it('maps a failed read: no such secret or an empty one is lasting, a throttle or an outage may pass, and neither is kept', async () => {
    const missing = imagesWith('video-service/no-such-key');
    await assert.rejects(missing.generate('x'), (err: Error) => err instanceof GeneratorFailed && /ResourceNotFoundException/.test(err.message));
    secrets.put('video-service/empty-key', '  ');
    await assert.rejects(
      imagesWith('video-service/empty-key').generate('x'),
      (err: Error) => err instanceof GeneratorFailed && /holds no API key/.test(err.message),
    );

    const id = 'video-service/flaky-key';
    secrets.put(id, 'key-one');
    const images = imagesWith(id);
    // The SDK makes three attempts at a throttle or a 5xx before it gives up.
    const three = (status: number, type: string) => Array.from({ length: 3 }, () => ({ status, type }));
    secrets.failNext(...three(400, 'ThrottlingException'));
    await assert.rejects(images.generate('x'), (err: Error) => err instanceof GeneratorBusy && /ThrottlingException/.test(err.message));
    secrets.failNext(...three(500, 'InternalServiceError'));
    await assert.rejects(images.generate('x'), (err: Error) => err instanceof GeneratorBusy && /InternalServiceError/.test(err.message));
    // Nothing failed is kept: the next call reads again and succeeds.
    assert.ok((await images.generate('x')).length > 100);
  });

  it('reaches every provider the same way: the planner and writer, the images and the speech', async () => {
    secrets.put('video-service/llm-key', 'key-one');
    secrets.put('video-service/speech-key', 'key-one');
    const env = {
      GENERATOR_LLM_URL: provider.url,
      GENERATOR_LLM_API_KEY_SECRET: 'video-service/llm-key',
      GENERATOR_SPEECH_URL: provider.url,
      GENERATOR_SPEECH_API_KEY_SECRET: 'video-service/speech-key',
      GENERATOR_SPEECH_CLONE_VOICE: 'cloned-voice-1',
    };
    const keys = providerKeys();
    const speech = providersFromEnv(env, keys).speech!;
    assert.ok((await speech.speak('Green tea for everyone', 'cloned-voice-1')).samples.length > 1000);
    assert.equal(reads('video-service/speech-key'), 1);
    // The chat adapter carries the key from its secret too (the stand-in knows no chat route: 404, a lasting refusal).
    const { writer } = generatorFromEnv(env, keys);
    await assert.rejects(writer.write({ orderId: 'vid_x', params: { topic: 'tea' } as never }), /refused the request \(404\)/);
    assert.equal(reads('video-service/llm-key'), 1);
    assert.equal(provider.requests.at(-1)?.path, '/v1/chat/completions');
  });

  it('is refused at start where secrets cannot be read, and an inline key wins over a secret', () => {
    assert.throws(
      () => endpointFromEnv({ GENERATOR_IMAGES_URL: provider.url, GENERATOR_IMAGES_API_KEY_SECRET: SECRET }, 'images'),
      /GENERATOR_IMAGES_API_KEY_SECRET is set but this process reads no secrets/,
    );
    const both = endpointFromEnv(
      { GENERATOR_IMAGES_URL: provider.url, GENERATOR_IMAGES_API_KEY: 'inline', GENERATOR_IMAGES_API_KEY_SECRET: SECRET },
      'images',
      providerKeys(),
    );
    assert.equal(both?.apiKey, 'inline');
  });
});
