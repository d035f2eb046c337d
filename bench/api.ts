/**
 * The API figures of npm run bench, measured on the local stack in one run.
 *  - GET /videos/{id} and POST /videos:quick under 32 concurrent clients: requests per second, p50 and p99;
 *  - a bare DynamoDB GetItem loop under the same concurrency, as the floor;
 *  - AWS calls per API request, counted by a middleware on the SDK clients the handlers use.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../local/stack.ts';

const CONCURRENCY = 32;
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 8) * 1000;

interface Figures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs bench/load.ts in a child process against the given requests. */
async function external(requests: { url: string; method: string; headers: Record<string, string>; body?: string }[], expect: number): Promise<Figures> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load.ts'), JSON.stringify({ requests, concurrency: CONCURRENCY, durationMs: DURATION_MS, expect })], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  return JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Runs `op` from CONCURRENCY loops for DURATION_MS and reports throughput and latency. */
async function load(op: (client: number) => Promise<boolean>): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, client) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await op(client).catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, rps: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), errors };
}

export async function benchApi(): Promise<void> {
const dir = mkdtempSync(join(tmpdir(), 'video-service-bench-'));
// Per-key limits are lifted so the bench measures the service, not the 30 POST/min rule; executions are held so
// that no video renders in the background of the API figures (the workflow has its own figures).
const stack = await startLocalStack({
  port: 0,
  s3Dir: join(dir, 's3'),
  env: { POWERTOOLS_LOG_LEVEL: 'CRITICAL', LIMIT_ACTIVE_TASKS: '1000000', LIMIT_POSTS_PER_MINUTE: '1000000', LOCAL_SFN_HOLD: '1' },
});
try {
  const { services } = await import('../functions/adapters/services.ts');
  const { aws } = await import('../functions/adapters/aws.ts');
  const clients = aws();
  let calls = 0;
  for (const client of [clients.ddb, clients.s3, clients.sfn]) {
    (client.middlewareStack as { add: (mw: unknown, opts: object) => void }).add(
      (next: (a: unknown) => Promise<unknown>) => async (args: unknown) => {
        calls++;
        return next(args);
      },
      { step: 'initialize', name: 'benchCallCounter' },
    );
  }

  // One API user per client, as 32 clients of the service would be.
  const users = await Promise.all(
    Array.from({ length: CONCURRENCY }, () => services().accounts.createUser({ balance: 1_000_000_000, trialVideos: 0, now: new Date() })),
  );
  const headersOf = (i: number) => ({ 'x-api-key': users[i % CONCURRENCY]!.apiKey, 'content-type': 'application/json' });
  const body = JSON.stringify({ prompt: 'A short video about green tea' });
  const create = (i = 0) => fetch(`${stack.baseUrl}/videos:quick`, { method: 'POST', headers: headersOf(i), body });
  const ids = await Promise.all(users.map(async (_, i) => ((await (await create(i)).json()) as { id: string }).id));
  const get = (i = 0) => fetch(`${stack.baseUrl}/videos/${ids[i % CONCURRENCY]}`, { headers: headersOf(i) });

  // AWS calls per request, counted over sequential requests.
  const perRequest = async (fn: () => Promise<Response>, times = 20) => {
    const before = calls;
    for (let i = 0; i < times; i++) await (await fn()).arrayBuffer();
    return (calls - before) / times;
  };
  const getCalls = await perRequest(get);
  const createCalls = await perRequest(create);

  // The API figures come from a load generator in its own process, as real clients are; warm up, then measure.
  const getRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos/${ids[i]}`, method: 'GET', headers: headersOf(i) }));
  const createRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos:quick`, method: 'POST', headers: headersOf(i), body }));
  await external(getRequests, 200);
  const getFig = await external(getRequests, 200);
  const createFig = await external(createRequests, 201);
  const table = process.env.TABLE_NAME!;
  const { keys } = await import('../functions/adapters/keys.ts');
  const { planFromPrompt } = await import('../functions/generator/planner.ts');
  const bare = await load(async (c) => {
    const out = await clients.ddb.send(new GetCommand({ TableName: table, Key: keys.order(ids[c]!), ConsistentRead: true }));
    return Boolean(out.Item);
  });
  // The round trips each request needs, made straight from the adapters with no HTTP, middy or validation.
  const { accounts, orders, creation } = services();
  const getFloor = await load(async (c) => {
    const found = await accounts.authenticate(users[c]!.apiKey);
    return Boolean(found && (await orders.get(ids[c]!)));
  });
  const params = planFromPrompt('A short video about green tea');
  const createFloor = await load(async (c) => {
    const found = (await accounts.authenticate(users[c]!.apiKey, true))!;
    const r = await creation.create({ ...found, route: 'POST /videos:quick', kind: 'quick', params, now: new Date() });
    return r.response.status === 'queued';
  });

  const f = (x: number) => x.toFixed(1);
  const row = (name: string, fig: Figures, target = '') =>
    `| ${name} | ${fig.requests} | ${f(fig.rps)} | ${f(fig.p50)} | ${f(fig.p99)} | ${fig.errors} | ${target} |`;
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  const getRatio = getFig.p50 / getFloor.p50;
  const createRatio = createFig.p50 / createFloor.p50;
  console.log(`\nLocal stack, ${CONCURRENCY} concurrent clients (one API user each, in a separate process), ${DURATION_MS / 1000} s per figure (node ${process.version})\n`);
  console.log('| what | requests | req/s | p50 ms | p99 ms | errors | target |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(row('GET /videos/{id}', getFig, `p50 <= 2x floor: ${getRatio.toFixed(2)}x ${verdict(getRatio <= 2)}`));
  console.log(row('  floor: its round trips (key lookup + GetItem)', getFloor));
  console.log(row('POST /videos:quick (201)', createFig, `p50 <= 2x floor: ${createRatio.toFixed(2)}x ${verdict(createRatio <= 2)}`));
  console.log(row('  floor: its round trips (key lookup + transaction + StartExecution)', createFloor));
  console.log(row('bare DynamoDB GetItem loop', bare));
  console.log('\n| AWS calls per request | measured | target |');
  console.log('|---|---|---|');
  console.log(`| GET /videos/{id} | ${getCalls} | <= 2 ${verdict(getCalls <= 2)} |`);
  console.log(`| POST /videos:quick (201) | ${createCalls} | <= 3 ${verdict(createCalls <= 3)} |`);
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
}
