/**
 * GET /files/{id}/{file}: the target of result_url and cover_url. No key: the link's signature and expiry are checked
 * (403 when tampered or expired), then the file's existence (404 once retention deleted it), then a 302 to a
 * short-lived presigned S3 URL, which serves the file with its content type and range requests.
 */
import { notFound } from '../core/errors.ts';
import { ORDER_ID_RE } from '../core/ids.ts';
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';

const PRESIGNED_SECONDS = 300;

export const handler = httpRoute({ auth: false }, async (req) => {
  const { id, file: name } = req.pathParameters;
  if (!id || !ORDER_ID_RE.test(id) || !name) throw notFound('file');
  const { links, files } = services();
  const query = req.event.queryStringParameters ?? {};
  const file = await links.verify(id, name, query.expires, query.sig, req.now);
  if (!(await files.exists(id, file))) throw notFound('file (order files are kept 30 days)');
  return { status: 302, headers: { location: await files.presign(id, file, PRESIGNED_SECONDS), 'cache-control': 'no-store' } };
});
