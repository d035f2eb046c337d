/**
 * The IAM side of the AWS calls a process makes, for the tests that check grants against what the code really does
 * (test/infra/access.test.ts for the functions, test/infra/operator-access.test.ts for the operator CLI and the smoke
 * test): the actions one SDK call needs, and what it acts on.
 */
// biome-ignore-all lint/suspicious/noExplicitAny: SDK inputs are read field by field.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../../lib/paths.ts';

/** The IAM actions one SDK call needs: a transaction needs the action of each of its items. */
export function actionsOf(commandName: string, input: Record<string, any>): string[] {
  const name = commandName.replace(/Command$/, '');
  if (name === 'TransactWriteItems') {
    return (input.TransactItems as Record<string, unknown>[]).map((item) => {
      const kind = Object.keys(item)[0];
      return `dynamodb:${kind === 'Put' ? 'PutItem' : kind === 'Update' ? 'UpdateItem' : kind === 'Delete' ? 'DeleteItem' : 'ConditionCheckItem'}`;
    });
  }
  const s3: Record<string, string> = {
    HeadObject: 's3:GetObject',
    GetObject: 's3:GetObject',
    PutObject: 's3:PutObject',
    ListObjectsV2: 's3:ListBucket',
    // A multi-object delete is authorized per object, as s3:DeleteObject.
    DeleteObjects: 's3:DeleteObject',
    DeleteObject: 's3:DeleteObject',
  };
  if (s3[name]) return [s3[name]];
  // A copy reads its source and writes its key.
  if (name === 'CopyObject') return ['s3:PutObject', 's3:GetObject'];
  if (name === 'StartExecution') return [`states:StartExecution:${String(input.stateMachineArn).split(':').at(-1)}`];
  if (name === 'SendTaskSuccess' || name === 'SendTaskFailure') return [`states:${name}`];
  if (name === 'DescribeExecution') return [`states:DescribeExecution:${String(input.executionArn).split(':').at(-2)}`];
  if (name === 'StopExecution') return [`states:StopExecution:${String(input.executionArn).split(':').at(-2)}`];
  if (name === 'Invoke') return [`lambda:InvokeFunction:${String(input.FunctionName).split(':').at(-1)}`];
  return [`dynamodb:${name.replace(/^(Get|Put|Update|Delete)$/, '$1Item')}`];
}

/** A stack output's placeholder, as docs/deploy.md writes resources: `<TableName>`, `<OrderStateMachineArn>`. */
const machineArn = (machine: string) => `<${machine[0]!.toUpperCase()}${machine.slice(1)}StateMachineArn>`;

/**
 * The grants one SDK call needs, as "<IAM action> on <resource>" with the resource written as in docs/deploy.md:
 * `table/<TableName>`, `table/<TableName>/index/<index>`, `<BucketName>`, `<BucketName>/<prefix>/*`, or a state
 * machine's ARN (its executions' for DescribeExecution and StopExecution).
 */
export function grantsOf(commandName: string, input: Record<string, any>): string[] {
  const keys: string[] = [input.Key, input.Prefix, ...(input.Delete?.Objects ?? []).map((o: { Key: string }) => o.Key)].filter(Boolean);
  if (commandName === 'CopyObjectCommand') {
    return [`s3:PutObject on <BucketName>/${String(input.Key).split('/')[0]}/*`, `s3:GetObject on <BucketName>/${String(input.CopySource).split('/')[1]}/*`];
  }
  return actionsOf(commandName, input).flatMap((a) => {
    const [service, action, machine] = a.split(':') as [string, string, string?];
    if (machine) return [`${service}:${action} on ${action === 'StartExecution' ? '' : 'executions of '}${machineArn(machine)}`];
    // A task token names no machine: the action takes no resource type, so AWS documents it on * (lib/access.ts).
    if (action === 'SendTaskSuccess') return [`${a} on *`];
    if (service === 'dynamodb') return [`${a} on table/<TableName>${input.IndexName ? `/index/${input.IndexName}` : ''}`];
    if (action === 'ListBucket') return [`${a} on <BucketName>`];
    if (service === 's3') return [...new Set(keys.map((k) => `${a} on <BucketName>/${k.split('/')[0]}/*`))];
    return [a];
  });
}

/**
 * Runs a command of bin/ in its own process with its AWS calls recorded (record-aws-calls.ts): its exit code, its
 * output and the grants its calls needed. Asynchronous: the local stack it calls runs in the test's process.
 */
export async function runRecorded(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; out: string; grants: string[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'aws-calls-')), 'calls.txt');
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/support/record-aws-calls.ts', script, ...args], {
    cwd: ROOT,
    env: { ...env, AWS_CALLS_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const [code] = (await once(child, 'close')) as [number];
  const grants = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  rmSync(dirname(file), { recursive: true, force: true });
  return { code, out, grants };
}

/**
 * The grants docs/deploy.md lists for the operators and the pipeline, by the command that needs them: the rows of its
 * table "| IAM action | resource | needed by |".
 */
export function documentedGrants(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| IAM action | resource | needed by |'));
  const rows = table
    .split('\n')
    .slice(2)
    .filter((l) => l.startsWith('| `'));
  const byCommand = new Map<string, Set<string>>();
  for (const row of rows) {
    const [action, resource, commands] = row
      .split('|')
      .slice(1, 4)
      .map((c) => c.trim()) as [string, string, string];
    // A row's note in parentheses says when a command needs it; the command is named before it.
    for (const command of commands.split(',').map((c) => c.replace(/\s*\(.*\)$/, '').trim()))
      (byCommand.get(command) ?? byCommand.set(command, new Set()).get(command)!).add(`${action.replaceAll('`', '')} on ${resource.replaceAll('`', '')}`);
  }
  return byCommand;
}
