/**
 * Money, limits and capacity under any sequence of operations: fast-check's model-based commands
 * (lifecycle-commands.ts) drive random sequences by three keys (one request at a time, or two of one key at once, their
 * account reads and writes interleaved by fast-check's scheduler) against the order lifecycle on the in-memory ports, the
 * invariants checked after every command and at rest, the render queue in one shard or two. A counterexample is shrunk and printed; each hole found became
 * a named test in lifecycle-regressions.test.ts. LIFECYCLE_RUNS sets the number of sequences (2,000 by default, as in `npm test`; 300 in `npm run test:unit`),
 * LIFECYCLE_SEED replays a run.
 */
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { commandArbs, reached, runSequence } from './lifecycle-commands.ts';

const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 2000);
const MAX_COMMANDS = 60;

describe('the order lifecycle under random sequences of operations (in memory)', () => {
  it(`keeps money, limits and capacity in ${RUNS} sequences`, async () => {
    const started = Date.now();
    const runs = { 1: 0, 2: 0 };
    await fc.assert(
      // The render queue in one shard (as up to 8 slots are) or two of one slot each (every admission across them a steal).
      fc.asyncProperty(fc.constantFrom(1 as const, 2 as const), fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }), async (shards, cmds) => {
        runs[shards]++;
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
      `lifecycle model: ${runs[1] + runs[2]} sequences of up to ${MAX_COMMANDS} commands (${runs[1]} with the render queue in one shard, ${runs[2]} in two), 0 violations, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
