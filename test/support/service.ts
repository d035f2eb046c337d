/** `npm start` as a separate process, the way a user runs it, for the end-to-end tests. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT } from '../../local/stack.ts';

/**
 * Java's own setting for a service or CLI run that lives as long as a test: DynamoDB Local gets the quick compiler
 * only, as a test file's stack does (local/dynamodb.ts, shortLived), since a JVM that lives a minute spends more CPU
 * in the optimizing compiler than in serving. The service itself runs unchanged, as a user starts it.
 */
export const QUICK_JAVA = { JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1' };

export interface Service {
  child: ChildProcess;
  output: () => string;
}

/** Starts bin/local.ts on `port` with `dataDir` (and extra settings) and waits for its ready line. */
export async function startService(port: number, dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, POWERTOOLS_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'CRITICAL', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 60_000;
  while (!/^ready$/m.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not get ready:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out };
}

/** Stops it as Ctrl-C does; resolves with its exit code. */
export function stopService(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill(signal);
  return exited;
}

/** The pids of the DynamoDB Local Java processes (not their shells) serving `dataDir`. */
export function javaPidsOf(dataDir: string): number[] {
  const out = spawnSync('pgrep', ['-f', `^java .*DynamoDBLocal.jar.*${dataDir}`])
    .stdout.toString()
    .trim();
  return out ? out.split('\n').map(Number) : [];
}

/** The same as text, empty when none is left. */
export const javaOf = (dataDir: string) => javaPidsOf(dataDir).join('\n');

/** The operator CLI against `dataDir`; its one JSON line. */
export function admin(dataDir: string, ...args: string[]): any {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...QUICK_JAVA, DATA_DIR: dataDir, TABLE_NAME: '' },
    encoding: 'utf8',
  });
  return JSON.parse(res.stdout.trim().split('\n').at(-1)!);
}
