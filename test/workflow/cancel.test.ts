/**
 * Canceling on the local stack: a queued order and one awaiting review end in error `canceled`, refunded once, their
 * no longer active tasks, their workflow stopped and their video.error event delivered; so does a director-mode order
 * canceled right after its creation, whether it is still queued or writing its script (running before its render);
 * an order whose render has started, or done, is 409;
 * cancels racing the render queue's admissions refund each order at most once and only orders that did not finish;
 * an order past its deadline is canceled by the sweep. One render slot, so orders wait queued behind one another.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ RENDER_SLOTS: '1', LIMIT_ACTIVE_TASKS: '3', WEBHOOK_ALLOW_PRIVATE_URLS: 'on', SWEEP_SECONDS: '3600', SWEEP_GRACE_SECONDS: '0' });
let receiver: Server | undefined;
after(() => receiver?.close());

const services = async () => (await import('../../functions/app/services.ts')).services();
const ledgerOf = async (userId: string) => (await services()).stores.accounts.ledger(userId);

describe('canceling an order', () => {
  it('refunds a queued order once, frees its place, starts no workflow for it and sends video.error', async () => {
    const events: { event: string; body: any }[] = [];
    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d));
      req.on('end', () => {
        events.push({ event: String(req.headers['x-service-event']), body: JSON.parse(raw) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((ok) => receiver!.listen(0, '127.0.0.1', ok));
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    assert.equal(
      (await t.api('POST', '/webhooks', { key, body: { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` } })).status,
      201,
    );
    const ahead = await t.api('POST', '/videos', { key, body: { topic: 'Green tea', duration_seconds: 10 } });
    const waiting = await t.api('POST', '/videos', { key, body: { topic: 'Black tea', duration_seconds: 10 } });
    const third = await t.api('POST', '/videos', { key, body: { topic: 'White tea', duration_seconds: 10 } });
    assert.deepEqual([ahead.status, waiting.status, third.status], [201, 201, 201]);
    assert.equal(errorCode(await t.api('POST', '/videos', { key, body: { topic: 'One too many', duration_seconds: 10 } })), 'active_tasks_exceeded');
    assert.equal((await t.api('GET', `/videos/${third.body.id}`, { key })).body.status, 'queued');

    const canceled = await t.api('POST', `/videos/${third.body.id}/cancel`, { key });
    assert.equal(canceled.status, 200, canceled.text);
    assert.deepEqual([canceled.body.status, canceled.body.error.code], ['error', 'canceled']);
    // The same answer to a repeated cancel (a client whose first answer was lost).
    const again = await t.api('POST', `/videos/${third.body.id}/cancel`, { key });
    assert.deepEqual([again.status, again.body.id, again.body.error.code], [200, third.body.id, 'canceled']);
    // It stops counting as an active task at once: a new order fits.
    const next = await t.api('POST', '/videos', { key, body: { topic: 'Oolong', duration_seconds: 10 } });
    assert.equal(next.status, 201, next.text);
    // Refunded once; it left the queue, where no execution waited for it (its admission would have started one).
    const refunds = (await ledgerOf(userId)).filter((e) => e.kind === 'refund' && e.orderId === third.body.id);
    assert.deepEqual(
      refunds.map((e) => e.amount),
      [100],
    );
    const { workflow, orders } = (await services()).stores;
    assert.equal(await workflow.state((await orders.get(third.body.id))!), 'missing');
    assert.equal((await orders.get(third.body.id))!.queuePlace !== undefined, true, 'it had waited in the queue');
    // The others go on to done, the canceled one is never rendered.
    for (const o of [ahead, waiting, next]) assert.equal((await waitForStatus(t, key, o.body.id, ['done', 'error'], 120_000)).status, 'done');
    assert.equal((await t.api('GET', `/videos/${third.body.id}`, { key })).body.status, 'error');
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000 - 3 * 100);
    for (let i = 0; i < 40 && !events.some((e) => e.body.id === third.body.id); i++) await new Promise((r) => setTimeout(r, 250));
    const error = events.find((e) => e.body.id === third.body.id);
    assert.deepEqual([error?.event, error?.body.error.code], ['video.error', 'canceled']);
    // A done order, another key's and an unknown one.
    assert.deepEqual(
      [(await t.api('POST', `/videos/${ahead.body.id}/cancel`, { key })).status, errorCode(await t.api('POST', `/videos/${ahead.body.id}/cancel`, { key }))],
      [409, 'not_cancelable'],
    );
    const { apiKey: other } = await t.user({ balance: 0 });
    assert.equal((await t.api('POST', `/videos/${ahead.body.id}/cancel`, { key: other })).status, 403);
    assert.equal((await t.api('POST', '/videos/vid_01m8000000000000000000000/cancel', { key })).status, 404);
  });

  it('cancels an order awaiting review; its review is then refused', async () => {
    const { apiKey: key } = await t.user({ balance: 300 });
    const order = await t.api('POST', '/videos', { key, body: { topic: 'Matcha', duration_seconds: 10, director_mode: true } });
    await waitForStatus(t, key, order.body.id, ['awaiting_review']);
    const canceled = await t.api('POST', `/videos/${order.body.id}/cancel`, { key });
    assert.deepEqual([canceled.status, canceled.body.error.code], [200, 'canceled']);
    assert.equal(errorCode(await t.api('POST', `/videos/${order.body.id}/review`, { key, body: { action: 'approve' } })), 'not_awaiting_review');
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 300);
  });

  it('cancels a director-mode order right after its creation every time, queued or writing its script', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const answers: number[] = [];
    const ids: string[] = [];
    // Before: 409 not_cancelable whenever the cancel came while the order was `running` (its script being written).
    for (let i = 0; i < 12; i++) {
      const created = await t.api('POST', '/videos', { key, body: { topic: `Director ${i}`, duration_seconds: 10, director_mode: true } });
      assert.equal(created.status, 201, created.text);
      const canceled = await t.api('POST', `/videos/${created.body.id}/cancel`, { key });
      answers.push(canceled.status);
      ids.push(created.body.id);
      if (canceled.status === 200) assert.deepEqual([canceled.body.status, canceled.body.error.code, canceled.body.refund.amount], ['error', 'canceled', 100]);
    }
    assert.deepEqual(answers, Array(12).fill(200), `the cancels' answers: ${answers.join(' ')}`);
    // Each stays canceled (its workflow, stopped or finding the order closed, writes nothing more), refunded once.
    await new Promise((r) => setTimeout(r, 1500));
    const ledger = await ledgerOf(userId);
    for (const id of ids) {
      const order = (await t.api('GET', `/videos/${id}`, { key })).body;
      assert.deepEqual([order.status, order.error.code], ['error', 'canceled'], id);
      assert.equal(ledger.filter((e) => e.orderId === id && e.kind === 'refund').length, 1, id);
    }
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000);
  });

  it('refuses to cancel an order whose render has started (409), and finishes and charges it', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const created = await t.api('POST', '/videos', { key, body: { topic: 'Assam', duration_seconds: 10 } });
    const { orders } = (await services()).stores;
    for (let i = 0; i < 1200 && !(await orders.get(created.body.id))?.renderStartedAt; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok((await orders.get(created.body.id))!.renderStartedAt, 'its render started');
    const refused = await t.api('POST', `/videos/${created.body.id}/cancel`, { key });
    assert.deepEqual([refused.status, errorCode(refused)], [409, 'not_cancelable']);
    if ((await orders.get(created.body.id))!.status === 'running') assert.match(refused.body.error.message, /render has started/);
    assert.equal((await waitForStatus(t, key, created.body.id, ['done', 'error'], 120_000)).status, 'done');
    assert.equal((await ledgerOf(userId)).filter((e) => e.orderId === created.body.id && e.kind === 'refund').length, 0);
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 900);
  });

  it('refunds each order at most once, and only one that did not finish, when cancels race the queue', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.api('POST', '/videos', { key, body: { topic: `Race ${i}`, duration_seconds: 10 } })).body.id);
    // Each order is canceled right when the one before it finishes: its admission and start race the cancel.
    const answers = new Map<string, number>();
    answers.set(ids[0]!, (await t.api('POST', `/videos/${ids[0]}/cancel`, { key })).status);
    for (let i = 1; i < ids.length; i++) {
      await waitForStatus(t, key, ids[i - 1]!, ['done', 'error'], 120_000);
      answers.set(ids[i]!, (await t.api('POST', `/videos/${ids[i]}/cancel`, { key })).status);
    }
    const ledger = await ledgerOf(userId);
    let spent = 0;
    for (const id of ids) {
      const order = await waitForStatus(t, key, id, ['done', 'error'], 120_000);
      const charges = ledger.filter((e) => e.orderId === id && e.kind === 'charge');
      const refunds = (await ledgerOf(userId)).filter((e) => e.orderId === id && e.kind === 'refund');
      assert.equal(charges.length, 1, id);
      if (answers.get(id) === 200) {
        assert.deepEqual([order.status, order.error?.code, refunds.length], ['error', 'canceled', 1], id);
      } else {
        assert.equal(answers.get(id), 409, id);
        assert.deepEqual([order.status, refunds.length], ['done', 0], id);
        spent += 100;
      }
    }
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000 - spent);
  });

  it('cancels an order past its deadline at the sweep, whatever its status', async () => {
    const { apiKey: key } = await t.user({ balance: 500 });
    // A director order stays at its review, so it is surely not done when its deadline passes.
    const order = await t.api('POST', '/videos', { key, body: { topic: 'Rooibos', duration_seconds: 10, director_mode: true, deadline_seconds: 600 } });
    assert.equal(order.status, 201, order.text);
    const record = (await t.api('GET', `/videos/${order.body.id}`, { key })).body;
    assert.equal(Date.parse(record.deadline_at) - Date.parse(record.created_at), 600_000);
    const bad = await t.api('POST', '/videos', { key, body: { topic: 'Tea', deadline_seconds: 30 } });
    assert.deepEqual([bad.status, bad.body.error.message.split(':')[0]], [422, 'deadline_seconds']);
    // Its deadline brought forward in the store (the sweep runs every minute on AWS; a test does not wait ten).
    const {
      sweep,
      stores: { orders },
    } = await services();
    await waitForStatus(t, key, order.body.id, ['awaiting_review']);
    assert.ok(await orders.patch(order.body.id, { status: 'awaiting_review', set: { deadlineAt: new Date(Date.now() - 1000).toISOString() } }, new Date()));
    await sweep(0);
    const ended = await waitForStatus(t, key, order.body.id, ['done', 'error']);
    assert.deepEqual([ended.status, ended.error?.code], ['error', 'deadline_exceeded']);
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 500);
    assert.equal(await (await services()).stores.workflow.state((await orders.get(order.body.id))!), 'ended');
  });
});
