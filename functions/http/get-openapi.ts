/** GET /openapi.json: the OpenAPI 3.1 document of the contract, for this deployment's base address. No key. */
import { services } from '../app/services.ts';
import { openApiDocument } from './openapi.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.getOpenApi)(async () => ({
  status: 200,
  body: openApiDocument(services().config.publicBaseUrl),
  headers: { 'cache-control': 'public, max-age=300' },
}));
