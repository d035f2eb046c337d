/**
 * The checks to run before `cdk deploy` of a stage (the pipeline runs them; docs/deploy.md): whether the account's
 * Lambda concurrency lets the render function reserve the stage's renderSlots and testRenderSlots and the delivery
 * function its deliveryConcurrency, and, with the edge on, a warning when the stack has no CloudFront distribution yet
 * (a new account can be refused one until AWS verifies it); lib/preflight.ts decides. Reads the stage's settings as
 * `cdk synth` does, asks Lambda for the account's quota, and CloudFormation and Lambda for what the stack's functions
 * reserve today and its outputs (nothing before the stack's first create).
 *
 *   npm run -s preflight -- --stage prod [-c renderSlots=3]
 *
 * Exit 0: the deploy can reserve (a CloudFront warning does not change it). 1: it cannot; the lines printed say how much to ask for, with the exact command, and
 * which setting to lower. 2: the check itself could not run (bad arguments, no credentials).
 * Permissions: lambda:GetAccountSettings, cloudformation:DescribeStacks on the stack, lambda:GetFunctionConcurrency.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetAccountSettingsCommand, GetFunctionConcurrencyCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { App } from 'aws-cdk-lib';
import { parseArgs } from 'node:util';
import { concurrencyAdvice, concurrencyVerdict, edgeAdvice, RESERVING } from '../lib/preflight.ts';
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

const { region, stage } = settings;
const stackName = stackNameOf(stage);
const lambda = new LambdaClient({ region });
const cloudFormation = new CloudFormationClient({ region });

type Outputs = { OutputKey?: string | undefined; OutputValue?: string | undefined }[];
/** The stack's outputs: none when it does not exist yet. */
async function stackOutputs(): Promise<Outputs> {
  try {
    return (await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0]?.Outputs ?? [];
  } catch (err) {
    if ((err as Error).name === 'ValidationError' && /does not exist/.test((err as Error).message)) return [];
    throw err;
  }
}

/** What the stack's reserving functions reserve today: 0 when the stack or a function does not exist yet. */
async function heldByStack(outputs: Outputs): Promise<number> {
  let held = 0;
  for (const { output } of RESERVING) {
    const name = outputs.find((o) => o.OutputKey === output)?.OutputValue;
    // A stack whose create rolled back has no outputs, and nothing reserved; one from before an output has none for it.
    if (name) held += (await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: name }))).ReservedConcurrentExecutions ?? 0;
  }
  return held;
}

let facts: Parameters<typeof concurrencyVerdict>[0];
let outputs: Outputs = [];
try {
  const [{ AccountLimit }, held] = await Promise.all([
    lambda.send(new GetAccountSettingsCommand({})),
    stackOutputs().then((o) => {
      outputs = o;
      return heldByStack(o);
    }),
  ]);
  facts = {
    quota: AccountLimit?.ConcurrentExecutions ?? 0,
    unreserved: AccountLimit?.UnreservedConcurrentExecutions ?? 0,
    held,
    wanted: { renderSlots: settings.renderSlots, testRenderSlots: settings.testRenderSlots, deliveryConcurrency: settings.deliveryConcurrency },
  };
} catch (err) {
  stop(`could not read the account's Lambda concurrency in ${region} (${(err as Error).name}: ${(err as Error).message})`);
}
const verdict = concurrencyVerdict(facts);
for (const line of concurrencyAdvice(facts, verdict, { stage: stackName, region })) console.log(line);
const distributionId = outputs.find((o) => o.OutputKey === 'DistributionId')?.OutputValue;
for (const line of edgeAdvice({ stack: stackName, edge: settings.edge.enabled, ...(distributionId ? { distributionId } : {}) })) console.log(line);
process.exit(verdict.ok ? 0 : 1);
