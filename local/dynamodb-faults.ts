/**
 * A loopback proxy in front of DynamoDB Local, for the failures of DynamoDB that DynamoDB Local cannot produce: it
 * never throttles and is never away while its Java runs. This stand-in throttles as DynamoDB does (every read or
 * write answered ProvisionedThroughputExceededException, HTTP 400 in AWS's JSON error shape, and counted as the
 * table's ReadThrottleEvents or WriteThrottleEvents: local/metrics.ts) and can stop listening (connections refused, as
 * when DynamoDB cannot be reached). Only a stack started with `dynamoFaults` has it (local/stack.ts).
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { recordAwsMetric } from './metrics.ts';

export interface DynamoFaults {
  /** Where the service reaches DynamoDB through the proxy. */
  endpoint: string;
  /** Every read and write of the next `ms` is throttled. */
  throttleFor(ms: number): void;
  /** The proxy stops listening and drops its connections: DynamoDB cannot be reached until `back`. */
  goAway(): Promise<void>;
  back(): Promise<void>;
  stop(): Promise<void>;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** DynamoDB's answer to a throttled request (its JSON protocol's error shape). */
const THROTTLED = JSON.stringify({
  __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
});

interface DataRequest {
  TableName?: unknown;
  RequestItems?: Record<string, unknown>;
  TransactItems?: Record<string, { TableName?: unknown }>[];
}

/** The tables a request names: TableName, a batch's RequestItems, a transaction's items. */
function tablesOf(body: DataRequest): string[] {
  const names = new Set<string>();
  if (typeof body.TableName === 'string') names.add(body.TableName);
  for (const name of Object.keys(body.RequestItems ?? {})) names.add(name);
  for (const item of body.TransactItems ?? []) {
    for (const op of Object.values(item ?? {})) if (typeof op?.TableName === 'string') names.add(op.TableName);
  }
  return [...names];
}

export async function startDynamoFaults(upstream: string): Promise<DynamoFaults> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  let throttledUntil = 0;

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const kind = READS.has(operation) ? 'ReadThrottleEvents' : WRITES.has(operation) ? 'WriteThrottleEvents' : undefined;
    if (kind && Date.now() < throttledUntil) {
      let body: DataRequest = {};
      try {
        body = JSON.parse(raw.toString('utf8') || '{}');
      } catch {}
      for (const table of tablesOf(body)) recordAwsMetric('AWS/DynamoDB', kind, { TableName: table });
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'throttled' });
      return void res.end(THROTTLED);
    }
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res);
    });
    // DynamoDB Local gone (it is being restarted): the caller sees its connection reset, as it would without the proxy.
    forward.on('error', () => res.destroy());
    forward.end(raw);
  };

  let server = createServer((req, res) => void serve(req, res));
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    throttleFor(ms) {
      throttledUntil = Date.now() + ms;
    },
    goAway: close,
    async back() {
      server = createServer((req, res) => void serve(req, res));
      await listen(port);
    },
    async stop() {
      if (server.listening) await close();
      agent.destroy();
    },
  };
}
