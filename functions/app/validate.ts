import type * as z from 'zod/mini';
import '../contract/zod.ts';
import { InvalidParams } from '../core/errors.ts';

/**
 * The path of a `__proto__` key in parsed JSON, if any: zod leaves such a key out of what it parses (an object built
 * by assignment cannot hold it), so a field would vanish instead of being refused.
 */
function protoKeyPath(value: unknown, path: string[] = [], depth = 0): string | undefined {
  if (value === null || typeof value !== 'object' || depth > 8) return undefined;
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return [...path, key].join('.');
    const found = protoKeyPath((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Validates a parsed body; the first problem becomes 422 invalid_params naming the field and the reason. */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const proto = protoKeyPath(value);
  if (proto) throw new InvalidParams(proto, 'unknown field');
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  let issue = result.error.issues[0]!;
  // A body that may be one of several shapes (POST /videos:quote): the problem of the shape it comes nearest to.
  if (issue.code === 'invalid_union' && 'errors' in issue && Array.isArray(issue.errors) && issue.errors.length) {
    const nearest = [...(issue.errors as z.core.$ZodIssue[][])].sort((a, b) => a.length - b.length)[0]!;
    if (nearest[0]) issue = nearest[0];
  }
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length ? `${issue.path.join('.')}.` : '';
    throw new InvalidParams(`${prefix}${issue.keys[0]}`, 'unknown field');
  }
  const field = issue.path.length ? issue.path.join('.') : 'body';
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    throw new InvalidParams(field, `must be one of ${issue.options.join(', ')}`);
  }
  const reason = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  throw new InvalidParams(field, reason);
}
