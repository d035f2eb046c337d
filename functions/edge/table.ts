/**
 * The edge's entries (lib/edge.ts): where a stage puts CloudFront and AWS WAF in front of the API, its origin check is
 * an HTTP API Lambda authorizer on every route. CDK and the local gateway both read this entry, so the header, the
 * cache and the answers cannot differ between them.
 */
export const ORIGIN_VERIFY = {
  /** The handler module, functions/edge/<handler>.ts. */
  handler: 'origin-verify',
  /** The header CloudFront adds to every request it forwards, holding the secret value (lowercase: HTTP API's form). */
  header: 'x-origin-verify',
  /** API Gateway keeps each answer per header value this long (its maximum), so CloudFront's traffic rarely runs it. */
  cacheSeconds: 3600,
} as const;
