/** POST /assets: a picture of the key's own, and the presigned URL its bytes go to. */
import { services } from '../app/services.ts';
import { httpRoute } from './middleware.ts';
import * as operations from './operations.ts';

export const handler = httpRoute(operations.createAsset)(async (req) => ({
  status: 201,
  body: await services().assets.create(req.account, req.body, req.now),
}));
