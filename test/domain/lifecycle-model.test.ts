/**
 * Money, limits and capacity under any sequence of operations: fast-check's model-based commands
 * (lifecycle-commands.ts) drive random sequences by three keys against the order lifecycle on the in-memory ports, the
 * invariants checked after every command and at rest. A counterexample is shrunk and printed; each hole found became
 * a named test in lifecycle-regressions.test.ts. LIFECYCLE_RUNS sets the number of sequences (2,000 by default),
 * LIFECYCLE_SEED replays a run.
 */
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { commandArbs, reached, runSequence } from './lifecycle-commands.ts';

const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 2000);
const MAX_COMMANDS = 60;

describe('the order lifecycle under random sequences of operations (in memory)', () => {
  // One shard is the queue of up to 8 slots; two shards of one slot each make every cross-shard admission a steal.
  for (const shards of [1, 2]) {
    it(`keeps money, limits and capacity in ${RUNS} sequences, the render queue in ${shards} shard${shards > 1 ? 's' : ''}`, async () => {
      const started = Date.now();
      let runs = 0;
      reached.clear();
      await fc.assert(
        fc.asyncProperty(fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }), async (cmds) => {
          runs++;
          await runSequence(cmds, shards);
        }),
        { numRuns: RUNS, ...(process.env.LIFECYCLE_SEED ? { seed: Number(process.env.LIFECYCLE_SEED) } : {}) },
      );
      console.log(
        [...reached]
          .sort()
          .map(([k, v]) => `  ${k}: ${v}`)
          .join('\n'),
      );
      console.log(
        `lifecycle model, ${shards} shard(s): ${runs} sequences of up to ${MAX_COMMANDS} commands, 0 violations, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });
  }
});
