/**
 * A loopback stand-in for the one Secrets Manager call the service makes, GetSecretValue by version stage, answering
 * as Secrets Manager does (AWS JSON 1.1; ResourceNotFoundException for a missing secret or version), with PutSecretValue's
 * effect on the stages (the current value becomes AWSPREVIOUS) and failures injected into the next calls. There is no
 * local Secrets Manager otherwise; the real SDK client talks to this through AWS_ENDPOINT_URL_SECRETS_MANAGER.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsManagerStandIn {
  /** The environment that points the SDK here. */
  env: Record<string, string>;
  /** Calls answered, by secret id. */
  reads: Map<string, number>;
  /** A new current value, as PutSecretValue makes it: the one before becomes AWSPREVIOUS. */
  put(secretId: string, value: string): void;
  /** The next calls fail with these errors, one each. */
  failNext(...errors: { status: number; type: string }[]): void;
  stop(): Promise<void>;
}

export async function startSecretsManager(): Promise<SecretsManagerStandIn> {
  const secrets = new Map<string, { current: string; previous?: string }>();
  const reads = new Map<string, number>();
  const failures: { status: number; type: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const send = (status: number, payload: object) => res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
      const input = JSON.parse(body || '{}') as { SecretId?: string; VersionStage?: string };
      if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue' || !input.SecretId)
        return send(400, { __type: 'ValidationException', message: 'unexpected call' });
      reads.set(input.SecretId, (reads.get(input.SecretId) ?? 0) + 1);
      const failure = failures.shift();
      if (failure) return send(failure.status, { __type: failure.type, message: 'injected' });
      const stage = input.VersionStage ?? 'AWSCURRENT';
      const value = secrets.get(input.SecretId)?.[stage === 'AWSPREVIOUS' ? 'previous' : 'current'];
      if (value === undefined)
        return send(400, { __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret value for staging label: ${stage}` });
      send(200, { ARN: input.SecretId, Name: input.SecretId, SecretString: value, VersionId: `v-${value.length}`, VersionStages: [stage] });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    env: {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    },
    reads,
    put: (id, value) => {
      const before = secrets.get(id);
      secrets.set(id, { current: value, ...(before ? { previous: before.current } : {}) });
    },
    failNext: (...errors) => failures.push(...errors),
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
