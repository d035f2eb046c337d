/**
 * The JavaScript client beyond Node (issue 40): its module imports nothing of Node's, esbuild bundles it for the
 * browser platform with no Node built-in allowed, and the bundle, run in a context with no process, Buffer or require
 * (node:vm given fetch, crypto, TextEncoder/TextDecoder, URL, Headers, AbortSignal, setTimeout), verifies a webhook
 * and calls the local stack. Every call gives its raw Response and request id (`withResponse()`), sends a User-Agent
 * naming the client and version, and goes through an injected fetch with default headers and a logging hook.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runInContext, createContext } from 'node:vm';
import { build } from 'esbuild';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ApiPromise, USER_AGENT, VERSION, VideoClient, type LogDetails } from '../../clients/js/src/index.ts';
import { newWebhookSecret } from '../../functions/core/webhook-signature.ts';
import { ROOT } from '../../lib/paths.ts';
import { closeAtEnd } from '../support/receiver.ts';
import { useStack } from '../support/stack.ts';

const t = useStack({}, { viaPrism: true });
const CLIENT = join(ROOT, 'clients', 'js', 'src', 'index.ts');

describe('the JavaScript client, beyond Node', () => {
  it('imports nothing of Node’s (no node: module, Buffer, process or require)', () => {
    const code = readFileSync(CLIENT, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    assert.deepEqual(code.match(/from ['"]node:|\bBuffer\b|\bprocess\.|\brequire\(/g), null);
  });

  it('bundles for the browser, and the bundle verifies a webhook and calls the service where only web APIs exist', async () => {
    const bundled = await build({
      entryPoints: [CLIENT],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'VideoServiceClient',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    assert.deepEqual(bundled.errors, []);
    const code = bundled.outputFiles[0]!.text;
    const { apiKey } = await t.user({ balance: 700 });
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'webhook.test', webhook_id: 'wh_1', created_at: new Date().toISOString(), livemode: true });
    const headers = {
      'webhook-id': 'webhook.test:1',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': new StandardWebhook(secret).sign('webhook.test:1', new Date(), body),
    };
    const context = createContext({
      fetch,
      crypto: globalThis.crypto,
      TextEncoder,
      TextDecoder,
      URL,
      URLSearchParams,
      Headers,
      AbortSignal,
      AbortController,
      DOMException,
      setTimeout,
      clearTimeout,
      input: { baseUrl: t.baseUrl, apiKey, secret, body, headers },
    });
    runInContext(code, context);
    const out = (await runInContext(
      `(async () => {
        const { VideoClient, unwrap } = VideoServiceClient;
        const absent = [typeof process, typeof Buffer, typeof require];
        const event = await unwrap(new TextEncoder().encode(input.body), input.headers, input.secret);
        const forged = await unwrap(input.body + ' ', input.headers, input.secret).catch((e) => e.name);
        const client = new VideoClient({ baseUrl: input.baseUrl, apiKey: input.apiKey });
        const { data, requestId } = await client.getBalance().withResponse();
        const missing = await client.getVideo('vid_01m8000000000000000000000a').catch((e) => e.name);
        return JSON.stringify({ absent, type: event.type, known: event.known, forged, balance: data.balance, requestId, missing });
      })()`,
      context,
    )) as string;
    const result = JSON.parse(out);
    assert.deepEqual(result.absent, ['undefined', 'undefined', 'undefined']);
    assert.deepEqual([result.type, result.known, result.forged], ['webhook.test', true, 'WebhookVerificationError']);
    assert.deepEqual([result.balance, result.missing], [700, 'NotFoundError']);
    assert.match(result.requestId, /./);
  });

  it('gives the raw Response and the request id of a call (withResponse), and the data as before', async () => {
    const { apiKey } = await t.user({ balance: 500 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const pending = client.getBalance();
    assert.ok(pending instanceof ApiPromise && pending instanceof Promise);
    const { data, response, requestId } = await pending.withResponse();
    assert.equal(data.balance, 500);
    assert.deepEqual([response.status, response.headers.get('content-type')], [200, 'application/json']);
    assert.equal(requestId, response.headers.get('x-request-id'));
    assert.match(requestId!, /./);
    assert.equal((await pending).balance, 500, 'the same promise gives the data');
    const created = await client.createVideo({ topic: 'Raw tea', director_mode: true }, { idempotencyKey: 'raw-1' }).withResponse();
    assert.deepEqual([created.response.status, created.data.replayed, created.data.cost], [201, false, 100]);
    const replayed = await client.createVideo({ topic: 'Raw tea', director_mode: true }, { idempotencyKey: 'raw-1' }).withResponse();
    assert.deepEqual([replayed.data.id, replayed.data.replayed, replayed.response.headers.get('idempotent-replayed')], [created.data.id, true, 'true']);
    assert.equal(await client.getBalance().then((b) => b.balance), 400);
  });

  it('sends a User-Agent naming the client and its version, through an injected fetch, with default headers and a log', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const server = closeAtEnd(
      createServer((req, res) => {
        seen.push(req.headers);
        if (seen.length === 1)
          return res
            .writeHead(503, { 'retry-after': '0', 'content-type': 'application/json', 'x-request-id': 'req_1' })
            .end('{"error":{"code":"service_unavailable","message":"x"}}');
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_2' }).end('{"balance":4,"trial_videos_left":0}');
      }),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    const fetched: string[] = [];
    const logs: { level: string; message: string; details: LogDetails }[] = [];
    const client = new VideoClient({
      baseUrl: base,
      apiKey: 'vgk_secret_key',
      fetch: (url, init) => {
        fetched.push(`${init.method} ${url}`);
        return fetch(url, init);
      },
      defaultHeaders: { 'x-shop': 'tea-house', 'x-trace': 'default' },
      logger: {
        debug: (message, details) => logs.push({ level: 'debug', message, details }),
        warn: (message, details) => logs.push({ level: 'warn', message, details }),
      },
    });
    assert.equal((await client.getBalance({ headers: { 'x-trace': 'call-1' } })).balance, 4);
    const { version } = JSON.parse(readFileSync(join(ROOT, 'clients', 'js', 'package.json'), 'utf8')) as { version: string };
    assert.equal(VERSION, version);
    assert.equal(USER_AGENT, `video-service-client-js/${version}`);
    for (const h of seen) {
      assert.equal(h['user-agent'], USER_AGENT);
      assert.deepEqual([h['x-shop'], h['x-trace'], h['x-api-key']], ['tea-house', 'call-1', 'vgk_secret_key']);
    }
    assert.deepEqual(fetched, [`GET ${base}/balance`, `GET ${base}/balance`]);
    assert.deepEqual(
      logs.map((l) => `${l.level} ${l.details.attempt} ${l.details.status ?? ''} ${l.details.requestId ?? ''}`.trim()),
      ['debug 1', 'debug 1 503 req_1', 'warn 1', 'debug 2', 'debug 2 200 req_2'],
    );
    assert.doesNotMatch(JSON.stringify(logs), /vgk_secret_key/, 'the key is never logged');
  });
});
