/**
 * Stoplight's Prism as a validating proxy: `prism proxy docs/openapi.json <upstream>` on loopback, a free port, never
 * `--errors` (so it forwards every request and every answer as they are, and only reports). Prism validates each
 * request and each answer against the committed document, an implementation other than the Ajv check of
 * test/support/contract.ts, and says what breaks it in the answer's `sl-violations` header, which `note` reads (and
 * removes, so the client sees the service's answer). Prism serves the document's paths from its root (`/videos`, not
 * `/v1/videos`: it does not read the base path of `servers`) and appends them to the upstream address, so the upstream
 * is the service's base address with /v1. It forwards a query string rebuilt from its parse (a bare `?flag` arrives
 * as `?flag=`), which no route of the service tells apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { OPENAPI_FILE } from '../../bin/contract-types.ts';

/** One violation as Prism reports it in `sl-violations`. */
interface PrismViolation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface Prism {
  /** Prism's address: the document's paths are served from its root. */
  baseUrl: string;
  /** The Prism process's id. */
  pid: number;
  /** Answers Prism found in breach of the document: `METHOD path -> status: where: message`. */
  violations: string[];
  /**
   * Requests the document refuses (a missing key, a malformed body, an unknown route: the tests send such requests on
   * purpose, and the service's answer to them is still checked), kept apart from the answers' violations.
   */
  requestViolations: string[];
  /** Answers that passed through Prism and were noted. */
  exchanges: number;
  /** Reads Prism's verdict on one answer that passed through it, and removes its header from `headers`. */
  note(method: string, path: string, status: number, headers: IncomingHttpHeaders): void;
  /** Stops the Prism process this started (by its PID). */
  close(): Promise<void>;
}

const PRISM_CLI = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');

/**
 * Starts Prism in front of `upstream` (the service's base address, /v1 included), validating against `document`
 * (docs/openapi.json by default); rejects with the reason when Prism cannot start (not installed, no port, no
 * "listening" line within `startMs`).
 */
export async function startPrism(upstream: string, opts: { document?: string; startMs?: number } = {}): Promise<Prism> {
  const child: ChildProcess = spawn(
    process.execPath,
    [PRISM_CLI, 'proxy', opts.document ?? OPENAPI_FILE, upstream, '--host', '127.0.0.1', '--port', '0', '--cors=false', '--errors=false', '-v', 'info'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // The log is read only up to the line that gives the address, then drained (a full pipe would stall Prism).
  let log = '';
  // The line of the log that says what went wrong, for a reason that fits on one line.
  const gist = () => (log.split('\n').find((l) => /error/i.test(l) && !/^\s+at /.test(l)) ?? log.trim().split('\n').at(-1) ?? '').trim().slice(0, 300);
  const stopAtExit = () => child.kill();
  process.once('exit', stopAtExit);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`Prism did not listen within ${opts.startMs ?? 30_000} ms: ${gist()}`), opts.startMs ?? 30_000);
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill();
      process.off('exit', stopAtExit);
      reject(new Error(reason));
    };
    const read = (d: Buffer) => {
      if (log.length < 100_000) log += d.toString();
      const found = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('error', (err) => fail(`Prism could not be started: ${err.message}`));
    child.once('exit', (code, signal) => fail(`Prism exited (${code ?? signal}) before listening: ${gist()}`));
  });
  // From here its log is not kept, and the process does not hold the test's process open.
  child.stdout!.removeAllListeners('data').resume();
  child.stderr!.removeAllListeners('data').resume();
  child.removeAllListeners('exit');
  child.unref();
  for (const s of [child.stdout, child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();

  const prism: Prism = {
    baseUrl,
    pid: child.pid!,
    violations: [],
    requestViolations: [],
    exchanges: 0,
    note(method, path, status, headers) {
      prism.exchanges++;
      const header = headers['sl-violations'];
      delete headers['sl-violations'];
      if (header === undefined) return;
      let found: PrismViolation[];
      try {
        found = JSON.parse(String(header)) as PrismViolation[];
      } catch {
        prism.violations.push(`${method} ${path} -> ${status}: an sl-violations header that is not JSON: ${String(header)}`);
        return;
      }
      // Nothing is filtered: across the Python client's and the CLI's suites (about 145 exchanges) Prism finds no
      // answer of the service in breach, so none of its findings is taken for a limitation of its own.
      for (const v of found) {
        const line = `${method} ${path} -> ${status}: ${v.location.join('.')}: ${v.message}${v.code !== undefined ? ` (${v.code})` : ''}`;
        (v.location[0] === 'request' ? prism.requestViolations : prism.violations).push(line);
      }
    },
    async close() {
      process.off('exit', stopAtExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
      child.kill();
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 5000).unref())]);
    },
  };
  return prism;
}
