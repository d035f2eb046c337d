/**
 * A loopback stand-in for the three AWS calls of the deploy's preflight (bin/preflight.ts), answering as the services
 * do: Lambda's GetAccountSettings and GetFunctionConcurrency (REST-JSON), CloudFormation's DescribeStacks (the query
 * protocol, XML; ValidationError "does not exist" for a missing stack). There is no local Lambda or CloudFormation
 * otherwise; the real SDK clients talk to this through AWS_ENDPOINT_URL_LAMBDA and AWS_ENDPOINT_URL_CLOUDFORMATION.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeployAccount {
  quota: number;
  unreserved: number;
  /** The stacks that exist: their outputs, by stack name. */
  stacks: Record<string, Record<string, string>>;
  /** Reserved concurrency by function name. */
  reserved: Record<string, number>;
  /** GetAccountSettings answers 403 AccessDeniedException (a role without lambda:GetAccountSettings). */
  denied?: boolean;
}

export async function startDeployApis(account: DeployAccount): Promise<{ env: Record<string, string>; calls: string[]; stop(): Promise<void> }> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const json = (status: number, payload: object, type?: string) =>
        res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) }).end(JSON.stringify(payload));
      const xml = (status: number, text: string) =>
        res.writeHead(status, { 'content-type': 'text/xml' }).end(`<?xml version="1.0"?>${text.replace(/>\s+</g, '><')}`);
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'GET' && url.pathname === '/2016-08-19/account-settings') {
        calls.push('lambda:GetAccountSettings');
        if (account.denied) return json(403, { message: 'not authorized to perform: lambda:GetAccountSettings' }, 'AccessDeniedException');
        return json(200, { AccountLimit: { ConcurrentExecutions: account.quota, UnreservedConcurrentExecutions: account.unreserved } });
      }
      const fn = /^\/2019-09-30\/functions\/([^/]+)\/concurrency$/.exec(url.pathname)?.[1];
      if (req.method === 'GET' && fn) {
        calls.push(`lambda:GetFunctionConcurrency ${decodeURIComponent(fn)}`);
        const n = account.reserved[decodeURIComponent(fn)];
        return json(200, n === undefined ? {} : { ReservedConcurrentExecutions: n });
      }
      const form = new URLSearchParams(body);
      if (req.method === 'POST' && form.get('Action') === 'DescribeStacks') {
        const name = form.get('StackName')!;
        calls.push(`cloudformation:DescribeStacks ${name}`);
        const outputs = account.stacks[name];
        if (!outputs)
          return xml(
            400,
            `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code>
             <Message>Stack with id ${name} does not exist</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
          );
        const members = Object.entries(outputs)
          .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`)
          .join('');
        return xml(
          200,
          `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>
           <StackName>${name}</StackName><StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2026-11-01T00:00:00Z</CreationTime>
           <Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata>
           </DescribeStacksResponse>`,
        );
      }
      json(400, { message: `unexpected call ${req.method} ${req.url}` }, 'ValidationException');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { AWS_ENDPOINT_URL_LAMBDA: endpoint, AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint, AWS_ACCESS_KEY_ID: 'preflight', AWS_SECRET_ACCESS_KEY: 'preflight' },
    calls,
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
