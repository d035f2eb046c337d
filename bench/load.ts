/**
 * A load generator in its own process, as real clients are: CONCURRENCY loops for DURATION_MS, each sending the
 * request of its client. Prints one JSON line: figures, the latencies (for pooling across rounds) and its own CPU
 * time. Input (argv[2]): {requests: [{url, method, headers, body}], concurrency, durationMs, expect, idempotencyPrefix?}:
 * with idempotencyPrefix, each request carries its own Idempotency-Key (a new order each, not a replay).
 */
import { Agent, request } from 'node:http';

interface Spec {
  requests: { url: string; method: string; headers: Record<string, string>; body?: string }[];
  concurrency: number;
  durationMs: number;
  expect: number;
  idempotencyPrefix?: string;
}

const spec = JSON.parse(process.argv[2]!) as Spec;
// node:http with a keep-alive agent: a lighter client than fetch, so less of the shared CPU goes to the clients.
const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
const send = (r: Spec['requests'][number]) =>
  new Promise<number>((resolve, reject) => {
    const req = request(r.url, { method: r.method, headers: r.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body);
  });
const latencies: number[] = [];
let errors = 0;
const cpu0 = process.cpuUsage();
const started = performance.now();
const end = started + spec.durationMs;
await Promise.all(
  Array.from({ length: spec.concurrency }, async (_, client) => {
    const r = spec.requests[client % spec.requests.length]!;
    for (let n = 0; performance.now() < end; n++) {
      const req = spec.idempotencyPrefix ? { ...r, headers: { ...r.headers, 'idempotency-key': `${spec.idempotencyPrefix}-${client}-${n}` } } : r;
      const t0 = performance.now();
      try {
        if ((await send(req)) !== spec.expect) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ seconds, latencies, errors, cpuMs: (cpu.user + cpu.system) / 1000 }));
agent.destroy();
