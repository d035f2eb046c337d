/**
 * The two state machines run in memory, for the model-based test of the order lifecycle: the ASL files themselves,
 * interpreted one Task at a time when the test says so, with the executions' names, task tokens, their timeouts, Wait
 * states and Catch as Step Functions runs them. A Task whose handler does not settle at once (a render held by the test)
 * stays in flight: its execution is busy until the test finishes it, and a stopped or lost execution's Task in flight
 * goes on, as a Lambda invocation does when its execution is stopped. Left out: Retry (the steps' transient failures
 * are not modelled) and intrinsic functions (the ASL uses none).
 */
import { readFileSync } from 'node:fs';
import type { ExecutionState } from '../../functions/core/ports.ts';
import { STATE_MACHINES } from '../../functions/steps/table.ts';

type Json = any;
type MachineName = keyof typeof STATE_MACHINES;
/** A step handler by its `${Placeholder}`: the Task's payload in, its result out. */
export type Handlers = Record<string, (payload: Json) => Promise<Json>>;

const definitions = Object.fromEntries(
  Object.entries(STATE_MACHINES).map(([name, m]) => [name, JSON.parse(readFileSync(new URL(`../../${m.file}`, import.meta.url), 'utf8'))]),
) as Record<MachineName, { StartAt: string; States: Record<string, Json> }>;

interface Execution {
  name: string;
  machine: MachineName;
  state: string;
  data: Json;
  input: Json;
  status: 'running' | 'ended';
  /** A `.waitForTaskToken` Task waiting for its token, until `until` (epoch ms) when it times out. */
  token?: { token: string; until: number } | undefined;
  /** A Wait state, until epoch ms. */
  waitUntil?: number | undefined;
  /** Its Task in flight. */
  busy?: boolean;
}

/** A Task whose handler has not settled: the test finishes it. */
export interface InFlight {
  execution: string;
  state: string;
  promise: Promise<{ ok: true; value: Json } | { ok: false; error: Error }>;
}

const PENDING = Symbol('pending');
/** Every microtask settled: the memory ports never wait on a timer, so a handler still pending now waits on the test. */
const flush = () => new Promise<void>((r) => setImmediate(r));

function get(data: Json, path: string): Json {
  if (path === '$') return data;
  return path
    .slice(2)
    .split('.')
    .reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), data);
}

function put(data: Json, path: string | null | undefined, value: Json): Json {
  if (path === null) return data;
  if (path === undefined || path === '$') return value;
  const out = structuredClone(data);
  const parts = path.slice(2).split('.');
  let o = out;
  for (const k of parts.slice(0, -1)) o = o[k] ??= {};
  o[parts.at(-1)!] = value;
  return out;
}

function parameters(template: Json, data: Json, context: { name: string; token?: string }): Json {
  if (template === undefined) return data;
  if (typeof template !== 'object' || template === null) return template;
  const out: Json = {};
  for (const [k, v] of Object.entries(template)) {
    if (!k.endsWith('.$')) out[k] = parameters(v, data, context);
    else if (v === '$$.Execution.Name') out[k.slice(0, -2)] = context.name;
    else if (v === '$$.Task.Token') out[k.slice(0, -2)] = context.token;
    else out[k.slice(0, -2)] = get(data, v as string);
  }
  return out;
}

function matches(rule: Json, data: Json): boolean {
  if (rule.And) return rule.And.every((r: Json) => matches(r, data));
  const v = get(data, rule.Variable);
  if ('IsPresent' in rule) return (v !== undefined) === rule.IsPresent;
  if ('BooleanEquals' in rule) return v === rule.BooleanEquals;
  if ('StringEquals' in rule) return v === rule.StringEquals;
  throw new Error(`the engine does not know the rule ${JSON.stringify(rule)}`);
}

const errorNameOf = (err: unknown) => (err instanceof Error ? err.name : 'Error');

export class Engine {
  executions = new Map<string, Execution>();
  inFlight: InFlight[] = [];
  private tokens = 0;
  /** Names started, in order. */
  started: string[] = [];

  constructor(
    private readonly handlers: Handlers,
    private readonly now: () => number,
    /** The handlers the test may hold (by placeholder): only their Tasks are looked at for staying in flight. */
    private readonly mayHold: ReadonlySet<string> = new Set(),
  ) {}

  /** StartExecution: idempotent by name; true when it started the execution, false when one of that name was there. */
  start(machine: MachineName, name: string, input: Json): boolean {
    if (this.executions.has(name)) return false;
    const e: Execution = { name, machine, state: definitions[machine].StartAt, data: input, input, status: 'running' };
    this.executions.set(name, e);
    this.started.push(name);
    this.goTo(e, e.state);
    return true;
  }

  state(name: string): ExecutionState {
    const e = this.executions.get(name);
    return !e ? 'missing' : e.status === 'running' ? 'running' : 'ended';
  }

  stop(name: string): void {
    const e = this.executions.get(name);
    if (e?.status === 'running') this.end(e, 'ABORTED');
  }

  /**
   * Executions that ended failed or aborted, oldest first, as EventBridge's status-change events report them (the
   * world hands each to the recovery); the caller takes them.
   */
  ended: { machine: MachineName; name: string; input: Json; status: 'FAILED' | 'ABORTED' }[] = [];

  /** A local stop: every execution is lost; Tasks in flight die with the process. */
  loseAll(): void {
    this.executions.clear();
    this.ended = [];
    this.inFlight = [];
  }

  /** SendTaskSuccess: false when no wait holds the token (TaskTimedOut, InvalidToken). */
  async succeed(token: string, output: Json): Promise<boolean> {
    const e = [...this.executions.values()].find((x) => x.status === 'running' && x.token?.token === token);
    if (!e) return false;
    const def = definitions[e.machine].States[e.state];
    e.token = undefined;
    e.data = put(e.data, def.ResultPath, output);
    this.goTo(e, def.Next);
    return true;
  }

