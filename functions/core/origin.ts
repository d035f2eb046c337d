/**
 * The origin check of a stage with the edge: a request reached the API through CloudFront (and so through AWS WAF's
 * per-address limits) when it carries the secret value CloudFront adds to every request it forwards. The value may
 * have been rotated since it was read, so a request that matches neither the current nor the previous value makes the
 * secret be read once more (at most once a minute, by the source) before it is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The secret's current value and the one before its last rotation, kept for a while and read again on demand. */
export interface RotatedSecret {
  values(): Promise<{ current: string; previous?: string }>;
  /** Reads the values again; false when that was done too recently to do again. */
  refresh(): boolean;
}

/** Equal strings, compared in constant time (digests of equal length): the time taken tells nothing of the secret. */
function same(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function matches(value: string, { current, previous }: { current: string; previous?: string }): boolean {
  // Both compared, whatever the first answer, so the time does not tell which one matched.
  const [c, p] = [same(value, current), previous !== undefined && same(value, previous)];
  return c || p;
}

export async function cameThroughEdge(value: string | undefined, secret: RotatedSecret): Promise<boolean> {
  if (!value) return false;
  if (matches(value, await secret.values())) return true;
  return secret.refresh() && matches(value, await secret.values());
}
