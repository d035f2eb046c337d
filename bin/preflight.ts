/**
 * The checks to run before `cdk deploy` of a stage (the pipeline runs them; docs/deploy.md): today one, whether the
 * account's Lambda concurrency lets the render function reserve the stage's renderSlots (lib/preflight.ts decides).
 * Reads the stage's settings as `cdk synth` does, asks Lambda for the account's quota, and CloudFormation and Lambda for
 * what the stack's render function reserves today (nothing before the stack's first create).
 *
 *   npm run -s preflight -- --stage prod [-c renderSlots=3]
 *
 * Exit 0: the deploy can reserve. 1: it cannot; the lines printed say how much to ask for, with the exact command, and
 * which setting to lower. 2: the check itself could not run (bad arguments, no credentials).
 * Permissions: lambda:GetAccountSettings, cloudformation:DescribeStacks on the stack, lambda:GetFunctionConcurrency.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { App } from 'aws-cdk-lib';
import { parseArgs } from 'node:util';
import { concurrencyAdvice, concurrencyVerdict } from '../lib/preflight.ts';
import { settingsOf, stackNameOf } from '../lib/settings.ts';

function stop(message: string): never {
  console.error(`preflight: ${message}`);
  process.exit(2);
}

let settings: ReturnType<typeof settingsOf>;
try {
  const { values } = parseArgs({
    options: { stage: { type: 'string', default: 'dev' }, context: { type: 'string', short: 'c', multiple: true, default: [] } },
  });
  const context: Record<string, string> = { stage: values.stage };
  for (const kv of values.context) {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`-c takes key=value, got "${kv}"`);
    context[kv.slice(0, at)] = kv.slice(at + 1);
  }
  settings = settingsOf(new App({ context }).node);
} catch (err) {
  stop(`${(err as Error).message}\nusage: npm run -s preflight -- --stage <name> [-c key=value ...]`);
}

const { region, stage, renderSlots } = settings;
const stackName = stackNameOf(stage);
const lambda = new LambdaClient({ region });
const cloudFormation = new CloudFormationClient({ region });

/** What the stack's render function reserves today: 0 when the stack or its function does not exist yet. */
async function heldByRender(): Promise<number> {
  let outputs: { OutputKey?: string; OutputValue?: string }[];
  try {
    outputs = (await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0]?.Outputs ?? [];
  } catch (err) {
    if ((err as Error).name === 'ValidationError' && /does not exist/.test((err as Error).message)) return 0;
    throw err;
  }
  const name = outputs.find((o) => o.OutputKey === 'RenderFunctionName')?.OutputValue;
  // A stack whose create rolled back has no outputs, and nothing reserved.
  if (!name) return 0;
  return (await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: name }))).ReservedConcurrentExecutions ?? 0;
}

let facts: Parameters<typeof concurrencyVerdict>[0];
try {
  const [{ AccountLimit }, held] = await Promise.all([lambda.send(new GetAccountSettingsCommand({})), heldByRender()]);
  facts = { quota: AccountLimit?.ConcurrentExecutions ?? 0, unreserved: AccountLimit?.UnreservedConcurrentExecutions ?? 0, held, wanted: renderSlots };
} catch (err) {
  stop(`could not read the account's Lambda concurrency in ${region} (${(err as Error).name}: ${(err as Error).message})`);
}
const verdict = concurrencyVerdict(facts);
for (const line of concurrencyAdvice(facts, verdict, { stage: stackName, region })) console.log(line);
process.exit(verdict.ok ? 0 : 1);
