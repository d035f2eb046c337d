/** What both creation routes share: the Idempotency-Key header, the use case call and the 201/200 reply. */
import { InvalidParams } from '../core/errors.ts';
import type { OrderRequest } from '../core/create-order.ts';
import { services } from '../app/services.ts';
import type { AuthedRequest, HttpRequest, ReplyOf } from './middleware.ts';
import type { createVideo } from './operations.ts';
import { present } from '../core/present.ts';

export const IDEMPOTENCY_KEY_MAX = 255;

function idempotencyKey(req: HttpRequest): string | undefined {
  const key = req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!key.trim()) throw new InvalidParams('Idempotency-Key', 'must not be empty');
  if (key.length > IDEMPOTENCY_KEY_MAX) throw new InvalidParams('Idempotency-Key', `must be at most ${IDEMPOTENCY_KEY_MAX} characters`);
  return key;
}

/** The order's options of a creation body, as the use case takes them. */
export function orderOptions(body: {
  deadline_seconds?: number | undefined;
  quote_id?: string | undefined;
  max_cost?: number | undefined;
  metadata?: Record<string, string> | undefined;
}) {
  return {
    ...present({ metadata: body.metadata, deadlineSeconds: body.deadline_seconds, quoteId: body.quote_id, maxCost: body.max_cost }),
  };
}

/** Both creation operations declare the same answers. */
export async function createOrderReply(req: AuthedRequest, request: OrderRequest): Promise<ReplyOf<typeof createVideo>> {
  const key = idempotencyKey(req);
  const result = await services().creation.create({
    account: req.account,
    request,
    ...present({ idempotencyKey: key }),
    now: req.now,
  });
  // A new order's transaction counted this POST; a replay's did not.
  return result.kind === 'replayed'
    ? { status: 200, body: result.response, headers: { 'idempotent-replayed': 'true' } }
    : { status: 201, body: result.response, postCounted: true };
}
