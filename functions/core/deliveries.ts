/**
 * Webhook delivery of recorded events, an order's or an account's (spec: Events; docs/webhooks.md). One attempt per call of `deliver`;
 * the delivery workflow (statemachines/delivery.asl.json) waits between attempts as this returns: 5 attempts in all,
 * the gap doubling from the base interval, then the event is dropped and marked so. Every attempt is recorded. A
 * manual resend gives a settled event one attempt more, within the key's hourly budget of resent events.
 */
import { Contended, deliveryInProgress, forbidden, notFound, resendBudgetExceeded } from './errors.ts';
import { AGAIN, type Again, type RetryPolicy, untilDone } from './retry.ts';
import { newExecution } from './executions.ts';
import { type Budget, limitsOwner, resendWindow } from './limits.ts';
import type { EventType, ExecutionState, MarkerPage, Metrics, OrderEvent } from './ports.ts';
import { signatureHeaders, USER_AGENT } from './webhook-signature.ts';
import { ownWebhookId, signingSecrets, type WebhookStore } from './webhooks.ts';
import { present } from './present.ts';

export const MAX_ATTEMPTS = 5;

/** An order's event (its subject an order, its body the order record), not an account's (balance.low). */
export const isOrderEvent = (type: EventType) => type.startsWith('video.');

export type DeliveryStatus = 'pending' | 'delivered' | 'dropped' | 'no_webhook';

export interface StoredEvent extends OrderEvent {
  delivery?: DeliveryStatus;
  attempts?: number;
  /** The attempt after which it is dropped: MAX_ATTEMPTS, or one past the attempts made when a resend reopened it. */
  lastAttempt?: number;
  /** The name of its current delivery execution, when not the event's own (a restart by the sweep). */
  execution?: string;
}

/** Delivered, dropped or without a webhook: nothing more will be sent. */
export const isSettled = (e: Pick<StoredEvent, 'delivery'>) => e.delivery !== undefined && e.delivery !== 'pending';

export interface DeliveryAttempt {
  eventId: string;
  orderId: string;
  type: OrderEvent['type'];
  webhookId: string;
  attempt: number;
  at: string;
  url: string;
  status?: number;
  error?: string;
  latencyMs: number;
  /** What this attempt left the event as: delivered, pending (another attempt follows) or dropped. */
  outcome: DeliveryStatus;
}

/** An event as the delivery workflow and the sweep name it. */
export type EventRef = Pick<OrderEvent, 'id' | 'orderId'>;

/** What a reopening did: the event is pending again, it had moved since it was read, or the key's budget is spent. */
export type Reopened = 'reopened' | 'moved' | 'over_budget';

/** A resend's reopening of a settled event: its new execution, its last attempt, and the key's budget it counts in. */
export interface Reopening {
  execution: string;
  lastAttempt: number;
  now: Date;
  budget: Budget;
}

/**
 * Recorded order events and their delivery records, as delivery, the hand-over, resends, recovery and the audit use
 * them. An event whose delivery is not settled has a marker: the status change records it with the event, and the
 * delivery removes it once the event is delivered, dropped or has no webhook; the sweep keeps a workflow carrying each.
 */
export interface EventStore {
  get(orderId: string, eventId: string): Promise<StoredEvent | undefined>;
  /** Records the attempt and the event's new state; false when another run recorded this attempt first. */
  record(event: StoredEvent, attempt: DeliveryAttempt, userId: string): Promise<boolean>;
  mark(event: StoredEvent, delivery: DeliveryStatus): Promise<void>;
  /** The event is settled (or gone): the sweep no longer looks at it. */
  settled(event: EventRef): Promise<void>;
  /** A page of the events recorded before `before` whose delivery is not settled, from `from` (ports.ts MarkerPage). */
  pendingPage(before: Date, from: string | undefined, limit: number): Promise<MarkerPage<EventRef>>;
  /** Records the name of the event's new delivery execution; false when the event moved on meanwhile. */
  restartAs(event: StoredEvent, execution: string): Promise<boolean>;
  /**
   * A settled event made pending again under a new execution name, to be dropped after attempt `lastAttempt`, and
   * counted in the user's budget window, all at once: nothing happens when it moved since it was read or the window
   * already holds `limit` resent events.
   */
  reopen(event: StoredEvent, reopening: Reopening): Promise<Reopened>;
  /** The user's events whose delivery was dropped at or after `since` (attempts are kept 30 days), oldest first. */
  droppedSince(userId: string, since: Date): Promise<EventRef[]>;
  /** The user's most recent delivery attempts, newest first. */
  attemptsOfUser(userId: string, limit: number): Promise<DeliveryAttempt[]>;
}

