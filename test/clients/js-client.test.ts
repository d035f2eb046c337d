/**
 * The JavaScript client against the local service: it waits out a 429 for the seconds of Retry-After, a creation
 * whose first answer a proxy drops is retried with the same Idempotency-Key and charged once, waitForVideo follows an
 * order to done, and verifyWebhook accepts a real delivery and refuses it changed by one byte or with another secret.
 * The types it uses are generated from the OpenAPI document, and the committed ones must be the current ones; types
 * generated from the served document compile, and a small program on them (clients/js/examples) type-checks and runs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { contractTypes, SCHEMA_FILE } from '../../bin/contract-types.ts';
import { videoForProduct } from '../../clients/js/examples/integration.ts';
import { ROOT } from '../../lib/paths.ts';
import {
  VideoClient,
  isApiError,
  verifyServiceSignature,
  verifyWebhook,
  WebhookVerificationError,
  type Created,
  type RetryInfo,
} from '../../clients/js/src/index.ts';
import { useStack, waitForStatus } from '../support/stack.ts';
import { typeErrors } from '../support/typecheck.ts';

// One active order per key and an order estimate of 1 s: a second creation gets 429 with Retry-After: 1.
const t = useStack({ LIMIT_ACTIVE_TASKS: '1', ORDER_SECONDS_ESTIMATE: '1', WEBHOOK_ALLOW_PRIVATE_URLS: 'on' }, { viaPrism: true });
const run = promisify(execFile);
const servers: Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('the JavaScript client', () => {
  it('is typed from the current OpenAPI document', async () => {
    assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), await contractTypes(), 'run npm run contract:types');
  });

  it('types generated afresh from the served /openapi.json compile, and a program using them type-checks and runs', async () => {
    const served = await t.api('GET', '/openapi.json');
    const dir = join(ROOT, 'reports', 'tmp', 'typed-program');
    mkdirSync(join(dir, 'src'), { recursive: true });
    mkdirSync(join(dir, 'examples'), { recursive: true });
    writeFileSync(join(dir, 'src', 'schema.ts'), await contractTypes(served.body));
    const program = readFileSync(join(ROOT, 'clients', 'js', 'examples', 'typed-fetch.ts'), 'utf8');
    const check = (source: string) => {
      writeFileSync(join(dir, 'examples', 'typed-fetch.ts'), source);
      return typeErrors(join(dir, 'examples', 'typed-fetch.ts'));
    };
    assert.deepEqual(check(program), []);
    // The check bites: a value the contract does not allow, and a status left out of the exhaustive switch.
    assert.match(check(program.replace("tone: 'calm'", "tone: 'sleepy'")).join('\n'), /"sleepy"/);
    assert.match(check(program.replace("    case 'error':\n", '')).join('\n'), /not assignable to type 'never'/);
    writeFileSync(join(dir, 'examples', 'typed-fetch.ts'), program);

    const { apiKey } = await t.user({ balance: 1000 });
    const typed = (await import(join(dir, 'examples', 'typed-fetch.ts'))) as typeof import('../../clients/js/examples/typed-fetch.ts');
    const { created, order, balance } = await typed.orderOnce(t.baseUrl, apiKey, 'Green tea');
    assert.equal(order.id, created.id);
    assert.equal(balance.balance, 1000 - created.cost);
    assert.match(typed.summary(order), new RegExp(`^${created.id} (is|waits)`));
  });

  it('the stock openapi-typescript command the README gives makes the project’s own types from the served document', async () => {
    const readme = readFileSync(join(ROOT, 'clients', 'js', 'README.md'), 'utf8');
    const [, flag] = /npx openapi-typescript http:\/\/localhost:3000\/v1\/openapi\.json (--\S+) -o schema\.ts/.exec(readme) ?? [];
    assert.equal(flag, '--default-non-nullable=false');
    const dir = join(ROOT, 'reports', 'tmp', 'stock-types');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify((await t.api('GET', '/openapi.json')).body));
    const generate = async (...flags: string[]) => {
      await run(join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), [join(dir, 'openapi.json'), ...flags, '-o', join(dir, 'schema.ts')]);
      // Past its banner comment.
      return readFileSync(join(dir, 'schema.ts'), 'utf8').replace(/^\/\*\*[\s\S]*?\*\/\n\n/, '');
    };
    // The project's generator on the same document (src/schema.ts is that of the document in force: the first test).
    const own = (await contractTypes(JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')))).replace(/^\/\/.*\n/, '');
    assert.equal(await generate(flag!), own);
    const stock = await generate();
    assert.notEqual(stock, own);
    assert.match(stock, /^ {12}duration_seconds: number;$/m, 'without the flag a defaulted request field is required');
  });

  it('the integration example orders a product’s video at its quote and follows it to done, and reports a refusal', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey, maxRetries: 30 });
    const outcome = await videoForProduct(client, 'Green tea', 'sku-42');
    assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
    if (outcome.kind !== 'done') return;
    assert.deepEqual([outcome.order.status, outcome.order.client_metadata], ['done', { sku: 'sku-42' }]);
    assert.match(outcome.requestId ?? '', /./);
    assert.deepEqual(await videoForProduct(client, 'Oolong', 'sku-43', 10), { kind: 'refused', reason: 'costs 100, more than 10' });
    const poor = new VideoClient({ baseUrl: t.baseUrl, apiKey: (await t.user({ balance: 10 })).apiKey });
    assert.deepEqual(await videoForProduct(poor, 'Oolong', 'sku-44'), { kind: 'refused', reason: 'insufficient_funds' });
  });

  // One key's two quick orders, rendered: the first is created through a proxy that loses its first answer, and the
  // second, made while the first is active, waits out the 429 for Retry-After and is followed to done.
  describe('one key, two quick orders', () => {
    let apiKey: string;
    let first: Created;
    let balanceAfterFirst: number;
    let dropped = 0;
    const keys: string[] = [];

    before(async () => {
      ({ apiKey } = await t.user({ balance: 1000 }));
      const target = new URL(t.baseUrl);
      // A proxy that forwards every request but drops the connection instead of the first creation's answer.
      const proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => {
            if (req.method === 'POST') keys.push(String(req.headers['idempotency-key']));
            const upstream = request(
              { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
              (answer: IncomingMessage) => {
                if (req.method === 'POST' && dropped === 0) {
                  dropped++;
                  answer.resume().on('end', () => res.socket?.destroy());
                  return;
                }
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                answer.pipe(res);
              },
            );
            upstream.end(Buffer.concat(chunks));
          });
      });
      const client = new VideoClient({ baseUrl: `${await listen(proxy)}/v1`, apiKey, baseDelayMs: 50 });
      first = await client.createQuick('A 10 second video about tea');
      balanceAfterFirst = (await client.getBalance()).balance;
    });

    it('charges once when the first answer to a creation is lost on the way back', () => {
      assert.equal(dropped, 1, 'the first answer was dropped');
      assert.equal(keys.length, 2, 'the creation was sent twice');
      assert.equal(keys[0], keys[1], 'with one Idempotency-Key');
      assert.equal(balanceAfterFirst, 1000 - first.cost, 'charged once');
      assert.equal(first.cost, 100);
    });

    it('waits out 429 active_tasks_exceeded for Retry-After, then creates the order, and waitForVideo follows it to done', async () => {
      const retries: RetryInfo[] = [];
      const client = new VideoClient({ baseUrl: t.baseUrl, apiKey, maxRetries: 30, onRetry: (r) => retries.push(r) });
      const started = Date.now();
      const second = await client.createQuick('A 10 second video about coffee');
      assert.notEqual(second.id, first.id);
      assert.ok(retries.length >= 1, 'it retried');
      for (const r of retries) {
        assert.equal(r.reason, '429 active_tasks_exceeded');
        assert.ok(r.delayMs >= 1000 && r.delayMs <= 1100, `the wait is the Retry-After the server sent, plus 0-10%: ${r.delayMs} ms`);
      }
      assert.ok(
        retries.some((r) => r.delayMs > 1000),
        'jitter added',
      );
      assert.ok(Date.now() - started >= 1000 * retries.length);
      // Without retries the same call fails with the typed error.
      const impatient = new VideoClient({ baseUrl: t.baseUrl, apiKey, maxRetries: 0 });
      await assert.rejects(impatient.createQuick('A third'), (err) => isApiError(err, 'active_tasks_exceeded') && err.retryAfter === 1 && err.status === 429);
      const seen = new Set<string>();
      const done = await client.waitForVideo(second.id, { timeout: 90_000, interval: 200, onProgress: (o) => seen.add(o.status) });
      assert.equal(done.status, 'done');
      assert.match(done.result_url!, /^http/);
      assert.ok(seen.has('done'));
      await assert.rejects(client.getVideo('vid_01m837a36rwd3vvm20wnzfsswb'), (err) => isApiError(err, 'not_found') && err.status === 404);
    });
  });

  it('verifies a real webhook delivery, and refuses a changed body or another secret', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const received: { raw: Buffer; headers: IncomingMessage['headers'] }[] = [];
    const url = `${await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => {
            received.push({ raw: Buffer.concat(chunks), headers: req.headers });
            res.writeHead(204).end();
          });
      }),
    )}/hook`;
    const client = new VideoClient({ baseUrl: t.baseUrl, apiKey });
    const { secret } = await client.createWebhook(url);
    const created = await client.createVideo({ topic: 'Tea', duration_seconds: 10, director_mode: true });
    await waitForStatus(t, apiKey, created.id, ['awaiting_review']);
    for (const end = Date.now() + 20_000; received.length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
    const { raw, headers } = received[0]!;
    const signature = String(headers['x-service-signature']);
    const verified = await verifyWebhook(raw, headers, secret);
    assert.deepEqual(verified, { id: `${created.id}:awaiting_review:1`, timestamp: Number(headers['webhook-timestamp']), scheme: 'standard' });
    assert.equal((await verifyWebhook(raw.toString('utf8'), new Headers(headers as Record<string, string>), [secret])).scheme, 'standard');
    const changed = Buffer.from(raw);
    changed[changed.length - 2]! ^= 1;
    await assert.rejects(verifyWebhook(changed, headers, secret), WebhookVerificationError);
    await assert.rejects(verifyWebhook(raw, headers, `${secret}x`), WebhookVerificationError);
    // The body-only signature, checked alone.
    assert.equal(await verifyServiceSignature(raw, signature, secret), true);
    assert.equal(await verifyServiceSignature(raw.toString('utf8'), signature, secret), true);
    assert.equal(await verifyServiceSignature(changed, signature, secret), false);
    assert.equal(await verifyServiceSignature(raw, signature, `${secret}x`), false);
    assert.equal(await verifyServiceSignature(raw, undefined, secret), false);
    assert.equal(await verifyServiceSignature(raw, 'not-hex', secret), false);
  });
});
