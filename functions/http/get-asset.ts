/** GET /assets/{id}: the key's asset (403 for another key's). */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.getAsset)(async (req) => ({
  status: 200,
  body: await services().assets.read(req.account.userId, req.pathParameters.id, req.now),
}));
