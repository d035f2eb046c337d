/**
 * The contract's generated types used without the client: plain fetch, typed from paths and components of
 * src/schema.ts (openapi-typescript). The tests type-check this file against types generated afresh from the
 * running service's /openapi.json, and run it.
 *
 *   VIDEO_SERVICE_KEY=vgk_... node clients/js/examples/typed-fetch.ts "Green tea"
 */
import type { components, paths } from '../src/schema.ts';

type Order = components['schemas']['Order'];
type ApiError = components['schemas']['ErrorResponse'];
type CreateBody = paths['/videos']['post']['requestBody']['content']['application/json'];
type Created = paths['/videos']['post']['responses']['201']['content']['application/json'];
type Balance = paths['/balance']['get']['responses']['200']['content']['application/json'];

async function call<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json: unknown = await res.json();
  if (!res.ok) throw new Error((json as ApiError).error.code);
  return json as T;
}

/** Every status the contract knows; a new one fails this switch at compile time. */
export function summary(order: Order): string {
  switch (order.status) {
    case 'queued':
    case 'running':
      return `${order.id} is ${order.status}, about ${order.eta_seconds ?? '?'} s left`;
    case 'awaiting_review':
      return `${order.id} waits for a review of:\n${order.script ?? ''}`;
    case 'done':
      return `${order.id} is done: ${order.metadata?.title ?? ''} ${order.result_url ?? ''}`;
    case 'error':
      return `${order.id} failed: ${order.error?.code ?? 'unknown'}`;
    default: {
      const unknown: never = order.status;
      return unknown;
    }
  }
}

export async function orderOnce(base: string, key: string, topic: string): Promise<{ created: Created; order: Order; balance: Balance }> {
  const body: CreateBody = { topic, duration_seconds: 10, tone: 'calm', director_mode: true };
  const created = await call<Created>(base, key, 'POST', '/videos', body);
  const order = await call<Order>(base, key, 'GET', `/videos/${created.id}`);
  const balance = await call<Balance>(base, key, 'GET', '/balance');
  return { created, order, balance };
}

if (import.meta.main) {
  const base = process.env.VIDEO_SERVICE_URL ?? 'http://localhost:3000/v1';
  const { created, order, balance } = await orderOnce(base, process.env.VIDEO_SERVICE_KEY ?? '', process.argv[2] ?? 'Green tea');
  console.log(`ordered ${created.id} for ${created.cost}; balance ${balance.balance}`);
  console.log(summary(order));
}
