/**
 * The recovery sweep on the local stack, on its timer as on its AWS schedule, with failures caused for real: the
 * local Step Functions endpoint stops listening while an order is created (the API still answers 201 and charges),
 * then comes back, and the sweep starts the order; an order's execution is stopped while the order is open, and the
 * sweep gives it a new one. Each order reaches done, charged once.
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
    const ledger = await services().accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount]).filter(([k]) => k !== 'top_up'),
      [['charge', -100]],
    );
  });

  it('gives an open order whose execution was stopped a new execution, which goes on from where the order stands', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000, trialVideos: 0 });
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Cider', ...VIDEO, director_mode: true } });
    await waitForStatus(t, key, created.body.id, ['awaiting_review']);
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { StopExecutionCommand } = await import('@aws-sdk/client-sfn');
    const arn = `${t.stack.env.ORDER_STATE_MACHINE_ARN!.replace(':stateMachine:', ':execution:')}:${created.body.id}`;
    await (await aws().sfn()).send(new StopExecutionCommand({ executionArn: arn }));
    const { services } = await import('../../functions/app/services.ts');
    // The sweep records a new execution on the order and starts it; its review wait takes a new token.
    let order = await services().orders.get(created.body.id);
    for (const end = Date.now() + 30_000; !order?.execution && Date.now() < end; order = await services().orders.get(created.body.id))
      await new Promise((r) => setTimeout(r, 200));
    assert.match(order!.execution ?? '', new RegExp(`^${created.body.id}-s\\d+$`));
    for (const end = Date.now() + 30_000; t.stack.sfn.transitions(`${arn.replace(created.body.id, order!.execution!)}`) < 4 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 200));
    assert.equal((await t.api('POST', `/videos/${created.body.id}/review`, { key, body: { action: 'approve' } })).status, 200);
    const done = await waitForStatus(t, key, created.body.id, ['done', 'error'], 90_000);
    assert.equal(done.status, 'done', JSON.stringify(done));
    const ledger = await services().accounts.ledger(userId);
    assert.deepEqual(
      ledger.map((l) => [l.kind, l.amount]).filter(([k]) => k !== 'top_up'),
      [['charge', -100]],
    );
  });
});
