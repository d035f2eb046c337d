/**
 * The API's authorizer on a stage with the edge (lib/edge.ts): a request passes when it carries the value CloudFront
 * adds to every request it forwards, so a caller who finds the API's own address cannot go around AWS WAF's per-address
 * limits. API Gateway answers 401 by itself when the header is missing (this function does not run), 403 when this
 * answers false, and keeps each answer per header value for an hour. It checks no API key: the functions do, with the
 * contract's envelope.
 */
import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerResult } from 'aws-lambda';
import { originVerifySettings } from '../adapters/config.ts';
import { RotatedSecret } from '../adapters/secrets.ts';
import { cameThroughEdge } from '../core/origin.ts';
import { ORIGIN_VERIFY } from './table.ts';

let secret: RotatedSecret | undefined;

export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerResult> => {
  secret ??= new RotatedSecret(originVerifySettings(), 'ORIGIN_VERIFY');
  return { isAuthorized: await cameThroughEdge(event.headers?.[ORIGIN_VERIFY.header], secret) };
};
