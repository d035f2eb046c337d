/**
 * A local Step Functions endpoint: the JSON protocol of the actions the code uses, over HTTP, so the service reaches
 * it through @aws-sdk/client-sfn exactly as it reaches AWS. Executions run the same ASL file with
 * aws-local-stepfunctions, with each Task state's resource replaced by the step handler from the one step table.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StateMachine } from 'aws-local-stepfunctions';
import { recordAwsMetric } from './metrics.ts';

type Json = Record<string, unknown>;
export type TaskHandler = (input: unknown) => Promise<unknown>;

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  abort: () => void;
  /** States entered and retried: what AWS bills as state transitions. */
  transitions: number;
}

/** Step Functions' "Execution Status Change" event as EventBridge delivers it (the fields the service reads, and more). */
export interface StatusChangeEvent {
  version: '0';
  id: string;
  'detail-type': 'Step Functions Execution Status Change';
  source: 'aws.states';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    executionArn: string;
    stateMachineArn: string;
    name: string;
    status: Execution['status'];
    startDate: number;
    stopDate: number;
    input: string;
    inputDetails: { included: boolean };
    output: string | null;
    outputDetails: { included: boolean };
    error: string | null;
    cause: string | null;
  };
}

export interface LocalMachine {
  arn: string;
  definition: Json;
  /** Task state name -> handler. */
  tasks: Record<string, TaskHandler>;
  /** Task states that wait for their task token (`.waitForTaskToken`). */
  waitForToken: ReadonlySet<string>;
}

interface Waiter {
  executionArn: string;
  resolve: (output: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * aws-local-stepfunctions reads a Task's TimeoutSecondsPath from the input after Parameters, where AWS reads it from
 * the state's input. Copying the value into Parameters under the same path makes both read the same number.
 */
function alignTimeoutPaths(definition: Json): Json {
  for (const state of Object.values((definition.States ?? {}) as Record<string, Json>)) {
    const path = state.TimeoutSecondsPath;
    const params = state.Parameters as Json | undefined;
    if (typeof path === 'string' && params && /^\$\.\w+$/.test(path)) params[`${path.slice(2)}.$`] = path;
  }
  return definition;
}

/** A Task state's timeout in seconds, from TimeoutSeconds or (aligned into Parameters above) TimeoutSecondsPath. */
function timeoutOf(definition: Json, state: string): (input: unknown) => number | undefined {
  const s = ((definition.States ?? {}) as Record<string, Json>)[state] ?? {};
  if (typeof s.TimeoutSeconds === 'number') return () => s.TimeoutSeconds as number;
  const path = s.TimeoutSecondsPath;
  if (typeof path !== 'string' || !/^\$\.\w+$/.test(path)) return () => undefined;
  return (input) => {
    const value = (input as Json)[path.slice(2)];
    return typeof value === 'number' ? value : undefined;
  };
}

/**
 * StartExecution's rule for a name, as AWS documents it: 1-80 characters, none of them white space, a bracket, a
 * wildcard, one of " # % \ ^ | ~ ` $ & , ; : / or a control character. A name the service builds fails here as on AWS.
 */
const FORBIDDEN_IN_NAME = new Set('<>{}[]?*"#%\\^|~`$&,;:/');
const isControl = (c: string) => c.charCodeAt(0) <= 0x1f || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f);
export function validExecutionName(name: string): boolean {
  const chars = [...name];
  return chars.length >= 1 && chars.length <= 80 && !chars.some((c) => /\s/.test(c) || FORBIDDEN_IN_NAME.has(c) || isControl(c));
}

/** An AWS error answer: its `__type`, message and HTTP status (400 unless said). */
export class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export class LocalStepFunctions {
  private readonly executions = new Map<string, Execution>();
  private readonly waiters = new Map<string, Waiter>();
  /** Every token this endpoint handed out: one it never did is InvalidToken, one whose wait closed TaskTimedOut. */
  private readonly minted = new Set<string>();
  /**
   * Called before each API call acts, with its action and input: it may wait (a slow network) or throw an
   * `SfnError` (answered with its status, as AWS would). None by default; test/support/sfn-faults.ts installs one.
   */
  intercept: ((action: string, input: Json) => Promise<void>) | undefined = undefined;
  private readonly machines = new Map<string, { machine: LocalMachine; engine: StateMachine }>();
  private server = createServer((req, res) => void this.serve(req, res));
  /** Who hears executions end, as EventBridge's status-change events reach their rules' targets on AWS. */
  private readonly endListeners = new Set<(event: StatusChangeEvent) => void>();
  private stopping = false;

