/** Webhook registration: one per user; a repeat replaces the url and reissues the secret (the old one stops at once). */
import { randomBytes } from 'node:crypto';
import type { WebhookView } from '../contract/webhooks.ts';
import { forbidden, notFound } from './errors.ts';
import { checkWebhookUrl, type UrlPolicy } from './webhook-url.ts';
import { newWebhookId, WEBHOOK_ID_RE } from './ids.ts';

export interface Webhook {
  id: string;
  userId: string;
  url: string;
  active: boolean;
  createdAt: string;
  secret: string;
}

export interface WebhookStore {
  ofUser(userId: string): Promise<Webhook | undefined>;
  /** The owner of a webhook id, or undefined when there is none. */
  ownerOf(webhookId: string): Promise<string | undefined>;
  save(webhook: Webhook): Promise<void>;
  delete(webhook: { id: string; userId: string }): Promise<void>;
}

const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

export const toView = (w: Webhook): WebhookView => ({ id: w.id, url: w.url, active: w.active, created_at: w.createdAt });

export async function registerWebhook(store: WebhookStore, policy: UrlPolicy, userId: string, rawUrl: string, now: Date): Promise<Webhook> {
  const { url } = await checkWebhookUrl(rawUrl, policy);
  const existing = await store.ofUser(userId);
  const webhook: Webhook = {
    id: existing?.id ?? newWebhookId(),
    userId,
    url,
    active: true,
    createdAt: existing?.createdAt ?? now.toISOString(),
    secret: newWebhookSecret(),
  };
  await store.save(webhook);
  return webhook;
}

/** The id of the user's own webhook: not_found for an id that is no webhook's, forbidden for another user's. */
export async function ownWebhookId(store: WebhookStore, userId: string, webhookId: string | undefined): Promise<string> {
  const owner = webhookId && WEBHOOK_ID_RE.test(webhookId) ? await store.ownerOf(webhookId) : undefined;
  if (!owner) throw notFound('webhook');
  if (owner !== userId) throw forbidden('webhook');
  return webhookId!;
}

export async function deleteWebhook(store: WebhookStore, userId: string, webhookId: string | undefined): Promise<void> {
  await store.delete({ id: await ownWebhookId(store, userId, webhookId), userId });
}
