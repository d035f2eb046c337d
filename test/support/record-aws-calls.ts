/**
 * Preloaded into a command's own process (`node --import tsx --import ./test/support/record-aws-calls.ts bin/...`,
 * as runRecorded does): records the grant each AWS call of the process needs, as "<IAM action> on <resource>"
 * (aws-actions.ts), and writes them, one per line, to the file AWS_CALLS_FILE names when the process exits. The
 * command's clients are the ones instrumented here: functions/adapters/aws.ts makes one set per process.
 */
import { writeFileSync } from 'node:fs';
import { allClients } from '../../functions/adapters/aws.ts';
import { grantsOf } from './aws-actions.ts';

const file = process.env.AWS_CALLS_FILE;
if (!file) throw new Error('AWS_CALLS_FILE must name the file the calls are written to');
const calls = new Set<string>();
for (const client of Object.values(await allClients())) {
  (client.middlewareStack as { add: (mw: unknown, opts: object) => void }).add(
    (next: (a: unknown) => Promise<unknown>, context: { commandName: string }) => async (args: { input: Record<string, unknown> }) => {
      for (const grant of grantsOf(context.commandName, args.input)) calls.add(grant);
      return next(args);
    },
    { step: 'initialize', name: 'callRecorder' },
  );
}
process.on('exit', () => writeFileSync(file, [...calls].sort().join('\n')));
