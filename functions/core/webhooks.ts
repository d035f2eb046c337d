/**
 * Webhook registration: one per user; a repeat replaces the url and reissues the secret (the old one stops at once).
 * Every write is conditional on the webhook as its request read it, so a write from a stale read cannot undo one that
 * overtook it (a rotation racing a delete would otherwise bring the webhook back).
 */
import type { WebhookView } from '../contract/webhooks.ts';
import { forbidden, notFound, serviceUnavailable } from './errors.ts';
import { AGAIN, type RetryPolicy, untilDone } from './retry.ts';
import { checkWebhookUrl, type UrlPolicy } from './webhook-url.ts';
import { newWebhookId, WEBHOOK_ID_RE } from './ids.ts';
import { type Account, isLive } from './pricing.ts';
import { newWebhookSecret, signatureHeaders, USER_AGENT } from './webhook-signature.ts';
import { present } from './present.ts';

export interface Webhook {
  id: string;
  userId: string;
  url: string;
  active: boolean;
  createdAt: string;
  secret: string;
  /** After a rotation: the secret before it, which still signs (beside the new one) until `previousUntil`. */
  previousSecret?: string;
  previousUntil?: string;
  /** Counts the writes: the store bumps it on each, and writes only over the version read. None before versions. */
  version?: number;
}

/** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
export const signingSecrets = (w: Webhook, now: Date): [string, string?] =>
  w.previousSecret && w.previousUntil && Date.parse(w.previousUntil) > now.getTime() ? [w.secret, w.previousSecret] : [w.secret];

/** The longest a rotated-out secret may keep signing. */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;

/**
 * A write made from a fresh read of the user's webhook: `attempt` reads, and answers undefined when its conditional
 * write found the webhook changed since. Tried once more from a new read; a second loss is 503 (retry).
 */
async function fromFreshRead<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  return untilDone(
    WEBHOOK_MOVED,
    async () => (await attempt()) ?? AGAIN,
    () => serviceUnavailable('The webhook changed while this request wrote it; retry', 1),
  );
}

const WEBHOOK_MOVED: RetryPolicy = { attempts: 2, baseMs: 0 };

/** A new secret for the user's webhook; the old one keeps signing beside it for `overlapSeconds`. */
export async function rotateSecret(store: WebhookStore, userId: string, webhookId: string | undefined, overlapSeconds: number, now: Date): Promise<Webhook> {
  const id = await ownWebhookId(store, userId, webhookId);
  return fromFreshRead(async () => {
    const current = await store.ofUser(userId);
    // Deleted (or deleted and registered anew) since the id was checked.
    if (current?.id !== id) throw notFound('webhook');
    const { previousSecret: _s, previousUntil: _u, ...webhook } = current;
    const rotated: Webhook = {
      ...webhook,
      secret: newWebhookSecret(),
      ...(overlapSeconds > 0 ? { previousSecret: webhook.secret, previousUntil: new Date(now.getTime() + overlapSeconds * 1000).toISOString() } : {}),
    };
    return (await store.save(rotated, current)) ? rotated : undefined;
  });
}

export interface WebhookStore {
  ofUser(userId: string): Promise<Webhook | undefined>;
  /** The owner of a webhook id, or undefined when there is none. */
  ownerOf(webhookId: string): Promise<string | undefined>;
  /**
   * Writes the user's webhook (with the next version) if it is still as `read` was (undefined: there was none);
   * false, writing nothing, when another write came between.
   */
  save(webhook: Webhook, read: Webhook | undefined): Promise<boolean>;
  /** Deletes the user's webhook if it is still this one (by id); false, deleting nothing, when it is not. */
  delete(webhook: { id: string; userId: string }): Promise<boolean>;
}

export const toView = (w: Webhook): WebhookView => ({ id: w.id, url: w.url, active: w.active, created_at: w.createdAt });

export async function registerWebhook(store: WebhookStore, policy: UrlPolicy, userId: string, rawUrl: string, now: Date): Promise<Webhook> {
  const { url } = await checkWebhookUrl(rawUrl, policy);
  return fromFreshRead(async () => {
    const existing = await store.ofUser(userId);
    const webhook: Webhook = {
      id: existing?.id ?? newWebhookId(),
      userId,
      url,
      active: true,
      createdAt: existing?.createdAt ?? now.toISOString(),
      secret: newWebhookSecret(),
    };
    return (await store.save(webhook, existing)) ? webhook : undefined;
  });
}

/** The id of the user's own webhook: not_found for an id that is no webhook's, forbidden for another user's. */
export async function ownWebhookId(store: Pick<WebhookStore, 'ownerOf'>, userId: string, webhookId: string | undefined): Promise<string> {
  const owner = webhookId && WEBHOOK_ID_RE.test(webhookId) ? await store.ownerOf(webhookId) : undefined;
  if (!owner) throw notFound('webhook');
  if (owner !== userId) throw forbidden('webhook');
  return webhookId!;
}

/** 404 also when the webhook went (or was replaced by a new one) after its id was checked. */
export async function deleteWebhook(store: WebhookStore, userId: string, webhookId: string | undefined): Promise<void> {
  if (!(await store.delete({ id: await ownWebhookId(store, userId, webhookId), userId }))) throw notFound('webhook');
}

/** The body of a test ping: not an order event (its X-Service-Event is webhook.test). */
export const TEST_EVENT = 'webhook.test';

export interface PingPorts {
  webhooks: WebhookStore;
  sender: { send(url: string, body: string, headers: Record<string, string>): Promise<{ ok: boolean; status?: number; error?: string; latencyMs: number }> };
}

/** One signed test delivery to the user's webhook, now, as an order event is sent; its outcome. */
export async function pingWebhook(p: PingPorts, account: Pick<Account, 'userId' | 'testOf'>, webhookId: string | undefined, now: Date) {
  const { userId } = account;
  const id = await ownWebhookId(p.webhooks, userId, webhookId);
  const webhook = await p.webhooks.ofUser(userId);
  if (webhook?.id !== id) throw notFound('webhook');
  const messageId = `${TEST_EVENT}:${now.getTime()}`;
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify({ type: TEST_EVENT, webhook_id: id, created_at: now.toISOString(), livemode: isLive(account) });
  const result = await p.sender.send(webhook.url, body, {
    ...signatureHeaders(body, signingSecrets(webhook, now), { id: messageId, timestamp }),
    'x-service-event': TEST_EVENT,
    'x-service-event-id': messageId,
    'x-service-timestamp': String(timestamp),
    'x-service-delivery-attempt': '1',
    'user-agent': USER_AGENT,
  });
  return {
    delivered: result.ok,
    ...present({ http_status: result.status }),
    ...(result.error ? { error: result.error } : {}),
    latency_ms: result.latencyMs,
  };
}
