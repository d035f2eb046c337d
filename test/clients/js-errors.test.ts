/**
 * The JavaScript client's errors are always its own (issue 40), against real servers: a refused port is
 * ApiConnectionError, a server that never answers ApiConnectionTimeoutError, the caller's abort ApiUserAbortError
 * (during an attempt and during a wait), giving up before a long Retry-After or at the deadline throws the last
 * ApiError with its code, retryAfter and request id and why it gave up, Retry-After waits get 0-10% added, a wait's
 * timeout carries the last order, and a 403 of the local stack is PermissionDeniedError, still a NotFoundError.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import {
  ApiConnectionError,
  ApiConnectionTimeoutError,
  ApiError,
  ApiUserAbortError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  VideoClient,
  VideoServiceError,
  WaitTimeoutError,
} from '../../clients/js/src/index.ts';
import { closeAtEnd } from '../support/receiver.ts';
import { useStack } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' }, { viaPrism: true });

async function serve(handler: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<string> {
  let n = 0;
  const server: Server = closeAtEnd(createServer((req, res) => handler(req, res, ++n)));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}
/** A loopback port nothing listens on: connections to it are refused. */
async function refusedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return `http://127.0.0.1:${port}/v1`;
}
const envelope = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
  res
    .writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${code}`, ...headers })
    .end(JSON.stringify({ error: { code, message: code } }));
const failure = <T>(p: Promise<T>) =>
  p.then(
    (v) => assert.fail(`expected an error, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );

