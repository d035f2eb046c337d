import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyMatches, newApiKey, parseKey } from '../../functions/core/apikeys.ts';
import { InvalidParams } from '../../functions/core/errors.ts';
import { minuteWindow, resendWindow } from '../../functions/core/limits.ts';
import { createVideoBody, quickVideoBody } from '../../functions/contract/orders.ts';
import { validate } from '../../functions/app/validate.ts';

const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InvalidParams);
    return e.message;
  }
  assert.fail('expected InvalidParams');
};

const unprintable = 'must not contain control characters or unpaired surrogates';
/** Each invalid body with the 422 message it gets (a RegExp where the reason is zod's wording). */
const REFUSED: [schema: typeof createVideoBody | typeof quickVideoBody, body: unknown, message: string | RegExp][] = [
  [createVideoBody, {}, 'topic: is required'],
  [quickVideoBody, { prompt: '   ' }, 'prompt: must not be empty'],
  [createVideoBody, { topic: 'x', colour: 'red' }, 'colour: unknown field'],
  [createVideoBody, { topic: 'x', director_mode: 'yes' }, /^director_mode: /],
  [createVideoBody, { topic: 'x', duration_seconds: 600 }, /^duration_seconds: /],
  [createVideoBody, { topic: 'x', placement: { product: 'a', x: 1 } }, /^placement\.x: unknown field/],
  [createVideoBody, [1, 2], /^body: /],
  // Found by the hostile-input suite: control characters and unpaired surrogates in text.
  [quickVideoBody, { prompt: '\u0000' }, `prompt: ${unprintable}`],
  [createVideoBody, { topic: 'tea\u0007' }, `topic: ${unprintable}`],
  [createVideoBody, { topic: 'a\ud800b' }, `topic: ${unprintable}`],
  [createVideoBody, { topic: 'tea', cta: 'buy\u007f' }, `cta: ${unprintable}`],
];

describe('validation messages name the field and the reason', () => {
  it('missing, empty, unknown, wrong type, out of range, control characters and unpaired surrogates', () => {
    for (const [schema, body, message] of REFUSED) {
      const got = messageOf(() => validate(schema, body));
      if (typeof message === 'string') assert.equal(got, message, JSON.stringify(body));
      else assert.match(got, message, JSON.stringify(body));
    }
  });

  it('keeps line breaks and tabs in text', () => {
    assert.equal(validate(quickVideoBody, { prompt: 'Line one\nline two\ttabbed 🍵 чай' }).prompt, 'Line one\nline two\ttabbed 🍵 чай');
  });
});

describe('api keys', () => {
  it('carry the user id behind a fixed prefix and match only their own hash', () => {
    const { apiKey, hash } = newApiKey('01M8379PP2W86T92R6BP6GCX1S');
    assert.match(apiKey, /^vgk_01M8379PP2W86T92R6BP6GCX1S_/);
    assert.deepEqual(parseKey(apiKey), { accountId: '01M8379PP2W86T92R6BP6GCX1S', mode: 'live' });
    assert.deepEqual(parseKey(newApiKey('01M8379PP2W86T92R6BP6GCX1S', 'test').apiKey), { accountId: '01M8379PP2W86T92R6BP6GCX1S', mode: 'test' });
    assert.ok(keyMatches(apiKey, hash));
    assert.ok(!keyMatches(newApiKey('01M8379PP2W86T92R6BP6GCX1S').apiKey, hash), 'a reissued key of the same user');
    assert.equal(parseKey('vgk_short'), undefined);
    assert.equal(parseKey(undefined), undefined);
  });
});

describe('limits arithmetic', () => {
  it('gives the seconds left in the minute window, and in the hour of the resend budget', () => {
    const now = new Date('2026-11-23T10:00:45.200Z');
    assert.deepEqual(minuteWindow(now), { start: Date.parse('2026-11-23T10:00:00Z'), end: Date.parse('2026-11-23T10:01:00Z'), retryAfterSeconds: 15 });
    assert.deepEqual(resendWindow(now), { start: Date.parse('2026-11-23T10:00:00Z'), end: Date.parse('2026-11-23T11:00:00Z'), retryAfterSeconds: 3555 });
  });
});
