/**
 * Webhook writes race on DynamoDB Local: each is conditional on what its request read, so a write made from a stale
 * read fails instead of undoing the write that overtook it. The races are made deterministic by a seam around the real
 * adapter (not a mock of DynamoDB): after a use case's read, it runs another request's write, then hands the now
 * stale read back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppError } from '../../functions/core/errors.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/adapters/keys.ts';
import { deleteWebhook, registerWebhook, rotateSecret, type Webhook, type WebhookStore } from '../../functions/core/webhooks.ts';
import { useStack } from '../support/stack.ts';

const t = useStack();
const policy = { allowPrivate: false, resolve: async () => ['93.184.215.14'] };
const now = () => new Date();

const services = async () => (await import('../../functions/app/services.ts')).services();
const real = async (): Promise<WebhookStore> => (await services()).stores.webhooks;

/**
 * The real store; the first `times` reads of `which` kind are each followed by `between` (another request's write)
 * before they return.
 */
function racing(store: WebhookStore, which: 'ofUser' | 'ownerOf', between: () => Promise<unknown>, times = 1): WebhookStore {
  let raced = 0;
  const race = async <T>(read: T): Promise<T> => {
    if (raced++ < times) await between();
    return read;
  };
  return {
    ofUser: async (userId) => (which === 'ofUser' ? race(await store.ofUser(userId)) : store.ofUser(userId)),
    ownerOf: async (id) => (which === 'ownerOf' ? race(await store.ownerOf(id)) : store.ownerOf(id)),
    save: (w, read) => store.save(w, read),
    delete: (w) => store.delete(w),
  };
}

/** A new user with a webhook at https://hooks.example.com/a. */
async function registered() {
  const store = await real();
  const { userId } = await t.user();
  return { store, userId, hook: await registerWebhook(store, policy, userId, 'https://hooks.example.com/a', now()) };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: AppError) => e.code ?? String(e),
  );

/** The user's webhook as stored, and who the id -> owner items say owns the ids given. */
async function stored(store: WebhookStore, userId: string, ...ids: string[]) {
  const w: Webhook | undefined = await store.ofUser(userId);
  return { webhook: w && { id: w.id, url: w.url }, owners: await Promise.all(ids.map((id) => store.ownerOf(id))) };
}

describe('webhook writes from a stale read', () => {
  it('a rotation whose webhook is deleted after its read is 404, and does not bring it back', async () => {
    const { store, userId, hook } = await registered();
    const result = await outcome(
      rotateSecret(
        racing(store, 'ofUser', () => deleteWebhook(store, userId, hook.id)),
        userId,
        hook.id,
        0,
        now(),
      ),
    );
    assert.deepEqual({ result, ...(await stored(store, userId, hook.id)) }, { result: 'not_found', webhook: undefined, owners: [undefined] });
  });

  it('a rotation overtaken by another keeps the secret that rotation issued as the previous one', async () => {
    const { store, userId, hook } = await registered();
    let other: Webhook | undefined;
    const mine = await rotateSecret(
      racing(store, 'ofUser', async () => (other = await rotateSecret(store, userId, hook.id, 3600, now()))),
      userId,
      hook.id,
      3600,
      now(),
    );
    // Otherwise the other rotation's secret, which its caller may already use, would never sign again.
    assert.equal(mine.previousSecret, other!.secret);
    assert.equal((await store.ofUser(userId))!.secret, mine.secret);
  });

  it('a registration that finds none, overtaken by another, replaces that one instead of leaving its id behind', async () => {
    const store = await real();
    const { userId } = await t.user();
    let first: Webhook | undefined;
    const second = await registerWebhook(
      racing(store, 'ofUser', async () => (first = await registerWebhook(store, policy, userId, 'https://hooks.example.com/a', now()))),
      policy,
      userId,
      'https://hooks.example.com/b',
      now(),
    );
    assert.deepEqual(
      { id: second.id, ...(await stored(store, userId, first!.id)) },
      { id: first!.id, webhook: { id: first!.id, url: 'https://hooks.example.com/b' }, owners: [userId] },
    );
  });

  it('a registration that replaces a webhook deleted after its read makes a new one, not the deleted id again', async () => {
    const { store, userId, hook: old } = await registered();
    const made = await registerWebhook(
      racing(store, 'ofUser', () => deleteWebhook(store, userId, old.id)),
      policy,
      userId,
      'https://hooks.example.com/b',
      now(),
    );
    assert.notEqual(made.id, old.id);
    assert.deepEqual(await stored(store, userId, old.id, made.id), {
      webhook: { id: made.id, url: 'https://hooks.example.com/b' },
      owners: [undefined, userId],
    });
  });

  it('a delete whose webhook was deleted and registered anew after its read is 404, and leaves the new one', async () => {
    const { store, userId, hook: old } = await registered();
    let fresh: Webhook | undefined;
    const result = await outcome(
      deleteWebhook(
        racing(store, 'ownerOf', async () => {
          await deleteWebhook(store, userId, old.id);
          fresh = await registerWebhook(store, policy, userId, 'https://hooks.example.com/b', now());
        }),
        userId,
        old.id,
      ),
    );
    assert.deepEqual(
      { result, ...(await stored(store, userId, old.id, fresh!.id)) },
      { result: 'not_found', webhook: { id: fresh!.id, url: 'https://hooks.example.com/b' }, owners: [undefined, userId] },
    );
  });

  it('a write that loses twice in a row is 503, and changes nothing of its own', async () => {
    const { store, userId, hook } = await registered();
    const others: Webhook[] = [];
    const busy = racing(store, 'ofUser', async () => others.push(await rotateSecret(store, userId, hook.id, 0, now())), 2);
    const result = await outcome(registerWebhook(busy, policy, userId, 'https://hooks.example.com/b', now()));
    const after = (await store.ofUser(userId))!;
    assert.deepEqual([result, after.url, after.secret], ['service_unavailable', 'https://hooks.example.com/a', others[1]!.secret]);
  });

  it('a webhook written before versions is written over once from a read, not twice', async () => {
    const { store, userId } = await registered();
    const { aws } = await import('../../functions/adapters/aws.ts');
    const { config } = await services();
    await aws().ddb.send(new UpdateCommand({ TableName: config.tableName, Key: keys.webhookOfUser(userId), UpdateExpression: 'REMOVE version' }));
    const legacy = (await store.ofUser(userId))!;
    assert.equal(legacy.version, undefined);
    assert.deepEqual(
      [
        await store.save({ ...legacy, url: 'https://hooks.example.com/b' }, legacy),
        await store.save({ ...legacy, url: 'https://hooks.example.com/c' }, legacy),
      ],
      [true, false],
    );
    assert.deepEqual([(await store.ofUser(userId))!.url, (await store.ofUser(userId))!.version], ['https://hooks.example.com/b', 1]);
  });
});