/** The delivery workflow of an event (statemachines/delivery.asl.json) under its current execution name. */
export interface EventWorkflow {
  /** A second start of the same execution is a no-op. True when this call started it. */
  start(event: EventRef & { execution?: string }): Promise<boolean>;
  state(event: EventRef & { execution?: string }): Promise<ExecutionState>;
}

export interface DeliveryPorts {
  events: Pick<EventStore, 'get' | 'record' | 'mark' | 'settled'>;
  webhooks: Pick<WebhookStore, 'ofUser'>;
  sender: { send(url: string, body: string, headers: Record<string, string>): Promise<{ ok: boolean; status?: number; error?: string; latencyMs: number }> };
  retryBaseMs: number;
  metrics: Metrics;
  now: () => Date;
}

export interface DeliveryStep {
  outcome: 'delivered' | 'retry' | 'dropped' | 'gone';
  attempt: number;
  /** When outcome is retry: the moment of the next attempt (ISO 8601, the delivery workflow's Wait reads it). */
  retryAt?: string;
}

export async function deliver(p: DeliveryPorts, orderId: string, eventId: string): Promise<DeliveryStep> {
  // Another run recorded this attempt first (the step ran twice): read the event again and go on from there.
  return untilDone(
    RECORD_LOST,
    () => attemptOnce(p, orderId, eventId),
    () => new Contended(`Event ${eventId}: ${RECORD_LOST.attempts} attempts recorded by other runs first`),
  );
}

/** Tries of an attempt whose record another run of the step wrote first. */
const RECORD_LOST: RetryPolicy = { attempts: 4, baseMs: 10 };

async function attemptOnce(p: DeliveryPorts, orderId: string, eventId: string): Promise<DeliveryStep | Again> {
  const event = await p.events.get(orderId, eventId);
  if (!event) return { outcome: 'gone', attempt: 0 };
  const done = event.attempts ?? 0;
  if (isSettled(event)) {
    await p.events.settled(event);
    return { outcome: event.delivery === 'delivered' ? 'delivered' : 'gone', attempt: done };
  }
  // The webhook as it is now: a replaced url and secret take the next attempt; a deleted one stops delivery.
  const webhook = await p.webhooks.ofUser(event.userId);
  if (!webhook?.active) {
    await p.events.mark(event, 'no_webhook');
    await p.events.settled(event);
    return { outcome: 'gone', attempt: done };
  }
  const attempt = done + 1;
  const now = p.now();
  const body = JSON.stringify(event.record);
  const result = await p.sender.send(webhook.url, body, {
    ...signatureHeaders(body, signingSecrets(webhook, now), { id: event.id, timestamp: Math.floor(now.getTime() / 1000) }),
    'x-service-event': event.type,
    'x-service-event-id': event.id,
    'x-service-timestamp': String(Math.floor(now.getTime() / 1000)),
    'x-service-delivery-attempt': String(attempt),
    'user-agent': USER_AGENT,
  });
  const outcome: DeliveryStatus = result.ok ? 'delivered' : attempt >= (event.lastAttempt ?? MAX_ATTEMPTS) ? 'dropped' : 'pending';
  const recorded = await p.events.record(
    event,
    {
      eventId: event.id,
      orderId,
      type: event.type,
      webhookId: webhook.id,
      attempt,
      at: now.toISOString(),
      url: webhook.url,
      ...present({ status: result.status }),
      ...(result.error ? { error: result.error } : {}),
      latencyMs: result.latencyMs,
      outcome,
    },
    event.userId,
  );
  if (!recorded) return AGAIN;
  if (outcome !== 'pending') await p.events.settled(event);
  if (outcome === 'delivered') return { outcome, attempt };
  if (outcome === 'dropped') {
    p.metrics.count('WebhookDeliveriesDropped');
    return { outcome, attempt };
  }
  return { outcome: 'retry', attempt, retryAt: new Date(now.getTime() + p.retryBaseMs * 2 ** (attempt - 1)).toISOString() };
}

/** What hands a recorded event to delivery (right after its status change). */
export interface HandOverPorts {
  webhooks: Pick<WebhookStore, 'ofUser'>;
  events: Pick<EventStore, 'mark' | 'settled'>;
  delivery: Pick<EventWorkflow, 'start'>;
}

/**
 * An event goes to a delivery workflow only when its key has a webhook as it is handed over; without one it is
 * settled `no_webhook` at once, with no execution (what a workflow's first attempt would do, for a StartExecution and
 * its transitions). A webhook registered after this read does not get the event by itself; a resend sends it
 * (docs/webhooks.md). A failure leaves the event's pending marker: the sweep starts its delivery.
 */
export async function handOver(p: HandOverPorts, event: OrderEvent): Promise<'started' | 'no_webhook'> {
  const webhook = await p.webhooks.ofUser(event.userId);
  if (webhook?.active) {
    await p.delivery.start(event);
    return 'started';
  }
  await p.events.mark(event, 'no_webhook');
  await p.events.settled(event);
  return 'no_webhook';
}

