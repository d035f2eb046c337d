/** Every request that matches no route: 404 not_found in the envelope (API Gateway's $default route). */
import { notFound } from '../core/errors.ts';
import { httpRoute } from './middleware.ts';
import { DEFAULT_ROUTE } from './routes.ts';

export const handler = httpRoute({ route: DEFAULT_ROUTE })(async (req) => {
  throw notFound(`route ${req.event.requestContext.http.method} ${req.event.rawPath}`);
});
