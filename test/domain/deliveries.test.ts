/** Webhook delivery, registration and account deletion on in-memory ports. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { deleteUser } from '../../functions/core/admin.ts';
import { balanceView } from '../../functions/core/balance.ts';
import { deliver, handOver, MAX_ATTEMPTS, resendEvent, type DeliveryPorts } from '../../functions/core/deliveries.ts';
import type { AppError } from '../../functions/core/errors.ts';
import { readOwnOrder } from '../../functions/core/read-order.ts';
import { verifyWebhook } from '../../functions/core/webhook-signature.ts';
import { deleteWebhook, ownWebhookId, registerWebhook } from '../../functions/core/webhooks.ts';
import { isTransient } from '../../functions/adapters/transient.ts';
import { MemoryEvents, MemoryMetrics, MemoryOrders, MemoryTable, MemoryWebhooks, recordEvent, ScriptedReceiver } from './memory.ts';

const BASE_MS = 30_000;
const policy = { allowPrivate: false, resolve: async () => ['93.184.216.34'] };
let table: MemoryTable;
let webhooks: MemoryWebhooks;
let metrics: MemoryMetrics;
let clock: number;

beforeEach(() => {
  table = new MemoryTable();
  webhooks = new MemoryWebhooks(table);
  metrics = new MemoryMetrics();
  clock = Date.parse('2026-11-23T10:00:00Z');
});

const ports = (receiver: ScriptedReceiver): DeliveryPorts => ({
  events: new MemoryEvents(table),
  webhooks,
  sender: receiver,
  retryBaseMs: BASE_MS,
  metrics,
  now: () => new Date(clock),
});

function doneEvent(orderId = 'vid_01jz0000000000000000000000') {
  return recordEvent(table, {
    id: `${orderId}:done`,
    type: 'video.done',
    orderId,
    userId: 'U',
    record: { id: orderId, status: 'done' } as never,
    createdAt: new Date(clock).toISOString(),
  });
}

describe('webhook delivery', () => {
  it('signs each attempt and waits base * 2^(n-1) before the next, then drops the event after 5', async () => {
    const hook = await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const event = doneEvent();
    const receiver = new ScriptedReceiver([500, 500, 503, 404, 500]);
    const p = ports(receiver);
    const gaps: number[] = [];
    let step = await deliver(p, event.orderId, event.id);
    while (step.outcome === 'retry') {
      gaps.push(Date.parse(step.retryAt!) - clock);
      clock = Date.parse(step.retryAt!);
      step = await deliver(p, event.orderId, event.id);
    }
    assert.deepEqual(
      gaps,
      [1, 2, 4, 8].map((k) => k * BASE_MS),
    );
    assert.deepEqual([step.outcome, step.attempt, receiver.received.length], ['dropped', MAX_ATTEMPTS, 5]);
    assert.deepEqual(
      table.attempts.map((a) => [a.attempt, a.status, a.outcome]),
      [
        [1, 500, 'pending'],
        [2, 500, 'pending'],
        [3, 503, 'pending'],
        [4, 404, 'pending'],
        [5, 500, 'dropped'],
      ],
    );
    assert.equal(metrics.of('WebhookDeliveriesDropped'), 1);
    const first = receiver.received[0]!;
    assert.equal(verifyWebhook(first.body, first.headers['x-service-signature'], hook.secret), true);
    assert.deepEqual(
      receiver.received.map((r) => r.headers['x-service-delivery-attempt']),
      ['1', '2', '3', '4', '5'],
    );
    assert.ok(receiver.received.every((r) => r.headers['x-service-event-id'] === event.id));
    assert.equal((await deliver(p, event.orderId, event.id)).outcome, 'gone', 'a dropped event is not sent again');
  });

  it('drops a resent event after its one attempt (lastAttempt), whatever its attempts so far', async () => {
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const event = doneEvent();
    // Delivered at its second attempt, then reopened by a resend.
    Object.assign(table.events.get(event.id)!, { attempts: 2, delivery: 'pending', lastAttempt: 3 });
    const receiver = new ScriptedReceiver([500, 500]);
    const p = ports(receiver);
    assert.deepEqual(await deliver(p, event.orderId, event.id), { outcome: 'dropped', attempt: 3 });
    assert.equal((await deliver(p, event.orderId, event.id)).outcome, 'gone');
    assert.equal(receiver.received.length, 1);
  });

  it('stops at the first 2xx, and a repeat of a delivered event sends nothing', async () => {
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const event = doneEvent();
    const receiver = new ScriptedReceiver([502, 204]);
    const p = ports(receiver);
    assert.equal((await deliver(p, event.orderId, event.id)).outcome, 'retry');
    assert.deepEqual(await deliver(p, event.orderId, event.id), { outcome: 'delivered', attempt: 2 });
    assert.deepEqual(await deliver(p, event.orderId, event.id), { outcome: 'delivered', attempt: 2 });
    assert.equal(receiver.received.length, 2);
  });

  it('gives up an attempt whose record other runs keep writing first, as the transient Contended, after a bounded number', async () => {
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const event = doneEvent();
    const receiver = new ScriptedReceiver([500, 500, 500, 500, 500]);
    const p = ports(receiver);
    // Another run of the step records each attempt number before this one does.
    const losing = { ...p, events: Object.assign(Object.create(p.events) as DeliveryPorts['events'], { record: async () => false }) };
    const err = await deliver(losing, event.orderId, event.id).catch((e: Error) => e);
    assert.deepEqual([(err as Error).name, isTransient(err)], ['Contended', true]);
    assert.equal(receiver.received.length, 4, 'four attempts, then the workflow retries the step');
  });

  it('sends the next attempt to the webhook as it is now, and nothing once it is deleted', async () => {
    const first = await registerWebhook(webhooks, policy, 'U', 'https://old.example/hook', new Date(clock));
    const event = doneEvent();
    const receiver = new ScriptedReceiver([500]);
    const p = ports(receiver);
    await deliver(p, event.orderId, event.id);
    const second = await registerWebhook(webhooks, policy, 'U', 'https://new.example/hook', new Date(clock));
    assert.equal(second.id, first.id, 'a repeat keeps the id and replaces url and secret');
    assert.notEqual(second.secret, first.secret);
    await deliver(p, event.orderId, event.id);
    assert.deepEqual(
      receiver.received.map((r) => r.url),
      ['https://old.example/hook', 'https://new.example/hook'],
    );

    const other = doneEvent('vid_01jz0000000000000000000001');
    await deleteWebhook(webhooks, 'U', second.id);
    assert.equal((await deliver(p, other.orderId, other.id)).outcome, 'gone');
    assert.equal(table.events.get(other.id)!.delivery, 'no_webhook');
  });
});

describe('the hand-over of a recorded event', () => {
  const handing = (started: string[]) => ({
    webhooks,
    events: new MemoryEvents(table),
    delivery: { start: async (e: { id: string }) => started.push(e.id) > 0 },
  });

  it('settles the event of a key without a webhook as no_webhook with no delivery started; a resend once one exists sends it', async () => {
    const started: string[] = [];
    const event = doneEvent();
    assert.equal(await handOver(handing(started), event), 'no_webhook');
    assert.deepEqual(started, []);
    assert.equal(table.events.get(event.id)!.delivery, 'no_webhook');
    assert.equal(table.pending.has(event.id), false, 'the sweep no longer looks at it');
    // Registered afterwards: the event is not sent by itself, and one resend sends it.
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const resent: string[] = [];
    const resend = {
      events: new MemoryEvents(table),
      delivery: { start: async (e: { id: string }) => resent.push(e.id) > 0 },
      resendsPerHour: 100,
      now: () => new Date(clock),
    };
    assert.deepEqual(await resendEvent(resend, { userId: 'U' }, event.id), [event.id]);
    assert.deepEqual(resent, [event.id]);
    const receiver = new ScriptedReceiver([204]);
    assert.deepEqual(await deliver(ports(receiver), event.orderId, event.id), { outcome: 'delivered', attempt: 1 });
  });

  it('starts the delivery of a key with a webhook, and leaves the event pending', async () => {
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const started: string[] = [];
    const event = doneEvent();
    assert.equal(await handOver(handing(started), event), 'started');
    assert.deepEqual(started, [event.id]);
    assert.equal(table.events.get(event.id)!.delivery, undefined);
    assert.equal(table.pending.has(event.id), true);
  });

  it('leaves the event pending for the sweep when the webhook cannot be read', async () => {
    const started: string[] = [];
    const event = doneEvent();
    const p = { ...handing(started), webhooks: { ofUser: async () => Promise.reject(new Error('throttled')) } };
    await assert.rejects(handOver(p, event), /throttled/);
    assert.deepEqual(started, []);
    assert.equal(table.events.get(event.id)!.delivery, undefined);
    assert.equal(table.pending.has(event.id), true);
  });
});

describe('webhook ownership and account deletion', () => {
  it("tells another user's webhook (403) from none (404) and refuses a private address", async () => {
    const hook = await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: AppError) => e.code,
      );
    assert.equal(await ownWebhookId(webhooks, 'U', hook.id), hook.id);
    assert.equal(await codeOf(ownWebhookId(webhooks, 'V', hook.id)), 'forbidden');
    assert.equal(await codeOf(ownWebhookId(webhooks, 'U', 'wh_01jz0000000000000000000000')), 'not_found');
    assert.equal(await codeOf(ownWebhookId(webhooks, 'U', 'wh_../../x')), 'not_found');
    const internal = { allowPrivate: false, resolve: async () => ['10.0.0.7'] };
    assert.equal(await codeOf(registerWebhook(webhooks, internal, 'U', 'https://intranet.example/', new Date(clock))), 'invalid_params');
  });

  it('writes a webhook only over the version read, as the DynamoDB adapter does (test/webhooks/writes.test.ts)', async () => {
    const hook = await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const read = (await webhooks.ofUser('U'))!;
    assert.equal(await webhooks.save({ ...read, url: 'https://hooks.example/b' }, read), true);
    assert.equal(await webhooks.save({ ...read, url: 'https://hooks.example/c' }, read), false, 'a second write from the same read');
    assert.equal(await webhooks.save({ ...read, id: 'wh_other' }, undefined), false, 'a create over an existing one');
    assert.deepEqual([(await webhooks.ofUser('U'))!.url, (await webhooks.ofUser('U'))!.version], ['https://hooks.example/b', 2]);
    assert.equal(await webhooks.delete({ id: 'wh_other', userId: 'U' }), false);
    assert.equal(await webhooks.delete(hook), true);
    assert.equal(await webhooks.delete(hook), false);
  });

  it('reads an order only for its owner, and shows the balance with the plan allowance left', async () => {
    table.addAccount({ userId: 'U', balance: 300, trialVideosLeft: 2, plan: { name: 'creator', heavyPerMonth: 20 }, heavyMonth: '2026-11', heavyUsed: 3 });
    const orders = new MemoryOrders(table);
    table.orders.set('vid_01jz0000000000000000000000', { id: 'vid_01jz0000000000000000000000', userId: 'U' } as never);
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: AppError) => e.code,
      );
    assert.equal(await codeOf(readOwnOrder(orders, 'U', 'vid_01jz0000000000000000000000')), 'ok');
    assert.equal(await codeOf(readOwnOrder(orders, 'V', 'vid_01jz0000000000000000000000')), 'forbidden');
    assert.equal(await codeOf(readOwnOrder(orders, 'U', 'vid_01jz0000000000000000000009')), 'not_found');
    assert.deepEqual(balanceView(table.account('U'), new Date(clock)), {
      balance: 300,
      trial_videos_left: 2,
      plan: 'creator',
      heavy_videos_left: 17,
      livemode: true,
      spend: { month: '2026-11', spent: 0 },
    });
    assert.equal(balanceView(table.account('U'), new Date('2026-12-01T00:00:00Z')).heavy_videos_left, 20, 'a new month, a new allowance');
  });

  it('deletes a user: key first, then the webhook, every order with its files, then the partition', async () => {
    table.addAccount({ userId: 'U' });
    await registerWebhook(webhooks, policy, 'U', 'https://hooks.example/video', new Date(clock));
    const calls: string[] = [];
    const result = await deleteUser(
      {
        accounts: {
          get: async (id) => table.accounts.get(id),
          revokeKey: async () => void calls.push('revoke'),
          deletePartition: async () => void calls.push('partition'),
        },
        orders: { idsOfUser: async () => ['vid_a', 'vid_b'], delete: async (id) => void calls.push(`order ${id}`) },
        files: {
          deleteAll: async (id) => {
            calls.push(`files ${id}`);
            return 3;
          },
        },
        webhooks,
      },
      'U',
    );
    assert.deepEqual(result, { orders: 2, files: 6 });
    assert.deepEqual(calls, ['revoke', 'files vid_a', 'order vid_a', 'files vid_b', 'order vid_b', 'partition']);
    assert.equal(await webhooks.ofUser('U'), undefined);
    await assert.rejects(deleteUser({ accounts: { get: async () => undefined } } as never, 'nobody'), (e: AppError) => e.code === 'not_found');
  });
});
