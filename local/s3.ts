/**
 * The local S3 store (s3rver), persisted under the data folder. It checks signatures as S3 does, with the AWS SDK's own
 * signer: a presigned URL's (a client's upload or download, with no credentials of its own) and an Authorization
 * header's (the functions' calls). An unknown key is 403 InvalidAccessKeyId; any change to what was signed (the
 * method, the key, the query, a signed header such as an upload's Content-Type or Content-Length, the declared payload
 * hash) is 403 SignatureDoesNotMatch; a presigned URL past its expiry, or a request signed neither way, 403
 * AccessDenied (the bucket is private). It checks grants: a request made as a function (named by `nameCallers`) is evaluated against that function's
 * IAM statements, the very ones CDK deploys (lib/access.ts, bucketStatements), conditions included, so a missing grant
 * fails here as it would on AWS (403 AccessDenied), and so does a read of a missing key by a function no statement
 * allows s3:ListBucket in that read's context (403, not 404). Requests made as no function (a client's presigned URL,
 * the stack's own housekeeping, a test) pass as before.
 */
import { mkdirSync } from 'node:fs';
import type { S3Client } from '@aws-sdk/client-s3';
import { HttpRequest } from '@smithy/core/protocols';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
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

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The key pair s3rver knows, which the local stack gives every function (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

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

/** The IAM actions of a path-style request (a copy's also reads its source), with its key and the condition keys it carries. */
function requestsOf(method: string, path: string, query: Record<string, unknown>, copySource: string): S3Request[] {
  const key = path.split('/').slice(2).map(decodeURIComponent).join('/');
  if (key) {
    const action = { GET: 'GetObject', HEAD: 'GetObject', PUT: 'PutObject', POST: 'PutObject', DELETE: 'DeleteObject' }[method] ?? method;
    // CopyObject: s3:PutObject on the new key and s3:GetObject on the source (`<bucket>/<key>`).
    const source = method === 'PUT' && copySource ? decodeURIComponent(copySource.replace(/^\//, '')).split('/').slice(1).join('/') : '';
    return [{ action: `s3:${action}`, key, context: {} }, ...(source ? [{ action: 's3:GetObject', key: source, context: {} }] : [])];
  }
  if (method === 'GET' || method === 'HEAD') {
    const context = Object.fromEntries(Object.entries(LIST_CONTEXT).flatMap(([p, k]) => (typeof query[p] === 'string' ? [[k, query[p]]] : [])));
    return [{ action: 's3:ListBucket', context }];
  }
  return [{ action: method === 'POST' && 'delete' in query ? 's3:DeleteObject' : `s3:${method} on the bucket`, context: {} }];
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

function refuse(ctx: S3rverContext, code: string, message: string, status = 403): void {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.set('x-amz-error-code', code);
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}
const accessDenied = (ctx: S3rverContext) => refuse(ctx, 'AccessDenied', 'Access Denied');

/** X-Amz-Date's form: 20261127T045528Z. */
const amzDate = (s: string) => new Date(s.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

/** A refusal: S3's error code, its message, and the status when not 403. */
type Refusal = [code: string, message: string, status?: number];
const UNKNOWN_KEY: Refusal = ['InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
const MISMATCH: Refusal = [
  'SignatureDoesNotMatch',
  'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
];

/** The request as it arrived, with these headers only, for the SDK's signer to sign again; and the signer. */
function resigning(
  ctx: S3rverContext,
  credentials: Credentials,
  scope: { region?: string | undefined; service?: string | undefined },
  query: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const [hostname, port] = ctx.get('host').split(':');
  const request = new HttpRequest({
    method: ctx.method,
    protocol: 'http:',
    hostname: hostname ?? '',
    ...(port ? { port: Number(port) } : {}),
    path: ctx.path,
    query: query as Record<string, string | string[]>,
    headers,
  });
  const signer = new SignatureV4({
    credentials,
    region: scope.region ?? '',
    service: scope.service ?? 's3',
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: false,
    applyChecksum: false,
  });
  return { request, signer };
}

/** The signed headers' values as sent (a header sent empty or not at all is left out, as the client's signer does). */
const sentHeaders = (ctx: S3rverContext, names: readonly string[]) => Object.fromEntries(names.flatMap((h) => (ctx.get(h) === '' ? [] : [[h, ctx.get(h)]])));

/** How far a header-signed request's time may be from the store's clock, as S3 allows. */
const MAX_SKEW_MS = 15 * 60_000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/**
 * A request signed in its Authorization header checked as S3 checks it: the header well formed, its key known, its
 * time within 15 minutes of the clock, and its signature the one the SDK's signer computes from the request as it
 * arrived (the method, the path, the query and the headers it names as signed, with the values sent). The payload's
 * hash is the one `x-amz-content-sha256` declares (a hex digest, UNSIGNED-PAYLOAD or a STREAMING- kind), which the
 * signature binds; the body is s3rver's to read, so neither the digest against the bytes nor a streamed upload's chunk
 * signatures are checked here (S3 checks both). Undefined when it holds; otherwise the refusal.
 */
async function headerRefusal(ctx: S3rverContext, credentials: Credentials, now: Date): Promise<Refusal | undefined> {
  const m = AUTHORIZATION.exec(ctx.get('authorization'));
  if (!m) return ['AuthorizationHeaderMalformed', 'The authorization header is malformed.', 400];
  const [, accessKeyId, , region, service, signedList, given] = m as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) return UNKNOWN_KEY;
  const amz = ctx.get('x-amz-date');
  const signedAt = amz ? amzDate(amz) : new Date(ctx.get('date'));
  if (Number.isNaN(signedAt.getTime())) return ['AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header'];
  if (Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS)
    return ['RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.'];
  if (!ctx.get('x-amz-content-sha256')) return ['InvalidRequest', 'Missing required header for this request: x-amz-content-sha256', 400];
  const signed = signedList!.split(';');
  // The payload's hash and the time always reach the signer, which puts them in the signature only when signed.
  const headers = { ...sentHeaders(ctx, signed), 'x-amz-content-sha256': ctx.get('x-amz-content-sha256') };
  const unsigned = new Set(['x-amz-content-sha256', 'x-amz-date'].filter((h) => !signed.includes(h)));
  const { request, signer } = resigning(ctx, credentials, { region, service }, ctx.query, headers);
  const expected = await signer.sign(request, { signingDate: signedAt, signableHeaders: new Set(signed), unsignableHeaders: unsigned });
  return /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1] === given ? undefined : MISMATCH;
}

/**
 * A presigned (query-string) request checked as S3 checks it: its credential's key known, not expired, and its
 * signature the one the SDK's signer computes from the request as it arrived (the method, the path, the query, and the
 * headers it names as signed, with the values sent): an upload with another Content-Type or Content-Length fails.
 * Undefined when it holds; otherwise the refusal.
 */
async function presignedRefusal(ctx: S3rverContext, credentials: Credentials, now: Date): Promise<Refusal | undefined> {
  const q = ctx.query as Record<string, string>;
  const [accessKeyId, , region, service] = String(q['X-Amz-Credential'] ?? '').split('/');
  if (accessKeyId !== credentials.accessKeyId) return UNKNOWN_KEY;
  const signedAt = amzDate(String(q['X-Amz-Date']));
  const expires = Number(q['X-Amz-Expires']);
  if (Number.isNaN(signedAt.getTime()) || !Number.isInteger(expires))
    return ['AccessDenied', 'Query-string authentication requires X-Amz-Date and X-Amz-Expires'];
  if (now.getTime() > signedAt.getTime() + expires * 1000) return ['AccessDenied', 'Request has expired'];
  const signed = String(q['X-Amz-SignedHeaders'] ?? '')
    .split(';')
    .filter(Boolean);
  const { 'X-Amz-Signature': given, ...query } = q;
  const headers = sentHeaders(ctx, signed);
  // The presigner sets the payload's hash (UNSIGNED-PAYLOAD) as a header, which the signer reads and hoists into the
  // query under the same name.
  if (query['X-Amz-Content-Sha256'] !== undefined) headers['X-Amz-Content-Sha256'] = query['X-Amz-Content-Sha256'];
  const { request, signer } = resigning(ctx, credentials, { ...(region ? { region } : {}), ...(service ? { service } : {}) }, query, headers);
  const expected = await signer.presign(request, { signingDate: signedAt, expiresIn: expires, signableHeaders: new Set(signed) });
  return expected.query?.['X-Amz-Signature'] === given ? undefined : MISMATCH;
}

/**
 * S3's preconditions, which s3rver ignores: a PUT with `If-None-Match: *` (a conditional write) where an object is,
 * a copy whose `x-amz-copy-source-if-match` names another version of its source, a read whose `If-Match` does.
 * Whether one fails (a missing object is s3rver's own answer). Checked before the write, not atomically with it as
 * S3 does: one process's tests do not race a conditional write.
 */
async function unmetPrecondition(ctx: S3rverContext): Promise<boolean> {
  const [bucket, ...key] = ctx.path.split('/').slice(1).map(decodeURIComponent);
  const etagOf = async (b: string | undefined, k: string) =>
    b && k && (await ctx.store.existsObject(b, k)) ? String((await ctx.store.getMetadata(b, k)).etag) : undefined;
  const source = ctx.get('x-amz-copy-source');
  if (ctx.method === 'PUT' && source && ctx.get('x-amz-copy-source-if-match')) {
    const [b, ...k] = decodeURIComponent(source.replace(/^\//, '')).split('/');
    const etag = await etagOf(b, k.join('/'));
    return etag !== undefined && etag !== ctx.get('x-amz-copy-source-if-match');
  }
  if (ctx.method === 'PUT' && ctx.get('if-none-match') === '*') return (await etagOf(bucket, key.join('/'))) !== undefined;
  if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('if-match')) {
    const etag = await etagOf(bucket, key.join('/'));
    return etag !== undefined && etag !== ctx.get('if-match');
  }
  return false;
}

/** Runs the request unless a precondition of it fails: 412 PreconditionFailed, as S3 answers. */
async function whenPreconditionsHold(ctx: S3rverContext, next: () => Promise<void>): Promise<void> {
  if (!(await unmetPrecondition(ctx))) return next();
  refuse(ctx, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', 412);
}

export async function startS3(opts: {
  directory: string;
  bucket: string;
  grants: (fn: string) => readonly BucketStatement[] | undefined;
  /** The one key pair the store knows (s3rver's own by default): the local functions', which sign their requests and URLs. */
  credentials?: Credentials;
}) {
  const credentials = opts.credentials ?? LOCAL_CREDENTIALS;
  mkdirSync(opts.directory, { recursive: true, mode: 0o700 });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: opts.directory,
    silent: true,
    // s3rver's own check knows signature version 2 only: presigned URLs are checked below, with the SDK's signer.
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: opts.bucket }],
  });
  // s3rver is a Koa app: this runs before its own middleware (the array is composed when it starts listening).
  server.middleware.unshift(async (ctx, next) => {
    // Neither presigned nor signed in a header: the bucket is private, as on AWS (no anonymous read or upload).
    if (!('X-Amz-Algorithm' in ctx.query) && !ctx.get('authorization')) return accessDenied(ctx);
    const refusal = await ('X-Amz-Algorithm' in ctx.query ? presignedRefusal : headerRefusal)(ctx, credentials, new Date());
    if (refusal) return refuse(ctx, ...refusal);
    const fn = ctx.get(CALLER_HEADER);
    if (!fn) return whenPreconditionsHold(ctx, next);
    const statements = opts.grants(fn);
    const [request, ...others] = requestsOf(ctx.method, ctx.path, ctx.query, ctx.get('x-amz-copy-source'));
    if (!request || ![request, ...others].every((r) => allows(statements, r))) return accessDenied(ctx);
    try {
      await whenPreconditionsHold(ctx, next);
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
