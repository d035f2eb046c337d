/**
 * The operations (functions/http/operations.ts) are the one definition of each route: the route table, the handlers'
 * options and the OpenAPI document derive from them, and a handler's reply is typed by the answers its operation
 * declares (that last check runs the compiler, so it lives in the integration tier: test/integration/typed-reply.test.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { OPERATIONS } from '../../functions/http/operations.ts';
import { ROUTES } from '../../functions/http/routes.ts';
import { ROOT } from '../../lib/paths.ts';

const HTTP = join(ROOT, 'functions', 'http');
const doc = openApiDocument('http://localhost/v1') as { paths: Record<string, Record<string, { operationId: string; description: string }>> };

describe('the operations', () => {
  it('are the route table and the document’s paths, one operation id each, every one described', () => {
    assert.deepEqual(
      ROUTES.map((r) => `${r.method} ${r.path} ${r.handler}`),
      OPERATIONS.map(({ route: r }) => `${r.method} ${r.path} ${r.handler}`),
    );
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const),
    );
    assert.deepEqual(
      documented.map(([key, op]) => `${key} ${op.operationId}`).sort(),
      OPERATIONS.map((o) => `${o.route.method} ${o.route.path} ${o.id}`).sort(),
    );
    assert.equal(new Set(OPERATIONS.map((o) => o.id)).size, OPERATIONS.length, 'operation ids are unique');
    for (const o of OPERATIONS) {
      assert.ok(o.summary.length > 5 && o.description.length > 20, `${o.id} is described`);
      assert.ok(Object.keys(o.answers).length > 0, `${o.id} declares its answers`);
      for (const [status, a] of Object.entries(o.answers)) assert.ok(a.description, `${o.id} ${status} is described`);
      // Every keyed operation shows how to call it with curl and both clients.
      if (o.route.auth) assert.ok(o.examples?.curl && o.examples.js && o.examples.python, `${o.id} has code examples`);
      assert.ok(existsSync(join(HTTP, `${o.route.handler}.ts`)), `${o.id}: functions/http/${o.route.handler}.ts`);
    }
  });

  it('give each handler its chain: the handler serves its operation, or one with the same handler and options', () => {
    for (const o of OPERATIONS) {
      const source = readFileSync(join(HTTP, `${o.route.handler}.ts`), 'utf8');
      const served = [...source.matchAll(/httpRoute\(operations\.(\w+)\)/g)].map((m) => OPERATIONS.find((x) => x.id === m[1]));
      assert.equal(served.length, 1, `${o.route.handler}.ts serves one operation`);
      const chain = ({ route: { method, auth, handler }, body, query, countPost }: (typeof OPERATIONS)[number]) => ({
        method,
        auth,
        handler,
        body,
        query,
        countPost,
      });
      assert.deepEqual(chain(served[0]!), chain(o), `${o.id}: served by ${o.route.handler}.ts with its options`);
    }
  });
});
