/**
 * The audit sweep on the local stack, on its timer as on its AWS schedule, with a failure caused for real: the local
 * Step Functions endpoint stops listening while an order is created (the API still answers 201 and charges), then
 * comes back, and the sweep starts the order, which reaches done, charged once. (An execution stopped from outside is
 * the status-change event's to recover: recovery.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ SWEEP_SECONDS: '1', SWEEP_GRACE_SECONDS: '2' });
/** The shortest video, with no voice or music: the sweep is tested, not what the videos show. */
const VIDEO = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

describe('the recovery sweep', () => {
  it('starts an order whose StartExecution failed after its charge, and it reaches done', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000, trialVideos: 0 });
    await t.stack.sfn.goAway();
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Lemonade', ...VIDEO } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await t.api('GET', `/videos/${created.body.id}`, { key })).body.status, 'queued');
    await t.stack.sfn.listen();
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error'], 90_000);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const { services } = await import('../../functions/app/services.ts');
    const ledger = await services().stores.accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount]).filter(([k]) => k !== 'top_up'),
      [['charge', -100]],
    );
  });
});
