/**
 * GET /docs: the interactive reference, Swagger UI rendering /openapi.json, with its two assets (GET /docs/{asset})
 * served from the swagger-ui-dist package beside the code: nothing comes from a CDN. No key.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { notFound } from '../core/errors.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

const ASSETS: Record<string, string> = { 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8', 'swagger-ui.css': 'text/css; charset=utf-8' };
const read = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`), 'utf8');
const cache = new Map<string, string>();

const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Video generation service: API v1</title>
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: '${base}/openapi.json', dom_id: '#reference', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 });
</script>
</body>
</html>
`;

export const handler = httpRoute(operations.getDocs)(async (req) => {
  // The base path as the client reached it (/v1, or a custom domain's mapping).
  const base = req.event.rawPath.replace(/\/docs(\/[^/]*)?$/, '');
  const asset = req.pathParameters.asset;
  if (asset === undefined)
    return { status: 200, body: page(base), raw: true, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=300' } };
  const type = ASSETS[asset];
  if (!type) throw notFound('docs asset');
  if (!cache.has(asset)) cache.set(asset, read(asset));
  return { status: 200, body: cache.get(asset), raw: true, headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } };
});
