/**
 * Public AWS list prices (us-east-1, on-demand, without free tiers) that the cost estimate multiplies measured counts
 * by. Prices move: check https://aws.amazon.com/pricing before relying on the result.
 */
export const PRICES_USD = {
  /** API Gateway HTTP API, per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** Lambda on arm64, per GB-second; on x86-64 (the render's container image), per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaX86GbSecond: 0.0000166667,
  /** DynamoDB on-demand, per write request unit and per read request unit. */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** Step Functions standard workflows, per state transition. */
  stepFunctionsTransition: 0.025 / 1000,
  /** S3 Standard, per PUT (or COPY, POST, LIST) and per GET (or HEAD). */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  /** CloudWatch Logs (Standard), per GB ingested: each event's message and 26 bytes. */
  logsIngestedGb: 0.5,
} as const;
