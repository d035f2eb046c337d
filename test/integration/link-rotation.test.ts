/**
 * Rotating the link-signing key keeps the links of the last 7 days working: the functions verify with the secret's
 * AWSCURRENT and AWSPREVIOUS versions, and read the secret again (at most once a minute) when a link verifies with
 * neither, as happens in a warm function after a rotation made by another. The real Secrets Manager client talks to a
 * loopback stand-in (test/support/secrets-manager.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LinkKeyStore } from '../../functions/adapters/secrets.ts';
import { AppError } from '../../functions/core/errors.ts';
import { checkLink, fileUrl } from '../../functions/core/links.ts';
import { type SecretsManagerStandIn, startSecretsManager } from '../support/secrets-manager.ts';

const SECRET = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:link-key-AbCdEf';
let secrets: SecretsManagerStandIn;
const saved = { ...process.env };
const reads = () => secrets.reads.get(SECRET) ?? 0;

before(async () => {
  secrets = await startSecretsManager();
  Object.assign(process.env, secrets.env);
  secrets.put(SECRET, 'key-one');
});
after(async () => {
  process.env = saved;
  await secrets.stop();
});

const rotate = (next: string) => secrets.put(SECRET, next);
const BASE = 'https://api.example.com/v1';
const ORDER = 'vid_01m837a36rwd3vvm20wnzfsswb';

/** The answer of the download route's check for a link: the file, or the error's code. */
async function check(store: LinkKeyStore, url: string, now: Date): Promise<string> {
  const u = new URL(url);
  try {
    return await checkLink(store, ORDER, 'video.mp4', u.searchParams.get('expires') ?? undefined, u.searchParams.get('sig') ?? undefined, now);
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

describe('rotating the link-signing key', () => {
  it('keeps the links signed before a rotation working, refreshes a warm function once, and drops keys two rotations old', async () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const warm = new LinkKeyStore({ linkSigningKeySecretArn: SECRET }, () => clock);
    const signedWith = (key: string) => fileUrl(BASE, key, ORDER, 'video', new Date(clock));
    const before = signedWith((await warm.keys()).current);
    assert.equal(before.includes('sig='), true);
    assert.equal(await check(warm, before, new Date(clock)), 'video');

    // A rotation: a fresh function signs with the new key and still verifies the old links.
    rotate('key-two');
    clock += 120_000;
    const fresh = new LinkKeyStore({ linkSigningKeySecretArn: SECRET }, () => clock);
    assert.deepEqual(await fresh.keys(), { current: 'key-two', previous: 'key-one' });
    const after = signedWith('key-two');
    assert.equal(await check(fresh, before, new Date(clock)), 'video', 'a link from before the rotation');
    // The warm function still holds key-one only: the new link fails with it, so it reads the secret again.
    const readsBefore = reads();
    assert.equal(await check(warm, after, new Date(clock)), 'video', 'a link signed after the rotation, in a warm function');
    assert.equal(reads() - readsBefore, 2, 'one fresh read: AWSCURRENT and AWSPREVIOUS');
    // A forged link does not make it read again within the minute.
    assert.equal(await check(warm, after.replace(/sig=[^&]+/, 'sig=forged'), new Date(clock)), 'forbidden');
    assert.equal(reads() - readsBefore, 2, 'no second read within a minute');

    // A second rotation: links signed with key-one (two rotations ago) stop working.
    rotate('key-three');
    clock += 120_000;
    const later = new LinkKeyStore({ linkSigningKeySecretArn: SECRET }, () => clock);
    assert.equal(await check(later, before, new Date(clock)), 'forbidden');
    assert.equal(await check(later, after, new Date(clock)), 'video', 'key-two is AWSPREVIOUS now');
  });

  it('verifies with the current key alone when the secret was never rotated', async () => {
    const never = `${SECRET}-never-rotated`;
    secrets.put(never, 'only');
    const store = new LinkKeyStore({ linkSigningKeySecretArn: never });
    assert.deepEqual(await store.keys(), { current: 'only' });
  });
});