describe('the JavaScript client, its errors', () => {
  it('a refused connection is ApiConnectionError (retried where safe, then flagged), not fetch’s TypeError', async () => {
    const base = await refusedPort();
    const client = new VideoClient({ baseUrl: base, apiKey: 'vgk_x', maxRetries: 2, baseDelayMs: 5 });
    const read = await failure(client.getBalance());
    assert.ok(read instanceof ApiConnectionError && !(read instanceof ApiConnectionTimeoutError), String(read));
    assert.ok(read instanceof VideoServiceError);
    assert.deepEqual([read.method, read.url, read.attempts, read.gaveUp], ['GET', `${base}/balance`, 3, 'retries_exhausted']);
    assert.match(read.message, /connection failed \(ECONNREFUSED\)/);
    assert.ok(read.cause instanceof TypeError, 'fetch’s own error is its cause');
    // A creation (with its Idempotency-Key) is retried too; a review is not repeated.
    assert.equal(((await failure(client.createQuick('Tea'))) as ApiConnectionError).attempts, 3);
    const review = await failure(client.review('vid_x', { action: 'approve' }));
    assert.ok(review instanceof ApiConnectionError);
    assert.deepEqual([review.attempts, review.gaveUp], [1, undefined]);
  });

  it('a server that never answers is ApiConnectionTimeoutError, per attempt and at the deadline', async () => {
    const hanging = await serve(() => undefined);
    const started = Date.now();
    const err = await failure(new VideoClient({ baseUrl: hanging, apiKey: 'vgk_x', timeoutMs: 200, maxRetries: 1, baseDelayMs: 5 }).getBalance());
    assert.ok(err instanceof ApiConnectionTimeoutError && err instanceof ApiConnectionError, String(err));
    assert.deepEqual([err.attempts, err.gaveUp], [2, 'retries_exhausted']);
    assert.match(err.message, /no answer within 200 ms/);
    assert.ok(Date.now() - started >= 400);
    // The call's deadline cuts the attempt short.
    const cut = await failure(new VideoClient({ baseUrl: hanging, apiKey: 'vgk_x', timeoutMs: 10_000, deadlineMs: 300, maxRetries: 0 }).getBalance());
    assert.ok(cut instanceof ApiConnectionTimeoutError, String(cut));
  });

  it('the caller’s abort is ApiUserAbortError, during an attempt or during a wait, with the reason as its cause', async () => {
    const hanging = await serve(() => undefined);
    const reason = new Error('the user left');
    const during = await failure(new VideoClient({ baseUrl: hanging, apiKey: 'vgk_x' }).getBalance({ signal: AbortSignal.timeout(100) }));
    assert.ok(during instanceof ApiUserAbortError, String(during));
    const busy = await serve((_req, res) => envelope(res, 503, 'service_unavailable', { 'retry-after': '30' }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    const waiting = await failure(new VideoClient({ baseUrl: busy, apiKey: 'vgk_x' }).getBalance({ signal: controller.signal }));
    assert.ok(waiting instanceof ApiUserAbortError, String(waiting));
    assert.equal(waiting.cause, reason);
    assert.match(waiting.message, /aborted: the user left/);
  });

  it('gives up before a Retry-After past maxRetryAfterSeconds, or past the deadline, with the last ApiError flagged', async () => {
    const far = await serve((_req, res) => envelope(res, 429, 'rate_limited', { 'retry-after': '3600' }));
    const long = await failure(new VideoClient({ baseUrl: far, apiKey: 'vgk_x', maxRetryAfterSeconds: 10 }).getBalance());
    assert.ok(long instanceof RateLimitError, String(long));
    assert.deepEqual(
      [long.code, long.retryAfter, long.requestId, long.gaveUp, long.attempts],
      ['rate_limited', 3600, 'req_rate_limited', 'retry_after_too_long', 1],
    );
    const busy = await serve((_req, res) => envelope(res, 503, 'service_unavailable', { 'retry-after': '2' }));
    const late = await failure(new VideoClient({ baseUrl: busy, apiKey: 'vgk_x', deadlineMs: 3000, maxRetries: 10 }).getBalance());
    assert.ok(late instanceof ApiError && !(late instanceof RateLimitError), String(late));
    assert.deepEqual(
      [late.status, late.code, late.retryAfter, late.requestId, late.gaveUp, late.attempts],
      [503, 'service_unavailable', 2, 'req_service_unavailable', 'deadline', 2],
    );
    // A 404 is not retried: no flag.
    const missing = await serve((_req, res) => envelope(res, 404, 'not_found'));
    const nf = await failure(new VideoClient({ baseUrl: missing, apiKey: 'vgk_x' }).getVideo('vid_x'));
    assert.ok(nf instanceof NotFoundError && nf.gaveUp === undefined);
  });

  it('adds 0-10% to each Retry-After wait', async () => {
    const flaky = await serve((_req, res, n) =>
      n <= 3
        ? envelope(res, 503, 'service_unavailable', { 'retry-after': '1' })
        : res.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":3,"trial_videos_left":0}'),
    );
    const waits: number[] = [];
    const client = new VideoClient({ baseUrl: flaky, apiKey: 'vgk_x', onRetry: (r) => waits.push(r.delayMs) });
    assert.equal((await client.getBalance()).balance, 3);
    assert.equal(waits.length, 3);
    for (const w of waits) assert.ok(w >= 1000 && w <= 1100, `${w} ms`);
    assert.ok(
      waits.some((w) => w > 1000),
      `jitter added: ${waits}`,
    );
  });

  it('waitForVideo’s timeout is WaitTimeoutError carrying the order as last read', async () => {
    const order = { id: 'vid_01m8000000000000000000000a', status: 'running', progress: 40 };
    const running = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(order)));
    const err = await failure(new VideoClient({ baseUrl: running, apiKey: 'vgk_x' }).waitForVideo(order.id, { timeout: 300, interval: 50 }));
    assert.ok(err instanceof WaitTimeoutError, String(err));
    assert.deepEqual([err.order, err.timeoutMs], [order, 300]);
    assert.match(err.message, /still running after 300 ms/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    assert.ok(
      (await failure(new VideoClient({ baseUrl: running, apiKey: 'vgk_x' }).waitForVideo(order.id, { interval: 60_000, signal: controller.signal }))) instanceof
        ApiUserAbortError,
    );
  });

  it('a 403 of the local stack (another key’s webhook) is PermissionDeniedError, a NotFoundError too', async () => {
    const owner = new VideoClient({ baseUrl: t.baseUrl, apiKey: (await t.user({ balance: 0 })).apiKey });
    const other = new VideoClient({ baseUrl: t.baseUrl, apiKey: (await t.user({ balance: 0 })).apiKey });
    const hook = await owner.createWebhook('http://127.0.0.1:9/hook');
    const err = await failure(other.deleteWebhook(hook.id));
    assert.ok(err instanceof PermissionDeniedError && err instanceof NotFoundError, String(err));
    assert.deepEqual([err.name, err.status, err.code], ['PermissionDeniedError', 403, 'forbidden']);
    assert.match(err.requestId ?? '', /./);
    const missing = await failure(other.getVideo('vid_01m8000000000000000000000a'));
    assert.ok(missing instanceof NotFoundError && !(missing instanceof PermissionDeniedError));
  });
});
