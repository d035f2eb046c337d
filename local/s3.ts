/**
 * The local S3 store (s3rver), persisted under the data folder. It checks no signatures: link security never relies on
 * it. It does check grants: a request made as a function (named by `nameCallers`) is evaluated against that function's
 * IAM statements, the very ones CDK deploys (lib/access.ts, bucketStatements), conditions included, so a missing grant
 * fails here as it would on AWS (403 AccessDenied), and so does a read of a missing key by a function no statement
 * allows s3:ListBucket in that read's context (403, not 404). Requests made as no function (a client's presigned URL,
 * the stack's own housekeeping, a test) pass as before.
 */
import { mkdirSync } from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import S3rver, { type S3rverContext } from 's3rver';
import { invocation } from './invocations.ts';

/**
 * An Allow statement on the bucket as IAM reads it (lib/access.ts builds them; local/ may not import lib/, its peer):
 * `Resource` is '' for the bucket itself, or a key pattern of its objects.
 */
export interface BucketStatement {
  Action: readonly string[];
  Resource: string;
  Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
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

/** The query parameters of a listing that S3 puts in the request context, by condition key. */
const LIST_CONTEXT: Record<string, string> = { prefix: 's3:prefix', delimiter: 's3:delimiter', 'max-keys': 's3:max-keys' };

interface S3Request {
  action: string;
  /** The object's key; none for a request on the bucket. */
  key?: string;
  /** The condition keys the request carries, as S3 fills IAM's request context. */
  context: Record<string, string>;
}

/** The IAM action of a path-style request, with its key and the condition keys it carries. */
function requestOf(method: string, path: string, query: Record<string, unknown>): S3Request {
  const key = path.split('/').slice(2).map(decodeURIComponent).join('/');
  if (key) {
    const action = { GET: 'GetObject', HEAD: 'GetObject', PUT: 'PutObject', POST: 'PutObject', DELETE: 'DeleteObject' }[method] ?? method;
    return { action: `s3:${action}`, key, context: {} };
  }
  if (method === 'GET' || method === 'HEAD') {
    const context = Object.fromEntries(Object.entries(LIST_CONTEXT).flatMap(([p, k]) => (typeof query[p] === 'string' ? [[k, query[p]]] : [])));
    return { action: 's3:ListBucket', context };
  }
  return { action: method === 'POST' && 'delete' in query ? 's3:DeleteObject' : `s3:${method} on the bucket`, context: {} };
}

/** IAM's string match with its wildcards: `*` any run of characters, `?` any one. */
const like = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
    's',
  ).test(value);

const OPERATORS: Record<string, (expected: string, actual: string) => boolean> = {
  StringEquals: (e, a) => e === a,
  StringLike: like,
};

/**
 * IAM's condition block: every operator and every key in it must hold; a key holds when the request's value matches
 * any of the listed ones. A key the request does not carry fails the condition, unless the operator ends in IfExists.
 * Operators other than these throw: a grant is never taken for allowed on a guess.
 */
function conditionsHold(condition: BucketStatement['Condition'], context: Record<string, string>): boolean {
  return Object.entries(condition ?? {}).every(([operator, keys]) => {
    const test = OPERATORS[operator.replace(/IfExists$/, '')];
    if (!test) throw new Error(`local/s3.ts does not evaluate the IAM condition operator ${operator}`);
    return Object.entries(keys).every(([key, expected]) => {
      const actual = context[key];
      if (actual === undefined) return operator.endsWith('IfExists');
      return [expected].flat().some((e) => test(e, actual));
    });
  });
}

const allows = (statements: readonly BucketStatement[] | undefined, r: S3Request) =>
  !!statements?.some(
    (s) =>
      s.Action.includes(r.action) &&
      (r.key === undefined ? s.Resource === '' : s.Resource !== '' && like(s.Resource, r.key)) &&
      conditionsHold(s.Condition, r.context),
  );

function accessDenied(ctx: S3rverContext): void {
  ctx.status = 403;
  ctx.type = 'application/xml';
  ctx.set('x-amz-error-code', 'AccessDenied');
  ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
}

export async function startS3(opts: { directory: string; bucket: string; grants: (fn: string) => readonly BucketStatement[] | undefined }) {
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
    const statements = opts.grants(fn);
    const request = requestOf(ctx.method, ctx.path, ctx.query);
    if (!allows(statements, request)) return accessDenied(ctx);
    try {
      await next();
    } catch (err) {
      // S3 answers a missing key 404 only to a caller allowed s3:ListBucket on the bucket, in the context of this read:
      // the read's own, which has no s3:prefix.
      if ((err as { code?: string }).code === 'NoSuchKey' && !allows(statements, { action: 's3:ListBucket', context: request.context })) {
        return accessDenied(ctx);
      }
      throw err;
    }
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => server.close() };
}
