/** DELETE /assets/{id}: 204; the asset and its bytes are gone (orders made before keep their copies). */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.deleteAsset)(async (req) => {
  await services().assets.delete(req.account.userId, req.pathParameters.id, req.now);
  return { status: 204 };
});
