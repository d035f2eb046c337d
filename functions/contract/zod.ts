/**
 * The service's schemas use zod's mini build (`import * as z from 'zod/mini'`), which tree-shakes to a few KB in a
 * Lambda bundle where the classic build carries some 450 KB of locales. Importing this module sets the English
 * messages that 422 answers quote.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** A trimmed, non-empty string of at most `max` characters. */
export const text = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(max, `must be at most ${max} characters`));