  /** Executions a step can move now (not waiting on a token or a timer, no Task in flight). */
  runnable(): string[] {
    const t = this.now();
    return [...this.executions.values()]
      .filter((e) => e.status === 'running' && !e.busy && !e.token && (e.waitUntil === undefined || e.waitUntil <= t))
      .map((e) => e.name);
  }

  /** The next moment a Wait state ends or a wait times out, if any. */
  nextDue(): number | undefined {
    const times = [...this.executions.values()]
      .filter((e) => e.status === 'running')
      .flatMap((e) => [e.waitUntil, e.token?.until].filter((t): t is number => t !== undefined));
    return times.length ? Math.min(...times) : undefined;
  }

  /** Timeouts: every token wait past its time fails with States.Timeout. */
  async tick(): Promise<void> {
    const t = this.now();
    for (const e of [...this.executions.values()]) {
      if (e.status === 'running' && e.token && e.token.until <= t) {
        e.token = undefined;
        this.fail(e, Object.assign(new Error('the wait timed out'), { name: 'States.Timeout' }));
      }
    }
  }

  /** Moves the execution through its next Task (Choice and Wait states on the way are passed at once). */
  async step(name: string): Promise<void> {
    const e = this.executions.get(name);
    if (!e || !this.runnable().includes(name)) throw new Error(`execution ${name} cannot move now`);
    e.waitUntil = undefined;
    const def = definitions[e.machine].States[e.state];
    if (def.Type === 'Wait') return this.goTo(e, def.Next);
    if (def.Type !== 'Task') throw new Error(`execution ${name} rests at a ${def.Type} state`);
    const waits = String(def.Resource).endsWith('.waitForTaskToken');
    const token = waits ? `tok-${++this.tokens}` : undefined;
    const payload = parameters(def.Parameters, e.data, { name, ...(token ? { token } : {}) });
    const placeholder = String(waits ? def.Parameters.FunctionName : def.Resource).replace(/^\$\{|\}$/g, '');
    const handler = this.handlers[placeholder];
    if (!handler) throw new Error(`no handler for ${placeholder}`);
    // The wait holds its token from the invocation on: the handler itself may complete it (an admission at once).
    if (token) {
      const timeout = def.TimeoutSecondsPath ? get(e.data, def.TimeoutSecondsPath) : def.TimeoutSeconds;
      e.token = { token, until: this.now() + timeout * 1000 };
    }
    const promise = handler(waits ? payload.Payload : payload).then(
      (value) => ({ ok: true as const, value }),
      (error: Error) => ({ ok: false as const, error }),
    );
    const settled = this.mayHold.has(placeholder) ? await Promise.race([promise, flush().then(() => PENDING as typeof PENDING)]) : await promise;
    if (typeof settled === 'symbol') {
      e.busy = true;
      this.inFlight.push({ execution: name, state: e.state, promise });
      return;
    }
    this.settle(e, settled, token);
  }

  /** Waits for a Task in flight (the test has let its handler go on) and applies its result, if its execution runs. */
  async finish(task: InFlight): Promise<void> {
    this.inFlight = this.inFlight.filter((t) => t !== task);
    const result = await task.promise;
    const e = this.executions.get(task.execution);
    if (!e?.busy || e.state !== task.state) return;
    e.busy = false;
    if (e.status === 'running') this.settle(e, result);
  }

  private settle(e: Execution, result: { ok: true; value: Json } | { ok: false; error: Error }, token?: string) {
    const def = definitions[e.machine].States[e.state];
    if (token) {
      // Completed meanwhile, or waiting: only a failed invocation still moves the wait.
      if (!result.ok && e.status === 'running' && e.token?.token === token) {
        e.token = undefined;
        this.fail(e, result.error);
      }
      return;
    }
    if (!result.ok) return this.fail(e, result.error);
    e.data = put(e.data, def.ResultPath, result.value);
    this.goTo(e, def.Next);
  }

  private fail(e: Execution, error: Error) {
    const def = definitions[e.machine].States[e.state];
    const name = errorNameOf(error);
    const c = (def.Catch ?? []).find((x: Json) => x.ErrorEquals.includes(name) || (x.ErrorEquals.includes('States.ALL') && name !== 'States.Runtime'));
    if (!c) return this.end(e, 'FAILED');
    e.data = put(e.data, c.ResultPath, { Error: name, Cause: error.message });
    this.goTo(e, c.Next);
  }

  /** Enters `next`, passing Choice states at once; an end state (or none) ends the execution. */
  private goTo(e: Execution, next: string | undefined): void {
    let state = next;
    for (;;) {
      const def = state === undefined ? undefined : definitions[e.machine].States[state];
      if (!def || def.Type === 'Succeed' || def.Type === 'Fail') {
        this.end(e, def?.Type === 'Fail' ? 'FAILED' : undefined);
        return;
      }
      e.state = state!;
      if (def.Type !== 'Choice') {
        if (def.Type === 'Wait') e.waitUntil = def.Seconds !== undefined ? this.now() + def.Seconds * 1000 : Date.parse(get(e.data, def.TimestampPath));
        return;
      }
      state = def.Choices.find((r: Json) => matches(r, e.data))?.Next ?? def.Default;
    }
  }

  private end(e: Execution, failed?: 'FAILED' | 'ABORTED') {
    e.status = 'ended';
    e.token = undefined;
    if (failed) this.ended.push({ machine: e.machine, name: e.name, input: e.input, status: failed });
  }
}
