/**
 * A handler's reply is typed by the answers its operation declares (functions/http/operations.ts). This check runs the
 * TypeScript compiler (about 20 s of CPU), so it lives in the integration tier rather than the unit tier.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../../lib/paths.ts';
import { typeErrors } from '../support/typecheck.ts';

const HTTP = join(ROOT, 'functions', 'http');

describe('the operations', () => {
  it('type a handler’s reply by the answers its operation declares', () => {
    const dir = mkdtempSync(join(tmpdir(), 'typed-reply-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'handlers.mts');
    const replies = [
      `{ status: 200, body: { balance: 10, trial_videos_left: 1, livemode: true, spend: { month: '2026-11', spent: 0 } } }`,
      // A status the operation does not declare; a body its schema does not allow, twice.
      `{ status: 201, body: { balance: 10, trial_videos_left: 1, livemode: true, spend: { month: '2026-11', spent: 0 } } }`,
      `{ status: 200, body: { balance: '10', trial_videos_left: 1, livemode: true, spend: { month: '2026-11', spent: 0 } } }`,
      `{ status: 200, body: { balance: 10 } }`,
    ];
    writeFileSync(
      file,
      [
        `import { httpRoute } from '${join(HTTP, 'middleware.ts')}';`,
        `import * as operations from '${join(HTTP, 'operations.ts')}';`,
        ...replies.map((r, i) => `export const handler${i} = httpRoute(operations.getBalance)(async () => (${r}));`),
      ].join('\n'),
    );
    // One check of the four (the compiler's first run reads the whole program).
    const errors = typeErrors(file);
    assert.equal(errors.length, 3, errors.join('\n'));
    assert.match(errors[0]!, /'201' is not assignable/);
    assert.match(errors[1]!, /not assignable to type 'number'/);
    assert.match(errors[2]!, /trial_videos_left/);
  });
});