  /**
   * With `hold`, executions are accepted and stay RUNNING without running a state: benchmarks and tests of the API
   * alone use it so that no video renders in the background.
   */
  constructor(
    machines: LocalMachine[],
    private readonly hold = false,
  ) {
    for (const m of machines) {
      const definition = alignTimeoutPaths(structuredClone(m.definition));
      this.machines.set(m.arn, { machine: m, engine: new StateMachine(definition as never, { validationOptions: { checkArn: false } }) });
    }
  }

  private port = 0;

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * A real outage for the tests: the endpoint stops listening (calls are refused, as when Step Functions cannot be
   * reached) while its executions go on; `listen` brings it back on the same port.
   */
  async goAway(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /**
   * Calls `listener` with Step Functions' "Execution Status Change" event, as EventBridge sends it, whenever an
   * execution ends (SUCCEEDED, FAILED or ABORTED; this engine has no execution timeout), a moment after it ended, as
   * EventBridge delivers; not for the executions the endpoint's own stop ends. Returns the function that stops it.
   */
  onEnded(listener: (event: StatusChangeEvent) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  private ended(e: Execution): void {
    if (this.stopping) return;
    const metric = { SUCCEEDED: 'ExecutionsSucceeded', FAILED: 'ExecutionsFailed', ABORTED: 'ExecutionsAborted', RUNNING: undefined }[e.status];
    if (metric) recordAwsMetric('AWS/States', metric, { StateMachineArn: e.stateMachineArn });
    if (this.hold) return;
    const [, , , region, account] = e.stateMachineArn.split(':');
    const event: StatusChangeEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Step Functions Execution Status Change',
      source: 'aws.states',
      account: account ?? '',
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: region ?? '',
      resources: [e.executionArn],
      detail: {
        executionArn: e.executionArn,
        stateMachineArn: e.stateMachineArn,
        name: e.name,
        status: e.status,
        startDate: Math.round(e.startDate * 1000),
        stopDate: Math.round((e.stopDate ?? Date.now() / 1000) * 1000),
        input: e.input,
        inputDetails: { included: true },
        output: e.output ?? null,
        outputDetails: { included: true },
        error: e.error ?? null,
        cause: e.cause ?? null,
      },
    };
    for (const listener of this.endListeners) setImmediate(() => listener(event));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const e of this.executions.values()) if (e.status === 'RUNNING') e.abort();
    // A wait still pending would keep its (days-long) timeout timer alive: end it with its aborted execution.
    for (const [token, w] of this.waiters) {
      this.waiters.delete(token);
      w.reject(Object.assign(new Error('The local Step Functions endpoint stopped'), { name: 'States.Runtime' }));
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * One execution lost as a stop of this process loses every execution: it ends with no status-change event, and
   * Step Functions no longer knows it (DescribeExecution: ExecutionDoesNotExist; its task tokens: TaskTimedOut).
   */
  lose(executionArn: string): void {
    const e = this.execution(executionArn);
    if (e.status === 'RUNNING') {
      e.status = 'ABORTED';
      e.abort();
    }
    this.executions.delete(executionArn);
  }

  /** The names of a state machine's executions started so far: a test counts what its calls started. */
  executionNames(stateMachineArn: string): string[] {
    return [...this.executions.values()].filter((e) => e.stateMachineArn === stateMachineArn).map((e) => e.name);
  }

  /** Executions still running. */
  get running(): number {
    return [...this.executions.values()].filter((e) => e.status === 'RUNNING').length;
  }

  private async serve(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const action = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
    let status = 200;
    let body: Json;
    try {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Json;
      await this.intercept?.(action, input);
      body = this.dispatch(action, input);
    } catch (err) {
      status = err instanceof SfnError ? err.status : 400;
      body = err instanceof SfnError ? { __type: err.type, message: err.message } : { __type: 'InvalidRequest', message: String(err) };
    }
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(body));
  }

  private dispatch(action: string, input: Json): Json {
    switch (action) {
      case 'StartExecution':
        return this.startExecution(input);
      case 'DescribeExecution':
        return this.describe(this.execution(String(input.executionArn)));
      case 'StopExecution': {
        const e = this.execution(String(input.executionArn));
        if (e.status === 'RUNNING') {
          e.abort();
          Object.assign(e, { status: 'ABORTED', stopDate: Date.now() / 1000, error: input.error, cause: input.cause });
          this.ended(e);
        }
        return { stopDate: e.stopDate };
      }
      case 'SendTaskSuccess':
        this.waiter(String(input.taskToken)).resolve(JSON.parse(String(input.output ?? 'null')));
        return {};
      case 'SendTaskFailure': {
        const err = new Error(String(input.cause ?? ''));
        err.name = String(input.error ?? 'TaskFailed');
        this.waiter(String(input.taskToken)).reject(err);
        return {};
      }
      case 'SendTaskHeartbeat':
        this.waiter(String(input.taskToken), false);
        return {};
      default:
        throw new SfnError('UnknownOperationException', `Action ${action} is not supported by the local endpoint`);
    }
  }

  /**
   * The wait a token belongs to. As on AWS: a token never handed out is InvalidToken; one whose wait was completed,
   * timed out or ended with its execution is TaskTimedOut.
   */
  private waiter(token: string, take = true): Waiter {
    if (!this.minted.has(token)) throw new SfnError('InvalidToken', 'Invalid token');
    const w = this.waiters.get(token);
    if (!w) throw new SfnError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");
    if (this.executions.get(w.executionArn)?.status !== 'RUNNING') {
      this.waiters.delete(token);
      throw new SfnError('TaskTimedOut', 'Task timed out');
    }
    if (take) this.waiters.delete(token);
    return w;
  }

  /**
   * A `.waitForTaskToken` Task: hand the handler a fresh token, then wait for SendTaskSuccess or SendTaskFailure.
   * When the state's timeout passes, the engine raises States.Timeout and the execution goes on; the token closes
   * then, as on AWS, so that a late SendTaskSuccess is TaskTimedOut rather than an answer no one reads.
   */
  private waitingTask(executionArn: string, handler: TaskHandler, timeout: (input: unknown) => number | undefined): TaskHandler {
    return async (input) => {
      const { Payload } = input as { Payload?: Record<string, unknown> };
      const token = randomUUID();
      this.minted.add(token);
      const done = new Promise<unknown>((resolve, reject) => this.waiters.set(token, { executionArn, resolve, reject }));
      const seconds = timeout(input);
      // (Beyond setTimeout's 24.8 days a timer would fire at once: such waits simply keep their token.)
      if (seconds !== undefined && seconds * 1000 < 2 ** 31) {
        const timer = setTimeout(() => this.waiters.delete(token), seconds * 1000);
        timer.unref();
        done.then(
          () => clearTimeout(timer),
          () => clearTimeout(timer),
        );
      }
      try {
        await handler({ ...(Payload ?? (input as object)), taskToken: token });
      } catch (err) {
        // The wait never began: forget its token, so that no one waits on it (or rejects it at stop) later.
        this.waiters.delete(token);
        done.catch(() => undefined);
        throw err;
      }
      return done;
    };
  }

  /** State transitions of an execution so far (states entered plus retries). */
  transitions(executionArn: string): number {
    return this.executions.get(executionArn)?.transitions ?? 0;
  }

  /** State transitions of every execution so far, of every state machine. */
  totalTransitions(): number {
    return [...this.executions.values()].reduce((sum, e) => sum + e.transitions, 0);
  }

  private execution(arn: string): Execution {
    const e = this.executions.get(arn);
    if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution does not exist: ${arn}`);
    return e;
  }

  private startExecution(input: Json): Json {
    const arn = String(input.stateMachineArn);
    const entry = this.machines.get(arn);
    if (!entry) throw new SfnError('StateMachineDoesNotExist', `State machine does not exist: ${arn}`);
    const name = String(input.name ?? crypto.randomUUID());
    if (!validExecutionName(name)) throw new SfnError('InvalidName', `Invalid Name: '${name}'`);
    const executionArn = `${arn.replace(':stateMachine:', ':execution:')}:${name}`;
    const rawInput = String(input.input ?? '{}');
    const existing = this.executions.get(executionArn);
    if (existing) {
      // As on AWS for standard workflows: the same name and input of a running execution is the same start.
      if (existing.status === 'RUNNING' && existing.input === rawInput) {
        return { executionArn, startDate: existing.startDate };
      }
      throw new SfnError('ExecutionAlreadyExists', `Execution already exists: ${executionArn}`);
    }
    const startDate = Date.now() / 1000;
    recordAwsMetric('AWS/States', 'ExecutionsStarted', { StateMachineArn: arn });
    if (this.hold) {
      this.executions.set(executionArn, {
        executionArn,
        stateMachineArn: arn,
        name,
        input: rawInput,
        status: 'RUNNING',
        startDate,
        abort: () => undefined,
        transitions: 0,
      });
      return { executionArn, startDate };
    }
    const { machine } = entry;
    const tasks = Object.fromEntries(
      Object.entries(machine.tasks).map(([state, fn]) => [
        state,
        machine.waitForToken.has(state) ? this.waitingTask(executionArn, fn, timeoutOf(machine.definition, state)) : fn,
      ]),
    );
    const run = entry.engine.run(JSON.parse(rawInput), {
      overrides: { taskResourceLocalHandlers: tasks as never },
      noThrowOnAbort: true,
      // $$.Task.Token is minted per wait by waitingTask; the library only needs the path to exist.
      context: {
        Execution: { Id: executionArn, Name: name, Input: JSON.parse(rawInput), StartTime: new Date().toISOString() },
        Task: { Token: 'local' },
      } as never,
    });
    const execution: Execution = { executionArn, stateMachineArn: arn, name, input: rawInput, status: 'RUNNING', startDate, abort: run.abort, transitions: 0 };
    this.executions.set(executionArn, execution);
    void (async () => {
      for await (const event of run.eventLogs) {
        if (event.type === 'StateEntered' || event.type === 'StateRetried') execution.transitions++;
      }
    })().catch(() => undefined);
    run.result.then(
      (output) => {
        if (execution.status !== 'RUNNING') return;
        Object.assign(execution, { status: 'SUCCEEDED', stopDate: Date.now() / 1000, output: JSON.stringify(output ?? null) });
        this.ended(execution);
      },
      (err: Error & { cause?: unknown }) => {
        if (execution.status !== 'RUNNING') return;
        Object.assign(execution, { status: 'FAILED', stopDate: Date.now() / 1000, error: err.name, cause: String(err.cause ?? err.message) });
        this.ended(execution);
      },
    );
    return { executionArn, startDate };
  }

  private describe(e: Execution): Json {
    const { abort: _abort, transitions: _t, ...rest } = e;
    return rest;
  }

  /** Settles when no execution is running (or after `ms`). */
  async idle(ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    while (this.running > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  }
}
