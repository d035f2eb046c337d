/**
 * What one order costs on AWS, from counts measured on the local stack: a client with a webhook creates a quick order,
 * polls GET /videos/{id} as its Retry-After says until the order is done, gets the signed video.done delivery and
 * downloads the video. Counted: API requests, Lambda invocations and their GB-seconds (measured durations at the
 * configured memory; the render's apart, at its 3008 MB on x86-64), DynamoDB request units (by AWS's rules from the
 * items each call wrote or read), Step Functions transitions (both workflows), S3 requests, and the CloudWatch Logs
 * the functions write at the prod stage's level (INFO, with the metrics' embedded-format lines), with Lambda's own
 * two JSON records an invocation; multiplied by the public prices in aws-prices.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollAfterSeconds } from '../functions/core/eta.ts';
import { STEPS } from '../functions/steps/table.ts';
import { SIZES } from '../lib/functions.ts';
import { onInvocation } from '../local/invocations.ts';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';
import { PRICES_USD } from './aws-prices.ts';

export interface CostLine {
  what: string;
  count: number;
  usd: number;
}

const KB = 1024;
const sizeOf = (item: unknown) => Buffer.byteLength(JSON.stringify(item ?? {}));
const keyOf = (k: { PK?: unknown; SK?: unknown } | undefined) => `${String(k?.PK)}|${String(k?.SK)}`;
const STEP_MODULES = new Set(STEPS.map((s) => s.module));
const isStep = (name: string) => STEP_MODULES.has(name);
/**
 * Lambda's own records of an invocation in JSON log format, bytes (assumed from their shape: platform.start ~300 with
 * its request id and trace, platform.report ~400 with its durations and memory).
 */
const PLATFORM_LOG_BYTES = 700;
/** CloudWatch Logs meters each event's message and 26 bytes more. */
const LOG_EVENT_OVERHEAD = 26;

