/**
 * The API figures of npm run bench, measured on the local stack in one run.
 *  - GET /videos/{id} and POST /videos:quick (with an Idempotency-Key) under 32 concurrent clients (a load generator
 *    in its own process): requests per second, p50, p99 and CPU per request;
 *  - the floor of each: the same AWS calls, bare, with items the bench prepared (floor.ts). The ratio API / floor is
 *    then what the service's own layers cost: HTTP, the gateway, middy, validation, pricing and the use case;
 *  - the creation transaction alone, and a bare GetItem loop: what DynamoDB Local itself can do here;
 *  - AWS calls per API request, counted by a middleware on the SDK clients the handlers use;
 *  - where the service process's CPU goes on a GET: a sampled CPU profile, by layer (profile.ts).
 * The API and its floor are measured in alternating slices, so that a slower stretch of a shared machine (steal
 * time) falls on both alike; latencies are pooled over the rounds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../local/stack.ts';
import { BUCKET_GRANTS } from '../lib/access.ts';
import { creationFloor, getFloor, type FloorUser } from './floor.ts';
import { profileLayers } from './profile.ts';
import { emit, type Figure } from './report.ts';

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
const p50Of = (latencies: number[]) =>
  pct(
    [...latencies].sort((a, b) => a - b),
    50,
  );

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
      return argv[0] === 'java' && argv.some((a) => a.includes('DynamoDBLocal.jar')) && argv[argv.indexOf('-port') + 1] === port;
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

/**
 * A quick creation's AWS calls while every render slot is held: the floor's seven (docs/benchmarks.md lists them; the
 * seventh, its key's item in the render queue, is the round robin's read). The queue snapshot that eta_seconds reads
 * every 2 s a process adds a fraction of a call.
 */
const CREATE_CALLS = 7.1;
/** GET /videos/{id}'s three calls; a queued order's eta adds the same fraction of a snapshot read. */
const GET_CALLS = 3.1;

