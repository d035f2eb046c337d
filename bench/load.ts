/**
 * A load generator in its own process, as real clients are: CONCURRENCY loops for DURATION_MS, each sending the
 * request of its client. Prints one JSON line of figures. Input (argv[2]): {requests: [{url, method, headers, body}],
 * concurrency, durationMs, expect}.
 */
interface Spec {
  requests: { url: string; method: string; headers: Record<string, string>; body?: string }[];
  concurrency: number;
  durationMs: number;
  expect: number;
}

const spec = JSON.parse(process.argv[2]!) as Spec;
const latencies: number[] = [];
let errors = 0;
const started = performance.now();
const end = started + spec.durationMs;
await Promise.all(
  Array.from({ length: spec.concurrency }, async (_, client) => {
    const r = spec.requests[client % spec.requests.length]!;
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        const res = await fetch(r.url, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
        await res.arrayBuffer();
        if (res.status !== spec.expect) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
console.log(JSON.stringify({ requests: latencies.length, rps: latencies.length / seconds, p50: pct(50), p99: pct(99), errors }));
