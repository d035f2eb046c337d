/**
 * A shop's integration: one video per product, priced first and ordered at the quoted price (never dearer), tagged
 * with the shop's own product id, its request id kept for support, followed to the end by polling (or, with a
 * webhook, by the receiver in receiver-node.ts). Each failure the client can throw is handled by its class.
 *
 *   VIDEO_SERVICE_KEY=vgk_... node clients/js/examples/integration.ts "Green tea" sku-42
 */
import {
  ApiConnectionError,
  ApiUserAbortError,
  InsufficientFundsError,
  InvalidParamsError,
  isApiError,
  type Order,
  RateLimitError,
  VideoClient,
  WaitTimeoutError,
} from '../src/index.ts'; // '@video-service/client'

export type Outcome =
  | { kind: 'done'; order: Order; requestId: string | undefined }
  | { kind: 'review'; order: Order }
  | { kind: 'failed'; order: Order }
  | { kind: 'refused'; reason: string }
  | { kind: 'later'; reason: string };

export async function videoForProduct(client: VideoClient, product: string, sku: string, maxCost = 200, signal?: AbortSignal): Promise<Outcome> {
  try {
    const body = { topic: `${product}: why customers love it`, duration_seconds: 15, metadata: { sku } };
    const quote = await client.quote(body);
    if (quote.cost > maxCost) return { kind: 'refused', reason: `costs ${quote.cost}, more than ${maxCost}` };
    // The quote holds the price 15 minutes; the Idempotency-Key (made by the client) makes a retry safe.
    const { data: created, requestId } = await client.createVideo({ ...body, quote_id: quote.quote_id }).withResponse();
    const order = await client.waitForVideo(created.id, { timeout: 10 * 60_000, ...(signal ? { signal } : {}) });
    if (order.status === 'done') return { kind: 'done', order, requestId };
    if (order.status === 'awaiting_review') return { kind: 'review', order };
    return { kind: 'failed', order }; // its doubloons are already refunded
  } catch (err) {
    if (err instanceof InsufficientFundsError) return { kind: 'refused', reason: err.code }; // insufficient_funds, spend_limit_exceeded
    if (err instanceof InvalidParamsError) return { kind: 'refused', reason: err.message };
    if (err instanceof RateLimitError) return { kind: 'later', reason: `rate limited, retry in ${err.retryAfter ?? '?'} s (${err.gaveUp ?? 'not retried'})` };
    if (err instanceof WaitTimeoutError) return { kind: 'later', reason: `${err.order.id} still ${err.order.status}` };
    if (err instanceof ApiConnectionError) return { kind: 'later', reason: `no answer: ${err.message}` };
    if (err instanceof ApiUserAbortError) return { kind: 'later', reason: 'stopped' };
    if (isApiError(err)) return { kind: 'later', reason: `${err.code} (request ${err.requestId})` };
    throw err;
  }
}

if (import.meta.main) {
  const client = new VideoClient({ baseUrl: process.env.VIDEO_SERVICE_URL ?? 'http://localhost:3000/v1', apiKey: process.env.VIDEO_SERVICE_KEY ?? '' });
  console.log(await videoForProduct(client, process.argv[2] ?? 'Green tea', process.argv[3] ?? 'sku-1'));
}