export async function benchCost(): Promise<{ lines: CostLine[]; total: number; withoutRender: number; renderMs: number; polls: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cost-'));
  const hooks: string[] = [];
  const receiver = createServer((req, res) =>
    req.resume().on('end', () => {
      hooks.push(req.url ?? '');
      res.writeHead(204).end();
    }),
  );
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const restore: (() => void)[] = [];
  let counting = false;
  // The service's output, counted while the order runs and never shown (until the stack stops).
  const logs = { bytes: 0, events: 0 };
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    restore.push(() => (stream.write = write));
    stream.write = ((chunk: string | Uint8Array) => {
      if (!counting) return true;
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      logs.bytes += Buffer.byteLength(text);
      logs.events += text.split('\n').filter(Boolean).length;
      return true;
    }) as typeof stream.write;
  }
  const stack = await startLocalStack({
    bucketGrants: BUCKET_GRANTS,
    port: 0,
    s3Dir: join(dir, 's3'),
    // Logs and metrics as the prod stage writes them: their bytes are counted (and not shown) while the order runs.
    env: { POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false', WEBHOOK_ALLOW_PRIVATE_URLS: 'on' },
  }).catch((err) => {
    for (const r of restore) r();
    throw err;
  });
  try {
    const { services } = await import('../functions/app/services.ts');
    const { aws, allClients } = await import('../functions/adapters/aws.ts');
    const { apiKey } = await services().stores.accounts.createUser({ balance: 10_000, trialVideos: 0, now: new Date() });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const hook = await fetch(`${stack.baseUrl}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` }),
    });
    if (hook.status !== 201) throw new Error(`webhook registration: ${hook.status}`);

    // From here on every call belongs to the order.
    counting = true;
    const calls: { service: string; command: string; input: any; output: any }[] = [];
    const clients = aws();
    for (const [service, client] of Object.entries(await allClients())) {
      (client.middlewareStack as { add: (mw: unknown, opts: object) => void }).add(
        (next: (a: unknown) => Promise<{ output: unknown }>, context: { commandName: string }) => async (args: { input: unknown }) => {
          const result = await next(args);
          if (counting) calls.push({ service, command: context.commandName.replace(/Command$/, ''), input: args.input, output: result.output });
          return result;
        },
        { step: 'initialize', name: 'costRecorder' },
      );
    }
    const invocations: { name: string; ms: number }[] = [];
    const stop = onInvocation((name, ms) => counting && invocations.push({ name, ms }));

    const created = (await (
      await fetch(`${stack.baseUrl}/videos:quick`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'A 15 second video about green tea' }) })
    ).json()) as { id: string; status: string; eta_seconds: number };
    // The client polls as the service says: first after its creation's eta, then each answer's Retry-After.
    let order: { status: string; result_url: string };
    let polls = 0;
    for (let wait = pollAfterSeconds(created.status, created.eta_seconds) ?? 5; ; polls++) {
      await new Promise((r) => setTimeout(r, wait * 1000));
      const answer = await fetch(`${stack.baseUrl}/videos/${created.id}`, { headers });
      order = (await answer.json()) as typeof order;
      if (order.status === 'done' || polls > 60) break;
      wait = Number(answer.headers.get('retry-after') ?? 5);
    }
    if (order.status !== 'done') throw new Error(`order is ${order.status}`);
    for (const end = Date.now() + 120_000; hooks.length === 0; ) {
      if (Date.now() > end) throw new Error('no video.done delivery within 120 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const download = await fetch(order.result_url);
    await download.arrayBuffer();
    await stack.sfn.idle();
    counting = false;
    stop();

    // DynamoDB request units by AWS's rules: a write takes 1 unit per KB of the item (2 in a transaction), a strongly
    // consistent read 1 unit per 4 KB. An update is sized by the item as it is at the end (its largest state).
    const finalSize = new Map<string, number>();
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const writes: { key: unknown; size?: number; factor: number }[] = [];
    let readUnits = 0;
    for (const c of calls.filter((x) => x.service === 'ddb')) {
      if (c.command === 'TransactWriteItems') {
        for (const item of c.input.TransactItems) {
          const op = item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck;
          writes.push({ key: op.Item ?? op.Key, ...(item.Put ? { size: sizeOf(item.Put.Item) } : {}), factor: 2 });
        }
      } else if (c.command === 'PutItem') writes.push({ key: c.input.Item, size: sizeOf(c.input.Item), factor: 1 });
      else if (c.command === 'UpdateItem' || c.command === 'DeleteItem') writes.push({ key: c.input.Key, factor: 1 });
      else if (c.command === 'GetItem') readUnits += Math.max(1, Math.ceil(sizeOf(c.output.Item) / (4 * KB)));
      else if (c.command === 'BatchGetItem') {
        for (const items of Object.values(c.output.Responses ?? {}) as unknown[][])
          for (const i of items) readUnits += Math.max(1, Math.ceil(sizeOf(i) / (4 * KB)));
      } else if (c.command === 'Query')
        readUnits += Math.max(1, Math.ceil((c.output.Items ?? []).reduce((s: number, i: unknown) => s + sizeOf(i), 0) / (4 * KB)));
    }
    const table = stack.env.TABLE_NAME!;
    let writeUnits = 0;
    for (const w of writes) {
      const k = w.key as { PK: string; SK: string };
      let size = w.size;
      if (size === undefined) {
        const id = keyOf(k);
        if (!finalSize.has(id)) finalSize.set(id, sizeOf((await clients.ddb.send(new GetCommand({ TableName: table, Key: { PK: k.PK, SK: k.SK } }))).Item));
        size = finalSize.get(id)!;
      }
      writeUnits += w.factor * Math.max(1, Math.ceil(size / KB));
    }

    const apiRequests = invocations.filter((i) => !isStep(i.name)).length;
    const counted = invocations.filter((i) => i.name !== 'render-video');
    const memoryGb = (name: string) => (isStep(name) ? SIZES.step : SIZES.http).memorySize / 1024;
    const gbSeconds = counted.reduce((s, i) => s + (Math.ceil(i.ms) / 1000) * memoryGb(i.name), 0);
    const renderMs = invocations.filter((i) => i.name === 'render-video').reduce((s, i) => s + Math.ceil(i.ms), 0);
    const renderGbSeconds = (renderMs / 1000) * (SIZES.render.memorySize / 1024);
    const logGb = (logs.bytes + invocations.length * PLATFORM_LOG_BYTES + (logs.events + 2 * invocations.length) * LOG_EVENT_OVERHEAD) / 2 ** 30;
    const s3Puts = calls.filter((c) => c.service === 's3' && c.command === 'PutObject').length;
    // HEAD by the download route, plus the client's GET through the presigned URL (presigning itself is no request).
    const s3Gets = calls.filter((c) => c.service === 's3' && c.command === 'HeadObject').length + 1;
    const transitions = stack.sfn.totalTransitions();
    const lines: CostLine[] = [
      { what: 'API Gateway HTTP API requests', count: apiRequests, usd: apiRequests * PRICES_USD.httpApiRequest },
      { what: 'Lambda invocations (render included)', count: invocations.length, usd: invocations.length * PRICES_USD.lambdaRequest },
      { what: 'Lambda GB-seconds, arm64 (render excluded)', count: gbSeconds, usd: gbSeconds * PRICES_USD.lambdaArmGbSecond },
      {
        what: `CloudWatch Logs ingested, GB (${logs.events} events, ${(logs.bytes / 1024).toFixed(1)} KB, and Lambda's own records)`,
        count: logGb,
        usd: logGb * PRICES_USD.logsIngestedGb,
      },
      { what: 'DynamoDB write request units', count: writeUnits, usd: writeUnits * PRICES_USD.dynamoWriteUnit },
      { what: 'DynamoDB read request units', count: readUnits, usd: readUnits * PRICES_USD.dynamoReadUnit },
      { what: 'Step Functions state transitions (order + delivery)', count: transitions, usd: transitions * PRICES_USD.stepFunctionsTransition },
      { what: 'S3 PUT requests', count: s3Puts, usd: s3Puts * PRICES_USD.s3Put },
      { what: 'S3 GET and HEAD requests', count: s3Gets, usd: s3Gets * PRICES_USD.s3Get },
    ];
    const withoutRender = lines.reduce((s, l) => s + l.usd, 0);
    lines.push({
      what: `the render: Lambda GB-seconds, x86-64 at ${SIZES.render.memorySize} MB (${(renderMs / 1000).toFixed(1)} s measured here)`,
      count: renderGbSeconds,
      usd: renderGbSeconds * PRICES_USD.lambdaX86GbSecond,
    });
    return { lines, total: lines.reduce((s, l) => s + l.usd, 0), withoutRender, renderMs, polls: polls + 1 };
  } finally {
    await stack.stop();
    for (const r of restore) r();
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
