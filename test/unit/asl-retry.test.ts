/** Every Task state's Retry is one of the named policies (lib/retry-policies.ts), field for field. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { RETRY_POLICIES } from '../../lib/retry-policies.ts';

type State = { Type: string; Retry?: unknown; Branches?: { States: Record<string, State> }[]; Iterator?: { States: Record<string, State> } };

function* tasks(states: Record<string, State>): Generator<[string, State]> {
  for (const [name, s] of Object.entries(states)) {
    if (s.Type === 'Task') yield [name, s];
    for (const b of s.Branches ?? []) yield* tasks(b.States);
    if (s.Iterator) yield* tasks(s.Iterator.States);
  }
}

/** A retrier with its keys in one order, so that equal policies compare equal as JSON. */
const canonical = (retry: unknown) =>
  JSON.stringify(retry, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

describe('the state machines’ Task retries', () => {
  const named = new Map(Object.entries(RETRY_POLICIES).map(([name, policy]) => [canonical(policy), name]));
  const used = new Set<string>();
  for (const file of readdirSync('statemachines').filter((f) => f.endsWith('.asl.json'))) {
    const definition = JSON.parse(readFileSync(`statemachines/${file}`, 'utf8')) as { States: Record<string, State> };
    for (const [name, task] of tasks(definition.States)) {
      it(`${file} ${name} retries by a named policy`, () => {
        const policy = named.get(canonical(task.Retry));
        assert.ok(policy, `${name}'s Retry is none of ${[...named.values()].join(', ')}: add it to lib/retry-policies.ts or use one`);
        used.add(policy);
      });
    }
  }
  it('every named policy is used', () => {
    assert.deepEqual(
      Object.keys(RETRY_POLICIES).filter((p) => !used.has(p)),
      [],
    );
  });
});
