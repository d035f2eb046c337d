/** The language of an order's text: what `language: auto` becomes, so the record shows what runs. */
import type { OrderParams } from '../contract/orders.ts';

/** Russian when Cyrillic letters are at least as many as Latin ones (and there are some). */
export function detectLanguage(text: string): 'ru' | 'en' {
  const cyrillic = text.match(/[\u0400-\u04FF]/g)?.length ?? 0;
  const latin = text.match(/[A-Za-z]/g)?.length ?? 0;
  return cyrillic > 0 && cyrillic >= latin ? 'ru' : 'en';
}

/** An explicit order's `language: auto` becomes the language of its topic. */
export function resolveLanguage(params: OrderParams): OrderParams {
  return params.language === 'auto' ? { ...params, language: detectLanguage(params.topic) } : params;
}
