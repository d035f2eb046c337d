/**
 * Checks an answer of the service against the OpenAPI document it serves: the route's operation must list the status,
 * and the body must validate (with Ajv, JSON Schema 2020-12) against the schema listed there. An error answer must be
 * the error envelope whatever the route.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { API_PREFIX, ROUTES } from '../../functions/http/routes.ts';

type Json = Record<string, any>;
const doc = openApiDocument('http://localhost/v1') as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'openapi', components: doc.components });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
const validatorOf = (schema: Json) => {
  const key = JSON.stringify(schema);
  if (!validators.has(key)) {
    // Component references point into the document registered as `openapi`.
    const fixed = JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/'));
    validators.set(key, ajv.compile(fixed));
  }
  return validators.get(key)!;
};

function operationOf(method: string, path: string): Json | undefined {
  const relative = path.split('?')[0]!.replace(API_PREFIX, '');
  const route = ROUTES.find((r) => r.method === method.toUpperCase() && new RegExp(`^${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\w+\\\}/g, '[^/]+')}$`).test(relative));
  return route ? doc.paths[route.path][route.method.toLowerCase()] : undefined;
}

/** Throws when the answer is not what the document promises. */
export function checkAgainstContract(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
  const op = operationOf(method, path);
  const where = `${method} ${path} -> ${status}`;
  if (status >= 400) {
    const ok = validatorOf({ $ref: '#/components/schemas/Error' });
    if (!ok(body)) throw new Error(`${where}: not the error envelope: ${ajv.errorsText(ok.errors)}`);
  }
  if (!op) {
    if (status < 400) throw new Error(`${where}: no operation in the OpenAPI document`);
    return;
  }
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${where}: status not in the OpenAPI document (${Object.keys(op.responses).join(', ')})`);
  const schema = response.content?.['application/json']?.schema;
  if (schema && contentType?.startsWith('application/json')) {
    const ok = validatorOf(schema);
    if (!ok(body)) throw new Error(`${where}: body does not match the OpenAPI document: ${ajv.errorsText(ok.errors)}`);
  }
}
