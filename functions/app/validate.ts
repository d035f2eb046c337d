import type * as z from 'zod/mini';
import '../contract/zod.ts';
import { InvalidParams } from '../core/errors.ts';

/** Validates a parsed body; the first problem becomes 422 invalid_params naming the field and the reason. */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
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
