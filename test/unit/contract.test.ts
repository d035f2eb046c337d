import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyMatches, newApiKey, userIdOfKey } from '../../functions/core/apikeys.ts';
import { InvalidParams } from '../../functions/core/errors.ts';
import { etaSeconds, postWindow } from '../../functions/core/limits.ts';
import { createVideoBody, quickVideoBody } from '../../functions/contract/orders.ts';
import { validate } from '../../functions/http/validate.ts';

const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InvalidParams);
    return e.message;
  }
  assert.fail('expected InvalidParams');
};

describe('validation messages name the field and the reason', () => {
  it('missing, empty, unknown, wrong type, out of range', () => {
    assert.equal(
      messageOf(() => validate(createVideoBody, {})),
      'topic: is required',
    );
    assert.equal(
      messageOf(() => validate(quickVideoBody, { prompt: '   ' })),
      'prompt: must not be empty',
    );
    assert.equal(
      messageOf(() => validate(createVideoBody, { topic: 'x', colour: 'red' })),
      'colour: unknown field',
    );
    assert.match(
      messageOf(() => validate(createVideoBody, { topic: 'x', director_mode: 'yes' })),
      /^director_mode: /,
    );
    assert.match(
      messageOf(() => validate(createVideoBody, { topic: 'x', duration_seconds: 600 })),
      /^duration_seconds: /,
    );
    assert.match(
      messageOf(() => validate(createVideoBody, { topic: 'x', placement: { product: 'a', x: 1 } })),
      /^placement\.x: unknown field/,
    );
    assert.match(
      messageOf(() => validate(createVideoBody, [1, 2])),
      /^body: /,
    );
  });

  it('refuses control characters and unpaired surrogates in text, keeps line breaks and tabs (found by the hostile-input suite)', () => {
    assert.equal(
      messageOf(() => validate(quickVideoBody, { prompt: '\u0000' })),
      'prompt: must not contain control characters or unpaired surrogates',
    );
    assert.equal(
      messageOf(() => validate(createVideoBody, { topic: 'tea\u0007' })),
      'topic: must not contain control characters or unpaired surrogates',
    );
    assert.equal(
      messageOf(() => validate(createVideoBody, { topic: 'a\ud800b' })),
      'topic: must not contain control characters or unpaired surrogates',
    );
    assert.equal(
      messageOf(() => validate(createVideoBody, { topic: 'tea', cta: 'buy\u007f' })),
      'cta: must not contain control characters or unpaired surrogates',
    );
    assert.equal(validate(quickVideoBody, { prompt: 'Line one\nline two\ttabbed 🍵 чай' }).prompt, 'Line one\nline two\ttabbed 🍵 чай');
  });
});

describe('api keys', () => {
  it('carry the user id behind a fixed prefix and match only their own hash', () => {
    const { apiKey, hash } = newApiKey('01M8379PP2W86T92R6BP6GCX1S');
    assert.match(apiKey, /^vgk_01M8379PP2W86T92R6BP6GCX1S_/);
    assert.equal(userIdOfKey(apiKey), '01M8379PP2W86T92R6BP6GCX1S');
    assert.ok(keyMatches(apiKey, hash));
    assert.ok(!keyMatches(newApiKey('01M8379PP2W86T92R6BP6GCX1S').apiKey, hash), 'a reissued key of the same user');
    assert.equal(userIdOfKey('vgk_short'), undefined);
    assert.equal(userIdOfKey(undefined), undefined);
  });
});

describe('limits arithmetic', () => {
  it('gives the seconds left in the minute window', () => {
    assert.deepEqual(postWindow(new Date('2026-11-23T10:00:45.200Z')), { start: Date.parse('2026-11-23T10:00:00Z'), retryAfterSeconds: 15 });
  });
  it('grows the estimate with the queue ahead', () => {
    const t = { orderSeconds: 60, workers: 2 };
    assert.deepEqual(
      [0, 1, 2, 5].map((n) => etaSeconds(n, t)),
      [60, 60, 120, 180],
    );
  });
});
