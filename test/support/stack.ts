/**
 * Test support: one real local stack per test file (DynamoDB Local in memory, s3rver in a temporary folder, the Step
 * Functions endpoint, the gateway on a free loopback port), and a small HTTP client for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { startLocalStack, type LocalStack } from '../../local/stack.ts';
import { ORIGIN_VERIFY } from '../../functions/edge/table.ts';
import { BUCKET_GRANTS } from '../../lib/access.ts';
import { checkFetchesTo, contractProxy, type ContractProxy } from './contract.ts';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestStack {
  stack: LocalStack;
  baseUrl: string;
  /** With `viaPrism`: the proxy (Prism behind it) every call to `baseUrl` goes through. */
  contract?: ContractProxy;
  api(method: string, path: string, opts?: { key?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** A new user made directly through the adapters (as the operator CLI does). */
  user(opts?: { balance?: number; trialVideos?: number; plan?: { name: string; heavyPerMonth: number } }): Promise<{ userId: string; apiKey: string }>;
}

/**
 * Starts the stack before the file's tests and stops it (and its Java child) after them. With `originVerify` it serves
 * as a stage with the edge, and `api` sends the origin-verify header as CloudFront would; `dynamoFaults` puts the
 * stand-in for DynamoDB's throttling and outages in front of DynamoDB Local (`stack.dynamo`). With `viaPrism`,
 * `baseUrl` is a contract proxy with Prism behind it (test/support/contract.ts): every exchange of the file, the
 * clients' included, is checked by both, and the file fails after its tests when either found an answer in breach.
 */
export function useStack(env: Record<string, string> = {}, opts: { originVerify?: string; dynamoFaults?: boolean; viaPrism?: boolean } = {}): TestStack {
  const dir = mkdtempSync(join(tmpdir(), 'video-service-test-'));
  const t = {} as TestStack;
  const origin = opts.originVerify;
  let stopChecking: (() => void) | undefined;
  before(async () => {
    t.stack = await startLocalStack({
      bucketGrants: BUCKET_GRANTS,
      shortLived: true,
      port: 0,
      s3Dir: join(dir, 's3'),
      ...(opts.originVerify ? { originVerify: opts.originVerify } : {}),
      ...(opts.dynamoFaults ? { dynamoFaults: true } : {}),
      // GETs per key are lifted: waitForStatus polls 4 times a second per order, as no client does (the GET limit's
      // own test sets a small one).
      env: { POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'CRITICAL', LIMIT_GETS_PER_MINUTE: '1000000', ...env },
    });
    t.baseUrl = t.stack.baseUrl;
    if (opts.viaPrism) {
      t.contract = await contractProxy(t.stack.baseUrl);
      t.baseUrl = t.contract.baseUrl;
    }
    stopChecking = checkFetchesTo(t.baseUrl);
  });
  after(async () => {
    stopChecking?.();
    t.contract?.close();
    await t.stack?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (t.contract?.violations.length) throw new Error(`answers in breach of the document:\n${t.contract.violations.join('\n')}`);
  });
  t.api = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (origin) headers[ORIGIN_VERIFY.header] ??= origin;
    let body: string | Buffer | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const payload = typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
    const res = await fetch(t.baseUrl + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  t.user = async (opts = {}) => {
    const { services } = await import('../../functions/app/services.ts');
    return services().stores.accounts.createUser({
      balance: opts.balance ?? 0,
      trialVideos: opts.trialVideos ?? 0,
      ...(opts.plan ? { plan: opts.plan } : {}),
      now: new Date(),
    });
  };
  return t;
}

export interface WindowRun<T> {
  result: T;
  /** The start (ms) of the one fixed minute window of the POST limit that every request of the run fell in. */
  windowStart: number;
}

/**
 * Runs `attempt` (requests only, no assertions; it makes its own user) until one run falls inside one fixed minute
 * window of the POST limit, and returns that run. The stack runs in this process on this clock, so each request's
 * time lies between the run's measured start and end: when both are in one window, so is every request. A run that
 * spans a boundary is run again; runs under 30 s each mean the second run cannot span one too.
 */
export async function inOneWindow<T>(attempt: () => Promise<T>): Promise<WindowRun<T>> {
  for (let run = 1; run <= 2; run++) {
    const started = Date.now();
    const result = await attempt();
    const ended = Date.now();
    if (ended - started >= 30_000) throw new Error(`a run took ${ended - started} ms; the scheme needs runs under 30 s`);
    if (Math.floor(started / 60_000) === Math.floor(ended / 60_000)) return { result, windowStart: Math.floor(started / 60_000) * 60_000 };
  }
  throw new Error('two runs in a row spanned a minute boundary');
}

/**
 * The bounds of the Retry-After (seconds to the window's end, at least 1) of a 429 whose request was sent at `sent`
 * and answered at `answered` (ms) in the window starting at `windowStart`: the server's clock read lies in between.
 */
export function retryAfterBounds(windowStart: number, sent: number, answered: number): [number, number] {
  const left = (at: number) => Math.max(1, Math.ceil((windowStart + 60_000 - at) / 1000));
  return [left(answered), left(sent)];
}

/** Asserts the spec's error envelope and returns its code. */
export function errorCode(res: ApiResponse): string {
  const e = res.body?.error;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string') {
    throw new Error(`not an error envelope (${res.status}): ${res.text.slice(0, 300)}`);
  }
  return e.code;
}

/** Polls GET /videos/{id} until the order reaches one of `statuses` (or fails the test after `ms`). */
export async function waitForStatus(t: TestStack, key: string, id: string, statuses: string[], ms = 60_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await t.api('GET', `/videos/${id}`, { key });
    if (statuses.includes(res.body?.status)) return res.body;
    if (Date.now() > end) throw new Error(`order ${id} is ${res.body?.status}, not ${statuses.join('/')} after ${ms} ms`);
    // Each poll is a request through the stack (key check, order read): 250 ms keeps the suite's CPU for its work.
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * GET /balance's answer for a live key with these money fields, `spent` doubloons charged to it this UTC month and no
 * spend limit or alert (the month read now: a test does not span a month's end).
 */
export const liveBalance = (fields: Record<string, unknown>, spent = 0) => ({
  ...fields,
  livemode: true,
  spend: { month: new Date().toISOString().slice(0, 7), spent },
});
