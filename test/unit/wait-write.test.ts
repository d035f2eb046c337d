/**
 * The render queue's recount (core/capacity.ts) takes a ticket older than WAIT_WRITE_SECONDS with no wait for a ghost:
 * so no function that records a wait (the API's, the bot's, the audit's, the workflow steps') may run longer, and a
 * minute to spare. The render and the asset check record none.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { WAIT_WRITE_SECONDS } from '../../functions/core/capacity.ts';
import { SIZES } from '../../lib/functions.ts';

it('a wait is written or its ticket given back within WAIT_WRITE_SECONDS of the ticket, by any function that records one', () => {
  for (const kind of ['http', 'bot', 'job', 'step'] as const) {
    const timeout = SIZES[kind].timeout.toSeconds();
    assert.ok(timeout + 60 <= WAIT_WRITE_SECONDS, `the ${kind} functions' ${timeout} s and a minute exceed ${WAIT_WRITE_SECONDS} s`);
  }
});
