/**
 * The local S3 store (s3rver), persisted under the data folder. It checks no signatures: link security never relies on
 * it. It does check grants: a request made as a function (named by `nameCallers`) gets what S3 would give that
 * function's role, so a missing grant fails here as it would on AWS (403 AccessDenied), and so does a read of a missing
 * key by a function that may not list it (403, not 404). Requests made as no function (a client's presigned URL, the
 * stack's own housekeeping, a test) pass as before.
 */
import { mkdirSync } from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import S3rver, { type S3rverContext } from 's3rver';
import { ORDER_FILES_PREFIX } from '../functions/adapters/files.ts';
import { invocation } from './invocations.ts';

/** A function's grants on the bucket, as lib/access.ts names them (local/ may not import lib/, its peer). */
export interface BucketGrants {
  bucket?: readonly string[];
  listOrderFiles?: boolean;
}

/** Names the function a request runs as; local only: on AWS the role that signs says it. */
const CALLER_HEADER = 'x-local-function';

/** Adds the calling function's name to each request `client` sends (not to the URLs it presigns: a client fetches those). */
export function nameCallers(client: S3Client): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const fn = invocation.getStore();
      const request = args.request as { headers?: Record<string, string> };
      if (fn && request.headers) request.headers[CALLER_HEADER] = fn;
      return next(args);
    },
    // After signing, which a presigned URL stops at.
    { step: 'deserialize', name: 'localCaller', override: true },
  );
}

/** The IAM action of a path-style request, with the key or the listed prefix it concerns. */
function requestOf(method: string, path: string, query: Record<string, unknown>): { action: string; key?: string; prefix?: string } {
  const key = path.split('/').slice(2).map(decodeURIComponent).join('/');
  if (!key) {
    if (method === 'GET' || method === 'HEAD') return { action: 'ListBucket', prefix: typeof query.prefix === 'string' ? query.prefix : '' };
    return { action: method === 'POST' && 'delete' in query ? 'DeleteObject' : `${method} on the bucket` };
  }
  const action = { GET: 'GetObject', HEAD: 'GetObject', PUT: 'PutObject', POST: 'PutObject', DELETE: 'DeleteObject' }[method] ?? method;
  return { action, key };
}

/** As the CDK statements: object actions on orders/*, ListBucket with s3:prefix like orders/*. */
const mayList = (g: BucketGrants | undefined, prefix: string | undefined) => !!g?.listOrderFiles && !!prefix?.startsWith(ORDER_FILES_PREFIX);
const mayDo = (g: BucketGrants | undefined, r: ReturnType<typeof requestOf>) =>
  r.action === 'ListBucket' ? mayList(g, r.prefix) : !!r.key?.startsWith(ORDER_FILES_PREFIX) && !!g?.bucket?.includes(r.action);

function accessDenied(ctx: S3rverContext): void {
  ctx.status = 403;
  ctx.type = 'application/xml';
  ctx.set('x-amz-error-code', 'AccessDenied');
  ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
}

export async function startS3(opts: { directory: string; bucket: string; grants: (fn: string) => BucketGrants | undefined }) {
  mkdirSync(opts.directory, { recursive: true, mode: 0o700 });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: opts.directory,
    silent: true,
    // Any credentials will do on one machine; download links are secured by the API's own signature, not S3's.
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: opts.bucket }],
  });
  // s3rver is a Koa app: this runs before its own middleware (the array is composed when it starts listening).
  server.middleware.unshift(async (ctx, next) => {
    const fn = ctx.get(CALLER_HEADER);
    if (!fn) return next();
    const grants = opts.grants(fn);
    const request = requestOf(ctx.method, ctx.path, ctx.query);
    if (!mayDo(grants, request)) return accessDenied(ctx);
    try {
      await next();
    } catch (err) {
      // That S3 takes the key for s3:prefix here is an assumption (docs/architecture.md, Missing files).
      if ((err as { code?: string }).code === 'NoSuchKey' && !mayList(grants, request.key)) return accessDenied(ctx);
      throw err;
    }
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() };
}