export interface ResendPorts {
  events: Pick<EventStore, 'get' | 'reopen' | 'droppedSince'>;
  delivery: Pick<EventWorkflow, 'start'>;
  /** Resent events a key may cause per hour. */
  resendsPerHour: number;
  now: () => Date;
}

/** Events one replay sends again at most; `has_more` says to replay again (those sent are no longer dropped). */
export const MAX_RESEND = 100;
/** The default budget of resent events per key and hour: one replay's worth. */
export const DEFAULT_RESENDS_PER_HOUR = 100;

/**
 * A new delivery of a settled event: one attempt, to the webhook as it is now. One attempt, not five, so that one API
 * call causes at most one outbound request per event it resends (docs/webhooks.md).
 */
async function resendOne(p: ResendPorts, event: StoredEvent, owner: string): Promise<Reopened> {
  const now = p.now();
  const execution = newExecution(event.id, 'r', now);
  const budget = { window: resendWindow(now), limit: p.resendsPerHour, owner };
  const reopened = await p.events.reopen(event, { execution, lastAttempt: (event.attempts ?? 0) + 1, now, budget });
  // A start that fails leaves the pending marker: the sweep starts it.
  if (reopened === 'reopened') await p.delivery.start({ ...event, execution }).catch(() => undefined);
  return reopened;
}

const overBudget = (p: ResendPorts) => resendBudgetExceeded(resendWindow(p.now()).retryAfterSeconds, p.resendsPerHour);

/**
 * The user's event sent again: 404 for no such event, 403 for another user's, 409 while it is still being delivered,
 * 429 when the key's resend budget is spent.
 */
export async function resendEvent(p: ResendPorts, account: KeyAccount, eventId: string): Promise<string[]> {
  const event = await p.events.get(eventId.split(':')[0]!, eventId);
  if (!event) throw notFound('event');
  if (event.userId !== account.userId) throw forbidden('event');
  if (!isSettled(event)) throw deliveryInProgress(eventId);
  const reopened = await resendOne(p, event, limitsOwner(account));
  if (reopened === 'over_budget') throw overBudget(p);
  if (reopened === 'moved') throw deliveryInProgress(eventId);
  return [eventId];
}

/**
 * Every event of the user dropped since `since`, sent again (those still dropped), as many as the key's budget has
 * left; 429 when it has none left and there is one to send.
 */
export async function resendDropped(p: ResendPorts, account: KeyAccount, since: Date): Promise<{ resent: string[]; hasMore: boolean }> {
  const resent: string[] = [];
  for (const ref of await p.events.droppedSince(account.userId, since)) {
    const event = await p.events.get(ref.orderId, ref.id);
    if (event?.userId !== account.userId || event.delivery !== 'dropped') continue;
    if (resent.length === MAX_RESEND) return { resent, hasMore: true };
    const reopened = await resendOne(p, event, limitsOwner(account));
    if (reopened === 'over_budget') {
      if (!resent.length) throw overBudget(p);
      return { resent, hasMore: true };
    }
    if (reopened === 'reopened') resent.push(event.id);
  }
  return { resent, hasMore: false };
}

/** The key's account as a resend needs it: whose events, and whose budget they count in (a test-mode key's live one's). */
type KeyAccount = { userId: string; testOf?: string | undefined };

/** What one resend asks for: an event by id, or every event dropped since a time. */
export type ResendRequest = { eventId: string } | { since: Date };

/** POST /webhooks/{id}/resend: the key's own webhook (404, 403), then resendEvent or resendDropped. */
export async function resendToWebhook(
  p: ResendPorts & { webhooks: Pick<WebhookStore, 'ownerOf'> },
  account: KeyAccount,
  webhookId: string | undefined,
  asked: ResendRequest,
): Promise<{ resent: string[]; hasMore: boolean }> {
  await ownWebhookId(p.webhooks, account.userId, webhookId);
  return 'eventId' in asked ? { resent: await resendEvent(p, account, asked.eventId), hasMore: false } : resendDropped(p, account, asked.since);
}

/** The delivery attempts GET /webhooks/{id}/deliveries shows: the latest of the key's user. */
export const RECENT_ATTEMPTS = 50;

/** GET /webhooks/{id}/deliveries: the key's own webhook (404, 403), then its user's most recent attempts, newest first. */
export async function recentAttempts(
  p: { webhooks: Pick<WebhookStore, 'ownerOf'>; events: Pick<EventStore, 'attemptsOfUser'> },
  userId: string,
  webhookId: string | undefined,
): Promise<DeliveryAttempt[]> {
  await ownWebhookId(p.webhooks, userId, webhookId);
  return p.events.attemptsOfUser(userId, RECENT_ATTEMPTS);
}
