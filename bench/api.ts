/**
 * The API figures of npm run bench, measured on the local stack in one run.
 *  - GET /videos/{id} and POST /videos:quick under 32 concurrent clients (a load generator in its own process):
 *    requests per second, p50, p99 and CPU per request;
 *  - the floor of each: the same DynamoDB and Step Functions round trips made straight from the adapters;
 *  - a bare DynamoDB GetItem loop;
 *  - AWS calls per API request, counted by a middleware on the SDK clients the handlers use.
 * The API and its floor are measured in alternating slices, so that a slower stretch of a shared machine (steal
 * time) falls on both alike; latencies are pooled over the rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../local/stack.ts';
import { emit } from './report.ts';

const CONCURRENCY = 32;
const SLICE_MS = Number(process.env.BENCH_SECONDS ?? 3) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

interface Slice {
  latencies: number[];
  seconds: number;
  errors: number;
  /** CPU time of the service process, the load generator and DynamoDB Local during the slice. */
  cpuMs: number;
}

interface Figures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuPerRequestMs: number;
}

type HttpRequestSpec = { url: string; method: string; headers: Record<string, string>; body?: string };

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const p50Of = (latencies: number[]) => pct([...latencies].sort((a, b) => a - b), 50);

function pooled(slices: Slice[]): Figures {
  const latencies = slices.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const seconds = slices.reduce((t, s) => t + s.seconds, 0);
  const cpuMs = slices.reduce((t, s) => t + s.cpuMs, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    errors: slices.reduce((t, s) => t + s.errors, 0),
    cpuPerRequestMs: cpuMs / latencies.length,
  };
}

/** CPU milliseconds used so far by the DynamoDB Local JVM listening on `port` (Linux /proc), or 0 when not found. */
function dynamoCpu(port: string): () => number {
  const hz = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const pid = readdirSync('/proc').find((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return argv[0] === 'java' && argv.some((a) => a.endsWith('DynamoDBLocal.jar')) && argv[argv.indexOf('-port') + 1] === port;
    } catch {
      return false;
    }
  });
  return () => {
    if (!pid) return 0;
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / hz;
  };
}

const serviceCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

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
    const { services } = await import('../functions/app/services.ts');
    const { aws, allClients } = await import('../functions/adapters/aws.ts');
    const { keys } = await import('../functions/adapters/keys.ts');
    const clients = aws();
    let calls = 0;
    for (const client of Object.values(await allClients())) {
      (client.middlewareStack as { add: (mw: unknown, opts: object) => void }).add(
        (next: (a: unknown) => Promise<unknown>) => async (args: unknown) => {
          calls++;
          return next(args);
        },
        { step: 'initialize', name: 'benchCallCounter' },
      );
    }
    const javaCpu = dynamoCpu(new URL(stack.env.DYNAMODB_ENDPOINT!).port);

    /** Runs the loop of each client for one slice, in this process (the floors). */
    const inProcess = async (op: (client: number) => Promise<boolean>): Promise<Slice> => {
      const latencies: number[] = [];
      let errors = 0;
      const cpu0 = serviceCpu() + javaCpu();
      const started = performance.now();
      const end = started + SLICE_MS;
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
      return { latencies, seconds: (performance.now() - started) / 1000, errors, cpuMs: serviceCpu() + javaCpu() - cpu0 };
    };

    /** Runs bench/load.ts in a child process for one slice (the API as its clients see it). */
    const external = async (requests: HttpRequestSpec[], expect: number): Promise<Slice> => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load.ts'), JSON.stringify({ requests, concurrency: CONCURRENCY, durationMs: SLICE_MS, expect })], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      let cpu0 = NaN;
      const callsAtSpawn = calls;
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // The child's own start (tsx, its imports) is not the API's work: the service's CPU is taken from its first request.
      const firstRequest = setInterval(() => {
        if (calls > callsAtSpawn) {
          cpu0 = serviceCpu() + javaCpu();
          clearInterval(firstRequest);
        }
      }, 1);
      await new Promise((resolve) => child.on('close', resolve));
      clearInterval(firstRequest);
      const service = serviceCpu() + javaCpu() - cpu0;
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as { seconds: number; latencies: number[]; errors: number; cpuMs: number };
      return { latencies: r.latencies, seconds: r.seconds, errors: r.errors, cpuMs: service + r.cpuMs };
    };

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

    const getRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos/${ids[i]}`, method: 'GET', headers: headersOf(i) }));
    const createRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos:quick`, method: 'POST', headers: headersOf(i), body }));
    const { accounts, orders, creation } = services();
    // The round trips each request needs, made straight from the adapters with no HTTP, middy or validation.
    const parts = {
      get: () => external(getRequests, 200),
      getFloor: () =>
        inProcess(async (c) => {
          const found = await accounts.authenticate(users[c]!.apiKey);
          return Boolean(found && (await orders.get(ids[c]!)));
        }),
      create: () => external(createRequests, 201),
      createFloor: () =>
        inProcess(async (c) => {
          const found = (await accounts.authenticate(users[c]!.apiKey, true))!;
          const r = await creation.create({ ...found, request: { route: 'POST /videos:quick', prompt: 'A short video about green tea' }, now: new Date() });
          return r.response.status === 'queued';
        }),
      bare: () =>
        inProcess(async (c) => {
          const out = await clients.ddb.send(new GetCommand({ TableName: stack.env.TABLE_NAME!, Key: keys.order(ids[c]!), ConsistentRead: true }));
          return Boolean(out.Item);
        }),
    };
    type Part = keyof typeof parts;
    const slices: Record<Part, Slice[]> = { get: [], getFloor: [], create: [], createFloor: [], bare: [] };
    // A warm-up slice of each (the JVM's JIT, the SDK's connections), then the rounds.
    for (const part of Object.keys(parts) as Part[]) await parts[part]();
    for (let round = 0; round < ROUNDS; round++) {
      for (const part of Object.keys(parts) as Part[]) slices[part].push(await parts[part]());
    }

    const fig = Object.fromEntries((Object.keys(slices) as Part[]).map((p) => [p, pooled(slices[p])])) as Record<Part, Figures>;
    const roundRatios = (api: Part, floor: Part) => slices[api].map((s, i) => p50Of(s.latencies) / p50Of(slices[floor][i]!.latencies)).sort((a, b) => a - b);
    const f = (x: number, d = 1) => x.toFixed(d);
    const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
    const ratioCell = (api: Part, floor: Part) => {
      const ratio = fig[api].p50 / fig[floor].p50;
      const rounds = roundRatios(api, floor);
      return `p50 <= 2x floor: ${f(ratio, 2)}x ${verdict(ratio <= 2)} (rounds ${f(rounds[0]!, 2)}x to ${f(rounds.at(-1)!, 2)}x)`;
    };
    const row = (name: string, x: Figures, target = '') =>
      `| ${name} | ${x.requests} | ${f(x.rps)} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.cpuPerRequestMs, 2)} | ${x.errors} | ${target} |`;
    console.log(`\nLocal stack, ${CONCURRENCY} concurrent clients (one API user each), ${ROUNDS} alternating rounds of ${SLICE_MS / 1000} s per figure (node ${process.version})\n`);
    console.log('| what | requests | req/s | p50 ms | p99 ms | CPU ms/request | errors | target |');
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(row('GET /videos/{id} (clients in their own process)', fig.get, ratioCell('get', 'getFloor')));
    console.log(row('  floor: its round trips (key lookup + GetItem)', fig.getFloor));
    console.log(row('POST /videos:quick, 201 (clients in their own process)', fig.create, ratioCell('create', 'createFloor')));
    console.log(row('  floor: its round trips (key lookup + transaction + StartExecution)', fig.createFloor));
    console.log(row('bare DynamoDB GetItem loop', fig.bare));
    console.log('\nCPU per request: the service process, DynamoDB Local and (for the API rows) the load generator together.');
    console.log('\n| AWS calls per request | measured | target |');
    console.log('|---|---|---|');
    console.log(`| GET /videos/{id} | ${getCalls} | <= 2 ${verdict(getCalls <= 2)} |`);
    console.log(`| POST /videos:quick (201) | ${createCalls} | <= 3 ${verdict(createCalls <= 3)} |`);
    const section = `API (local stack, ${CONCURRENCY} clients, ${ROUNDS} rounds)`;
    emit([
      { section, name: 'GET /videos/{id} p50', value: fig.get.p50, unit: 'ms', target: { op: '<=', limit: 2 * fig.getFloor.p50 }, floor: { value: fig.getFloor.p50, what: 'key lookup + GetItem' }, note: 'target: 2x floor' },
      { section, name: 'GET /videos/{id} p99', value: fig.get.p99, unit: 'ms', floor: { value: fig.getFloor.p99, what: 'key lookup + GetItem' } },
      { section, name: 'GET /videos/{id} throughput', value: fig.get.rps, unit: 'req/s', floor: { value: fig.getFloor.rps, what: 'key lookup + GetItem' } },
      { section, name: 'GET /videos/{id} CPU per request', value: fig.get.cpuPerRequestMs, unit: 'ms', floor: { value: fig.getFloor.cpuPerRequestMs, what: 'key lookup + GetItem' } },
      { section, name: 'POST /videos:quick p50', value: fig.create.p50, unit: 'ms', target: { op: '<=', limit: 2 * fig.createFloor.p50 }, floor: { value: fig.createFloor.p50, what: 'key lookup + transaction + StartExecution' }, note: 'target: 2x floor' },
      { section, name: 'POST /videos:quick throughput', value: fig.create.rps, unit: 'req/s', floor: { value: fig.createFloor.rps, what: 'key lookup + transaction + StartExecution' } },
      { section, name: 'AWS calls per GET /videos/{id}', value: getCalls, unit: 'calls', target: { op: '<=', limit: 2 } },
      { section, name: 'AWS calls per POST /videos:quick', value: createCalls, unit: 'calls', target: { op: '<=', limit: 3 } },
      { section, name: 'errors', value: fig.get.errors + fig.create.errors, unit: 'requests', target: { op: '<=', limit: 0 } },
    ]);
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
