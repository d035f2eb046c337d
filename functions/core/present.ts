/**
 * The pairs of `fields` whose value is defined: spread where an optional property must be absent rather than
 * `undefined` (the project compiles under exactOptionalPropertyTypes, and stored items and JSON bodies leave it out).
 */
export function present<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
