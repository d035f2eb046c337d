/**
 * GET /files/{id}/{file}: the target of result_url and cover_url. No key: the link's signature and expiry are checked
 * (403 when tampered or expired), then the order's age and the file's existence (404 once past retention or missing),
 * then a 302 to a short-lived presigned S3 URL, which serves the file with its content type and range requests
 * (functions/core/downloads.ts).
 */
import { notFound } from '../core/errors.ts';
import { ORDER_ID_RE } from '../core/ids.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.downloadFile)(async (req) => {
  const { id, file: name } = req.pathParameters;
  if (!id || !ORDER_ID_RE.test(id) || !name) throw notFound('file');
  const query = req.event.queryStringParameters ?? {};
  const location = await services().download(id, name, query.expires, query.sig, req.now);
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
});
