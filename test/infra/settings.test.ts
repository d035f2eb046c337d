/**
 * The deployment's settings as `cdk synth` reads them: the stage's entry with context overrides, each checked so that
 * a wrong value fails the synth with its name. Here the AI providers (context `providers`, JSON), and the render slots
 * derived from demand; and the alarm address prod cannot be built without (`cdk synth` itself is run for that).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { App } from 'aws-cdk-lib';
import { ROOT } from '../../lib/paths.ts';
import { requireAlarmAddress, settingsOf } from '../../lib/settings.ts';
import { STAGES } from '../../lib/stages.ts';

const settings = (context: Record<string, unknown>) => settingsOf(new App({ context }).node);
const providers = (p: unknown) => settings({ providers: JSON.stringify(p) }).providers;
const IMAGES = { url: 'https://images.example.com/v1', apiKeySecret: 'video-service/images-key' };

describe('the AI providers of a deployment', () => {
  it('are none unless configured: the embedded generator, with the paid extras refused', () => {
    assert.equal(settings({}).providers, undefined);
    assert.equal(settings({ stage: 'prod' }).providers, undefined);
  });

  it('come from context as JSON, by secret name or complete ARN', () => {
    const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:speech-key-AbCdEf';
    const given = { images: IMAGES, speech: { url: 'https://speech.example.com/v1', apiKeySecret: arn, cloneVoice: 'v1', timeoutMs: 45_000 } };
    assert.deepEqual(providers(given), given);
  });

  it('refuse, naming the setting, what would fail at run time or put a key in the template', () => {
    const refused = (p: unknown, pattern: RegExp) => assert.throws(() => providers(p), pattern);
    refused({ images: { url: 'http://images.example.com/v1' } }, /Context providers\.images\.url: must be an https:\/\/ address/);
    refused(
      { llm: { url: 'https://llm.example.com/v1', timeoutMs: 120_000 } },
      /Context providers\.llm\.timeoutMs: must be below the timeout of the functions that call it \(120 s\)/,
    );
    refused({ images: { ...IMAGES, apiKeySecret: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:images-key' } }, /providers\.images\.apiKeySecret/);
    refused(
      { images: { ...IMAGES, apiKey: 'sk-inline' } },
      /Context providers\.images: Unrecognized key: "apiKey" \(an API key goes in the secret named by apiKeySecret\)/,
    );
    refused({ images: { ...IMAGES, cloneVoice: 'v1' } }, /providers\.images/);
    refused({ video: IMAGES }, /providers/);
  });

  it("replace the stage's provider one by one, and null removes one", () => {
    const stage = STAGES.dev as { providers?: object };
    stage.providers = { images: IMAGES, llm: { url: 'https://llm.example.com/v1' } };
    try {
      assert.deepEqual(settings({}).providers, stage.providers);
      const other = { url: 'https://other.example.com/v1' };
      assert.deepEqual(providers({ images: other }), { images: other, llm: { url: 'https://llm.example.com/v1' } });
      assert.deepEqual(providers({ llm: null }), { images: IMAGES });
      assert.equal(providers({ llm: null, images: null }), undefined);
    } finally {
      delete stage.providers;
    }
  });
});

describe('the render slots and deliveries of a deployment', () => {
  it("are derived from the stage's demand, and re-derived from a figure given in context", () => {
    assert.deepEqual([settings({}).renderSlots, settings({ stage: 'prod' }).renderSlots], [2, 6]);
    // A measured 24 s of slot time per order after the first deploy: 1,000 x 24 / 3,600 / 0.7 = 9.5, so 10.
    const measured = settings({ stage: 'prod', slotSecondsPerOrder: '24' });
    assert.deepEqual([measured.renderSlots, measured.demand], [10, { ...STAGES.prod.demand, slotSecondsPerOrder: 24 }]);
    assert.equal(settings({ stage: 'prod', peakOrdersPerHour: '10000' }).renderSlots, 60);
    assert.equal(settings({ stage: 'prod', targetUtilisation: '1' }).renderSlots, 5);
  });

  it('take an explicit renderSlots over the derivation', () => {
    assert.equal(settings({ stage: 'prod', renderSlots: '3' }).renderSlots, 3);
    assert.equal(settings({ stage: 'prod', renderSlots: '3', peakOrdersPerHour: '10000' }).renderSlots, 3);
    assert.deepEqual([settings({ stage: 'prod' }).deliveryConcurrency, settings({ deliveryConcurrency: '5' }).deliveryConcurrency], [10, 5]);
    // The test lane's slots are a setting of their own, never derived from the demand.
    assert.deepEqual(
      [
        settings({}).testRenderSlots,
        settings({ stage: 'prod' }).testRenderSlots,
        settings({ stage: 'prod', testRenderSlots: '3', peakOrdersPerHour: '10000' }).testRenderSlots,
      ],
      [1, 2, 3],
    );
  });

  it('refuse, naming the setting, a figure that sizes nothing', () => {
    assert.throws(() => settings({ targetUtilisation: '1.5' }), /targetUtilisation must be above 0 and at most 1/);
    assert.throws(() => settings({ slotSecondsPerOrder: 'fast' }), /Context slotSecondsPerOrder must be a number/);
    assert.throws(() => settings({ peakOrdersPerHour: '0' }), /peakOrdersPerHour must be an integer >= 1/);
    assert.throws(() => settings({ renderSlots: '0' }), /Context renderSlots must be an integer >= 1/);
    assert.throws(() => settings({ deliveryConcurrency: '0' }), /Context deliveryConcurrency must be an integer >= 1/);
    assert.throws(() => settings({ testRenderSlots: '0' }), /Context testRenderSlots must be an integer >= 1/);
  });
});

describe('the alarm address', () => {
  it('is required of prod, from lib/stages.ts or context alarmEmail, and not of dev', () => {
    assert.throws(
      () => requireAlarmAddress({ stage: 'prod', alarmEmails: [] }),
      /Stage prod has no alarm address.*alarmEmails in lib\/stages\.ts.*-c alarmEmail=/,
    );
    requireAlarmAddress(settings({ stage: 'prod', alarmEmail: 'oncall@example.com' }));
    requireAlarmAddress(settings({}));
    assert.throws(() => settings({ stage: 'prod', alarmEmail: 'oncall' }), /alarm e-mail "oncall" is not an address/);
  });

  const committed = STAGES.prod.alarmEmails.length > 0;
  it('stops `cdk synth -c stage=prod` without one, naming the setting, before anything is built', { skip: committed && 'prod has a committed address' }, () => {
    const out = mkdtempSync(join(tmpdir(), 'video-service-prod-no-alarm-'));
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
      const res = spawnSync('npx', ['cdk', 'synth', '-q', '-o', out, '-c', 'stage=prod'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
      assert.notEqual(res.status, 0);
      assert.match(`${res.stdout}${res.stderr}`, /Stage prod has no alarm address.*-c alarmEmail=<address>/);
      // The message alone, not a stack trace to read it from.
      assert.doesNotMatch(res.stderr, /^\s+at /m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
