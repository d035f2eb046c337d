/**
 * What a client asks for, an order of explicit parameters or a quick one from a prompt (or a quote of either), made into the order's
 * kind, prompt and parameters, and the hashes that bind it: the one order creation and quoting both start from.
 */
import { createHash } from 'node:crypto';
import type { OrderParams } from '../contract/orders.ts';
import { InvalidParams } from './errors.ts';
import type { Deliverable } from './generator.ts';
import { resolveLanguage } from './language.ts';
import type { Channel, Order } from './orders.ts';

export type OrderRequest = (
  | { kind: 'explicit'; params: OrderParams }
  /** `logo`: an asset drawn on every scene, joined to the parameters the planner makes of the prompt. */
  | { kind: 'quick'; prompt: string; director_mode?: boolean; logo?: string }
) & {
  /** Seconds after which the order, unless done, is canceled and refunded. */
  deadlineSeconds?: number;
  /** The quote to be charged by (POST /videos:quote for the same request). */
  quoteId?: string;
  /** The most the order may cost. */
  maxCost?: number;
  /** The client's own pairs, stored on the order as sent. */
  metadata?: Record<string, string>;
};

/**
 * Prices a prompt: the parameters a quick order is charged for. It must be deterministic (the same prompt, the same
 * parameters, so a repeat is recognised and priced alike) and fast, since it runs inside the creation request.
 */
export type PromptPlanner = (prompt: string) => OrderParams;

/** The order a request asks for: its kind, prompt and the parameters it is priced by. */
export type AskedOrder = Pick<Order, 'kind' | 'prompt' | 'params'>;

export interface RequestDeps {
  planPrompt: PromptPlanner;
  /** What the configured generator delivers of the paid extras: the others are refused before any charge. */
  deliverable: Deliverable;
}

/** The order's kind, prompt and parameters: a quick order's come from its prompt, and so does its price. */
export function askedOrder(deps: RequestDeps, request: OrderRequest): AskedOrder {
  if (request.kind === 'quick') {
    const params = refuseUndeliverable(deps.deliverable, deps.planPrompt(request.prompt), 'the prompt asks for ');
    const asked = { ...params, ...(request.director_mode ? { director_mode: true } : {}), ...(request.logo ? { logo: request.logo } : {}) };
    return { kind: 'quick', prompt: request.prompt, params: asked };
  }
  return { kind: 'explicit', params: refuseUndeliverable(deps.deliverable, resolveLanguage(request.params), '') };
}

/** 422 naming the field of a paid extra this service cannot deliver now: nothing is charged for it. */
function refuseUndeliverable(deliverable: Deliverable, params: OrderParams, asked: string): OrderParams {
  if (params.ai_visual && !deliverable.ai_visual) {
    throw new InvalidParams('ai_visual', `${asked}AI visuals, which this service cannot make now (no image generator is configured)`);
  }
  if (params.voice === 'clone' && !deliverable.voice_clone) {
    throw new InvalidParams('voice', `${asked}a cloned voice, which this service cannot make now (no voice-cloning speech provider is configured)`);
  }
  return params;
}

/**
 * The tag a request's kind is stored under, in its hashes and in its idempotency record. A stored format (opaque
 * strings fixed by the first release, which spelled them after the creation routes): they never change, and nothing
 * routes by them.
 */
export const STORED_TAG: Readonly<Record<OrderRequest['kind'], string>> = { explicit: 'POST /videos', quick: 'POST /videos:quick' };

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The request's two hashes, each binding what it must: `priced`, what a quote prices (the kind, the prompt and the
 * parameters, not the order's options), and `full`, what an Idempotency-Key answers for (the priced request, the
 * channel, and the options). Their formats are stored (quotes, idempotency records): they do not change.
 */
export function requestHashes(request: OrderRequest, asked: AskedOrder, channel: Channel): { priced: string; full: string } {
  const { kind, deadlineSeconds, quoteId, maxCost, metadata } = request;
  const priced = [STORED_TAG[kind], asked.prompt ?? null, asked.params];
  // The bot's requests hash apart from the API's, so one Idempotency-Key cannot replay across channels.
  const bot = channel === 'bot' ? ['bot'] : [];
  const options = [deadlineSeconds, quoteId, maxCost].some((o) => o !== undefined) ? [[deadlineSeconds ?? null, quoteId ?? null, maxCost ?? null]] : [];
  // Added after the format was stored: only a request with pairs hashes them, in key order (a JSON object's order is not
  // the client's meaning), so every earlier record still answers its repeats.
  const pairs = metadata && Object.keys(metadata).length ? [['metadata', Object.entries(metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]] : [];
  return { priced: sha256(JSON.stringify(priced)), full: sha256(JSON.stringify([...priced, ...bot, ...options, ...pairs])) };
}
