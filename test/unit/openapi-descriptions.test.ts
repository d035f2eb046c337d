/**
 * The served document explains itself to a client developer: every component schema and (nearly) every property
 * carries a description, taken from the zod schemas' metadata, and the request bodies and main answers carry examples
 * that the service itself would accept (or could have sent).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as z from 'zod/mini';
import { balanceResponse } from '../../functions/contract/balance.ts';
import { createVideoRequest, creationResponse, orderRecord, quickVideoBody, quoteRequest, quoteResponse } from '../../functions/contract/orders.ts';
import { reviewApprove, reviewBody, reviewEdit, reviewRegen } from '../../functions/contract/review.ts';
import { createWebhookBody, resendBody, rotateWebhookBody } from '../../functions/contract/webhooks.ts';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { componentErrors } from '../support/contract.ts';

type Json = Record<string, any>;
const schemas = (openApiDocument('http://localhost/v1') as Json).components.schemas as Record<string, Json>;

/** The zod schema of each component that must carry examples: the request bodies, and the answers clients read most. */
const EXAMPLED: Record<string, z.core.$ZodType> = {
  QuickVideoRequest: quickVideoBody,
  CreateVideoRequest: createVideoRequest,
  QuoteRequest: quoteRequest,
  ReviewRequest: reviewBody,
  ReviewApprove: reviewApprove,
  ReviewEdit: reviewEdit,
  ReviewRegen: reviewRegen,
  CreateWebhookRequest: createWebhookBody,
  RotateWebhookRequest: rotateWebhookBody,
  ResendRequest: resendBody,
  Order: orderRecord,
  CreationResponse: creationResponse,
  Quote: quoteResponse,
  Balance: balanceResponse,
};

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

  it('gives every request body and the main answers examples that their own schemas accept', () => {
    for (const [name, schema] of Object.entries(EXAMPLED)) {
      const examples = schemas[name]!.examples as unknown[] | undefined;
      assert.ok(Array.isArray(examples) && examples.length > 0, `${name} has examples`);
      for (const example of examples) {
        const parsed = z.safeParse(schema, example);
        assert.ok(
          parsed.success,
          `${name} example ${JSON.stringify(example)}: ${parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
        // Closed: a misspelt field, which zod's open answer schemas would drop, fails here.
        assert.equal(componentErrors(name, example), undefined, `${name} example ${JSON.stringify(example)}`);
      }
    }
    const stray = Object.keys(schemas).filter((name) => schemas[name]!.examples && !EXAMPLED[name]);
    assert.deepEqual(stray, [], 'components with examples are checked here too');
  });
});
