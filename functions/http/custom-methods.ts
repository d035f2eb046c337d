/**
 * POST /v1/{customMethod}: the custom methods of the route table (POST /videos:quick, POST /videos:quote) as one
 * function behind one route whose path variable is the whole last segment (functions/http/routes.ts, DeployedRoute).
 * The segment names the table's route, whose handler runs here; any other segment gets what the $default route's
 * handler answers, from that very handler.
 */
import { handler as createQuick } from './create-quick.ts';
import { handler as notFound } from './not-found.ts';
import { handler as quoteVideo } from './quote-video.ts';
import { CUSTOM_METHODS, customMethodOf, DEFAULT_ROUTE, DEPLOYED_ROUTES } from './routes.ts';

// Imported, not looked up by name: esbuild bundles only what is imported.
const HANDLERS: Record<string, typeof notFound> = {
  'create-quick': createQuick,
  'quote-video': quoteVideo,
  [DEFAULT_ROUTE.handler]: notFound,
};
const missing = DEPLOYED_ROUTES.filter((d) => d.handler === CUSTOM_METHODS.handler)
  .flatMap((d) => d.runs)
  .filter((h) => !HANDLERS[h]);
if (missing.length) throw new Error(`functions/http/custom-methods.ts does not import ${missing.join(', ')}`);

export const handler = (...args: Parameters<typeof notFound>) => {
  const [event] = args;
  const route = customMethodOf(event.routeKey, event.pathParameters?.[CUSTOM_METHODS.param] ?? '');
  return HANDLERS[route?.handler ?? DEFAULT_ROUTE.handler]!(...args);
};
