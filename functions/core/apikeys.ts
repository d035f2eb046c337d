/**
 * API keys: `vgk_<user id>_<43 chars of base64url secret>`, and test-mode keys `vgk_test_<test account id>_<...>`. The
 * account id inside the key lets one strongly consistent read of the account's item both authenticate and load the
 * account; only the SHA-256 of the whole key (its prefix included) is stored. A 256-bit random secret needs no slow
 * hash: there is nothing to brute-force.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A live key's prefix, and a test-mode key's (docs/decisions.md "Test mode"). */
export const KEY_PREFIXES = { live: 'vgk_', test: 'vgk_test_' } as const;
export type KeyMode = keyof typeof KEY_PREFIXES;
const KEY_RE = /^vgk_(test_)?([0-9A-HJKMNP-TV-Z]{26})_[A-Za-z0-9_-]{43}$/;

export function newApiKey(accountId: string, mode: KeyMode = 'live'): { apiKey: string; hash: string } {
  const apiKey = `${KEY_PREFIXES[mode]}${accountId}_${randomBytes(32).toString('base64url')}`;
  return { apiKey, hash: hashApiKey(apiKey) };
}

const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

/** The account id a well-formed key names and its mode, or undefined for anything malformed. */
export function parseKey(apiKey: string | undefined): { accountId: string; mode: KeyMode } | undefined {
  const m = apiKey ? KEY_RE.exec(apiKey) : null;
  return m ? { accountId: m[2]!, mode: m[1] ? 'test' : 'live' } : undefined;
}

export function keyMatches(apiKey: string, storedHash: string | undefined): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashApiKey(apiKey), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
