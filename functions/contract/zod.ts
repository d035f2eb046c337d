/**
 * The service's schemas use zod's mini build (`import * as z from 'zod/mini'`), which tree-shakes to a few KB in a
 * Lambda bundle where the classic build carries some 450 KB of locales. Importing this module sets the English
 * messages that 422 answers quote.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

/** Control characters other than tab and line breaks, and UTF-16 surrogates that are not part of a pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\p{Cs}/u;

/** A trimmed, non-empty string of at most `max` characters, with nothing a caption or a voice cannot carry. */
export const text = (max: number) =>
  z.string().check(
    z.trim(),
    z.minLength(1, 'must not be empty'),
    z.maxLength(max, `must be at most ${max} characters`),
    z.refine((s) => !UNPRINTABLE.test(s), 'must not contain control characters or unpaired surrogates'),
  );

export const timestamp = z.iso.datetime().check(z.describe('A time as the service writes it: ISO 8601 in UTC (`2026-11-25T07:24:51.123Z`).'));

/** A named enum whose description explains each value, in order: `intro`, then "`value`: meaning" for each. */
export const explainedEnum = <const V extends string>(intro: string, meanings: Record<V, string>) =>
  z.enum(Object.keys(meanings) as [V, ...V[]]).check(
    z.describe(
      `${intro} ${Object.entries(meanings)
        .map(([value, meaning]) => `\`${value}\`: ${meaning}`)
        .join('; ')}.`,
    ),
  );
