/**
 * The one route table, derived from the operations (functions/http/operations.ts): CDK builds the HTTP API from it and
 * the local gateway serves it; each route's handler is functions/http/<handler>.ts exporting `handler`. Paths are
 * relative to the /v1 prefix.
 */
import { OPERATIONS, type Route } from './operations.ts';

export type { Route };

export const API_PREFIX = '/v1';

export const ROUTES: readonly Route[] = OPERATIONS.map((o) => o.route);

/** Requests that match no route; it answers 404 not_found in the envelope. */
export const DEFAULT_ROUTE = { handler: 'not-found', auth: false } as const;

/**
 * A route as the HTTP API is built with it (lib/api.ts) and the local gateway serves it (local/gateway.ts), derived
 * from the table above. HTTP API documents a route as a method and a path whose variables each take one whole segment;
 * it documents no colon inside a segment, nor how a client's `%3A` compares with one. So the custom methods (a last
 * segment `collection:verb`, as POST /videos:quick) are deployed as one route per method and parent path whose
 * variable takes that whole segment (POST /v1/{customMethod}); the exact routes beside it (POST /v1/videos) are more
 * specific and win. Its function (functions/http/custom-methods.ts) finds the table's route by the decoded segment.
 */
export interface DeployedRoute {
  method: Route['method'];
  /** The route key's path, /v1 included. */
  path: string;
  /** The function the route integrates with: a handler of the table, or CUSTOM_METHODS.handler. */
  handler: string;
  /** The handlers that function runs: its own; for the custom methods, each one's and the 404's (any other name). */
  runs: string[];
}

export const CUSTOM_METHODS = { handler: 'custom-methods', param: 'customMethod' } as const;

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const isCustomMethod = (r: Route) => lastSegment(r.path).includes(':');
const customMethodsPath = (r: Route) => `${API_PREFIX}${r.path.slice(0, r.path.lastIndexOf('/'))}/{${CUSTOM_METHODS.param}}`;

function deploy(): DeployedRoute[] {
  const deployed: DeployedRoute[] = [];
  for (const r of ROUTES) {
    if (!isCustomMethod(r)) {
      deployed.push({ method: r.method, path: API_PREFIX + r.path, handler: r.handler, runs: [r.handler] });
      continue;
    }
    if (r.path.includes('{')) throw new Error(`${r.method} ${r.path}: a custom method's path must be literal`);
    const path = customMethodsPath(r);
    const group = deployed.find((d) => d.method === r.method && d.path === path);
    if (group) group.runs.splice(-1, 0, r.handler);
    else deployed.push({ method: r.method, path, handler: CUSTOM_METHODS.handler, runs: [r.handler, DEFAULT_ROUTE.handler] });
  }
  // Two routes whose paths differ only in their variables' names would be one route to API Gateway.
  const shapes = deployed.map((d) => `${d.method} ${d.path.replace(/\{\w+\}/g, '{}')}`);
  const twice = shapes.filter((s, i) => shapes.indexOf(s) !== i);
  if (twice.length) throw new Error(`Routes that API Gateway cannot tell apart: ${twice.join(', ')}`);
  return deployed;
}

export const DEPLOYED_ROUTES: readonly DeployedRoute[] = deploy();

/** The deployed route key of a table route, as `METHOD /path` (stage throttles name table routes this way). */
export function deployedKey(tableKey: string): string {
  const r = ROUTES.find((x) => `${x.method} ${x.path}` === tableKey);
  if (!r) throw new Error(`${tableKey} is not in the route table`);
  return `${r.method} ${isCustomMethod(r) ? customMethodsPath(r) : API_PREFIX + r.path}`;
}

/**
 * The table's custom method a request on a custom methods' route names: by its route key and the segment in its path
 * variable, as API Gateway decoded it (a client's `%3A` is a colon by then). Nothing is decoded here: a second
 * decoding would take `%253A` for a colon, a path the edge's creation rule (lib/edge.ts) did not see as a creation.
 */
export function customMethodOf(routeKey: string, segment: string): Route | undefined {
  const [method, path = ''] = routeKey.split(' ');
  const parent = path.slice(API_PREFIX.length, path.lastIndexOf('/'));
  return ROUTES.find((r) => r.method === method && r.path === `${parent}/${segment}` && isCustomMethod(r));
}