export async function benchApi(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'video-service-bench-'));
  // Per-key limits are lifted so the bench measures the service, not the 30 POST/min and 600 GET/min rules (each GET
  // is still counted); executions are held so that no video renders in the background of the API figures (the
  // workflow has its own figures).
  const limits = { activeTasks: 1_000_000, postsPerMinute: 1_000_000, getsPerMinute: 1_000_000 };
  const stack = await startLocalStack({
    bucketGrants: BUCKET_GRANTS,
    port: 0,
    s3Dir: join(dir, 's3'),
    env: {
      POWERTOOLS_LOG_LEVEL: 'CRITICAL',
      LIMIT_ACTIVE_TASKS: String(limits.activeTasks),
      LIMIT_POSTS_PER_MINUTE: String(limits.postsPerMinute),
      LIMIT_GETS_PER_MINUTE: String(limits.getsPerMinute),
      LOCAL_SFN_HOLD: '1',
    },
  });
  try {
    const { services } = await import('../functions/app/services.ts');
    const { aws, allClients } = await import('../functions/adapters/aws.ts');
    const { keys } = await import('../functions/adapters/keys.ts');
    const { config } = await import('../functions/adapters/config.ts');
    const clients = aws();
    const tableName = stack.env.TABLE_NAME!;
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
    const external = async (requests: HttpRequestSpec[], expect: number, idempotency = false): Promise<Slice> => {
      const spec = { requests, concurrency: CONCURRENCY, durationMs: SLICE_MS, expect, ...(idempotency ? { idempotencyPrefix: randomUUID() } : {}) };
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'load.ts'), JSON.stringify(spec)], {
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
      Array.from({ length: CONCURRENCY }, () => services().stores.accounts.createUser({ balance: 1_000_000_000, trialVideos: 0, now: new Date() })),
    );
    const headersOf = (i: number) => ({ 'x-api-key': users[i % CONCURRENCY]!.apiKey, 'content-type': 'application/json' });
    const body = JSON.stringify({ prompt: 'A short video about green tea' });
    const create = (i = 0) => fetch(`${stack.baseUrl}/videos:quick`, { method: 'POST', headers: { ...headersOf(i), 'idempotency-key': randomUUID() }, body });
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

    // The floors' prepared items copy an order the API created, so that they write what the API writes.
    const orderItem = (await clients.ddb.send(new GetCommand({ TableName: tableName, Key: keys.order(ids[0]!), ConsistentRead: true }))).Item!;
    const floorUsers: FloorUser[] = users.map((u, i) => ({ userId: u.userId, orderId: ids[i]! }));
    const { slots, shards } = config().capacity;
    const floorCtx = { ddb: clients.ddb, tableName, queue: { slots, shards }, limits, orderItem };
    const creationCalls = creationFloor(floorCtx);
    const getCallsFloor = getFloor(floorCtx);

    const getRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos/${ids[i]}`, method: 'GET', headers: headersOf(i) }));
    const createRequests = users.map((_, i) => ({ url: `${stack.baseUrl}/videos:quick`, method: 'POST', headers: headersOf(i), body }));
    const parts = {
      get: () => external(getRequests, 200),
      getFloor: () => inProcess((c) => getCallsFloor(floorUsers[c]!)),
      create: () => external(createRequests, 201, true),
      createFloor: () => inProcess((c) => creationCalls.all(floorUsers[c]!)),
      transaction: () => inProcess((c) => creationCalls.transaction(floorUsers[c]!)),
      bare: () =>
        inProcess(async (c) => {
          const out = await clients.ddb.send(new GetCommand({ TableName: tableName, Key: keys.order(ids[c]!), ConsistentRead: true }));
          return Boolean(out.Item);
        }),
    };
    type Part = keyof typeof parts;
    const slices: Record<Part, Slice[]> = { get: [], getFloor: [], create: [], createFloor: [], transaction: [], bare: [] };
    // A warm-up slice of each (the JVM's JIT, the SDK's connections), then the rounds.
    for (const part of Object.keys(parts) as Part[]) await parts[part]();
    for (let round = 0; round < ROUNDS; round++) {
      for (const part of Object.keys(parts) as Part[]) slices[part].push(await parts[part]());
    }
    // Creations whose wait was not recorded: answered 201, their unstarted marker left for the audit to start them (the
    // floor's counted by the floor, and its orders told apart).
    const unstarted = await services().stores.orders.unstarted(new Date(Date.now() + 3_600_000), 1_000_000);
    const leftToAudit = {
      create: unstarted.filter((o) => !creationCalls.made.has(o.id)).length,
      createFloor: creationCalls.leftToAudit.size,
    };
    // After the rounds, so that the profiler's cost falls on no figure above.
    const profile = await profileLayers(() => external(getRequests, 200));

    const fig = Object.fromEntries((Object.keys(slices) as Part[]).map((p) => [p, pooled(slices[p])])) as Record<Part, Figures>;
    const roundRatios = (api: Part, floor: Part) => slices[api].map((s, i) => p50Of(s.latencies) / p50Of(slices[floor][i]!.latencies)).sort((a, b) => a - b);
    const f = (x: number, d = 1) => x.toFixed(d);
    const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
    const ratioCell = (api: Part, floor: Part) => {
      const ratio = fig[api].p50 / fig[floor].p50;
      const rounds = roundRatios(api, floor);
      return `p50 <= 2x floor: ${f(ratio, 2)}x ${verdict(ratio <= 2)} (rounds ${f(rounds[0]!, 2)}x to ${f(rounds.at(-1)!, 2)}x)`;
    };
    const GET_FLOOR = 'the same AWS calls, bare: GetItem of the user item + UpdateItem of the GET window + GetItem of the order';
    const CREATE_FLOOR =
      'the same AWS calls, bare, with every render slot held: GetItem of the user + the creation TransactWriteItems + UpdateItem of the queue shard ticket + the wait TransactWriteItems + BatchGetItem of the shard slots + GetItem of the POST window';
    const row = (name: string, x: Figures, target = '') =>
      `| ${name} | ${x.requests} | ${f(x.rps)} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.cpuPerRequestMs, 2)} | ${x.errors} | ${target} |`;
    console.log(
      `\nLocal stack, ${CONCURRENCY} concurrent clients (one API user each), ${ROUNDS} alternating rounds of ${SLICE_MS / 1000} s per figure (node ${process.version})\n`,
    );
    console.log('| what | requests | req/s | p50 ms | p99 ms | CPU ms/request | errors | target |');
    console.log('|---|---|---|---|---|---|---|---|');
    console.log(row('GET /videos/{id} (clients in their own process)', fig.get, ratioCell('get', 'getFloor')));
    console.log(row(`  floor: ${GET_FLOOR}`, fig.getFloor));
    console.log(row('POST /videos:quick with Idempotency-Key, 201 (clients in their own process)', fig.create, ratioCell('create', 'createFloor')));
    console.log(row(`  floor: ${CREATE_FLOOR}`, fig.createFloor));
    console.log(row('the creation TransactWriteItems alone', fig.transaction));
    console.log(row('bare DynamoDB GetItem loop', fig.bare));
    console.log(
      `\nCreations left to the audit (their wait not recorded): ${leftToAudit.create} of all the service's (floor: ${leftToAudit.createFloor} of all its own).`,
    );
    console.log('\nCPU per request: the service process, DynamoDB Local and (for the API rows) the load generator together.');
    console.log('\n| AWS calls per request | measured | target |');
    console.log('|---|---|---|');
    console.log(`| GET /videos/{id} | ${getCalls} | <= ${GET_CALLS} ${verdict(getCalls <= GET_CALLS)} |`);
    console.log(`| POST /videos:quick (201, every slot held) | ${createCalls} | <= ${CREATE_CALLS} ${verdict(createCalls <= CREATE_CALLS)} |`);
    console.log(`\nWhere the service process's CPU goes on GET /videos/{id} (sampled profile, ${profile.samples} samples, ${SLICE_MS / 1000} s):\n`);
    for (const l of profile.layers) console.log(`| ${l.layer} | ${f(l.percent)} % |`);

    const section = `API (local stack, ${CONCURRENCY} clients, ${ROUNDS} rounds)`;
    // The ratio of each round beside the pooled one: how far the host's noise moves it.
    const ratioNote = (api: Part, floor: Part) => {
      const rounds = roundRatios(api, floor);
      return `target: 2x floor; ratio ${f(fig[api].p50 / fig[floor].p50, 2)}x, single rounds ${f(rounds[0]!, 2)}x to ${f(rounds.at(-1)!, 2)}x`;
    };
    /** p50 (with its target), p99, throughput and CPU of one API figure beside its floor. */
    const apiFigures = (name: string, api: Part, floor: Part, floorWhat: string): Figure[] => {
      const floorOf = (x: number) => ({ value: x, what: floorWhat });
      return [
        {
          section,
          name: `${name} p50`,
          value: fig[api].p50,
          unit: 'ms',
          target: { op: '<=', limit: 2 * fig[floor].p50 },
          floor: floorOf(fig[floor].p50),
          note: ratioNote(api, floor),
        },
        { section, name: `${name} p99`, value: fig[api].p99, unit: 'ms', floor: floorOf(fig[floor].p99) },
        { section, name: `${name} throughput`, value: fig[api].rps, unit: 'req/s', floor: floorOf(fig[floor].rps) },
        {
          section,
          name: `${name} CPU per request`,
          value: fig[api].cpuPerRequestMs,
          unit: 'ms',
          floor: floorOf(fig[floor].cpuPerRequestMs),
          note: 'the service, DynamoDB Local and the load generator',
        },
      ];
    };
    const figures: Figure[] = [
      ...apiFigures('GET /videos/{id}', 'get', 'getFloor', GET_FLOOR),
      ...apiFigures('POST /videos:quick (Idempotency-Key)', 'create', 'createFloor', CREATE_FLOOR),
      { section, name: 'the creation TransactWriteItems alone, throughput', value: fig.transaction.rps, unit: 'tx/s' },
      { section, name: 'the creation TransactWriteItems alone, p50', value: fig.transaction.p50, unit: 'ms' },
      { section, name: 'bare DynamoDB GetItem loop, throughput', value: fig.bare.rps, unit: 'req/s' },
      { section, name: 'bare DynamoDB GetItem loop, p50', value: fig.bare.p50, unit: 'ms' },
      { section, name: 'AWS calls per GET /videos/{id}', value: getCalls, unit: 'calls', target: { op: '<=', limit: GET_CALLS } },
      { section, name: 'AWS calls per POST /videos:quick (every slot held)', value: createCalls, unit: 'calls', target: { op: '<=', limit: CREATE_CALLS } },
      {
        section,
        name: 'POST /videos:quick left to the audit (its wait not recorded)',
        value: leftToAudit.create,
        unit: 'orders',
        floor: { value: leftToAudit.createFloor, what: 'the floor: the same tries' },
        note: 'of every creation of the run, warm-up included',
        target: { op: '<=', limit: 0 },
      },
      {
        section,
        name: 'errors (API requests and floor calls)',
        value: (Object.keys(fig) as Part[]).reduce((t, p) => t + fig[p].errors, 0),
        unit: 'requests',
        target: { op: '<=', limit: 0 },
      },
    ];
    const profileSection = `Where the service process's CPU goes on GET /videos/{id} (sampled profile, 32 clients, ${profile.samples} samples; DynamoDB Local's JVM not included)`;
    for (const l of profile.layers) figures.push({ section: profileSection, name: l.layer, value: l.percent, unit: '%' });
    emit(figures);
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
