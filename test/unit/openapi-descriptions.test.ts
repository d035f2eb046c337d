/**
 * The served document explains itself to a client developer: every component schema and (nearly) every property
 * carries a description, taken from the zod schemas' metadata, and the request bodies and main answers carry examples
 * that the service itself would accept (or could have sent).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod/mini';
import { namedSchemas, openApiDocument } from '../../functions/http/openapi.ts';
import { OPERATIONS } from '../../functions/http/operations.ts';
import { componentErrors } from '../support/contract.ts';

type Json = Record<string, any>;
const schemas = (openApiDocument('http://localhost/v1') as Json).components.schemas as Record<string, Json>;

const zodOf = new Map(namedSchemas());
const nameOf = (schema: z.core.$ZodType) => namedSchemas().find(([, s]) => s === schema)![0];
/** The components that must carry examples: every operation's request body, and the answers clients read most. */
const EXAMPLED = [...new Set([...OPERATIONS.flatMap((o) => (o.body ? [nameOf(o.body)] : [])), 'Order', 'CreationResponse', 'Quote', 'Balance'])];

/** Every property of every `properties` map below `node`, nested objects and array items included, by its path. */
function properties(node: unknown, path: string, out: [string, Json][] = []): [string, Json][] {
  if (!node || typeof node !== 'object') return out;
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'examples') continue;
    if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value))
      for (const [name, property] of Object.entries(value as Record<string, Json>)) out.push([`${path}.${name}`, property]);
    properties(value, key === 'properties' ? path : `${path}/${key}`, out);
  }
  return out;
}

describe('the OpenAPI document describes its schemas', () => {
  it('gives every component schema a description', () => {
    const bare = Object.keys(schemas).filter((name) => !schemas[name]!.description);
    assert.deepEqual(bare, [], `${Object.keys(schemas).length - bare.length}/${Object.keys(schemas).length} described`);
  });

  it('describes at least 95% of the properties, nested ones included', () => {
    const all = Object.entries(schemas).flatMap(([name, schema]) => properties(schema, name));
    const bare = all.filter(([, p]) => !p.description).map(([path]) => path);
    const share = (all.length - bare.length) / all.length;
    assert.ok(all.length > 150, `${all.length} properties found`);
    assert.ok(share >= 0.95, `${all.length - bare.length}/${all.length} described; not: ${bare.join(', ')}`);
  });

  it('gives every request body and the main answers examples, and every example is one its own schema accepts', () => {
    for (const name of EXAMPLED) assert.ok(Array.isArray(schemas[name]!.examples) && schemas[name]!.examples.length > 0, `${name} has examples`);
    for (const [name, component] of Object.entries(schemas)) {
      for (const example of (component.examples ?? []) as unknown[]) {
        const parsed = z.safeParse(zodOf.get(name)!, example);
        assert.ok(
          parsed.success,
          `${name} example ${JSON.stringify(example)}: ${parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
        // Closed: a misspelt field, which zod's open answer schemas would drop, fails here.
        assert.equal(componentErrors(name, example), undefined, `${name} example ${JSON.stringify(example)}`);
      }
    }
  });
});
