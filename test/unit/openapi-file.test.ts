/**
 * docs/openapi.json, the committed contract, is what GET /v1/openapi.json serves: the route's own handler runs here,
 * with no stack (the document needs no store; the handler's chain builds the services, which only name a table and
 * a bucket until a request reaches them), at the address the file names. And the document is the same in every
 * process whatever ran before it: a tool that edits the copy it was given changes nothing served afterwards.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { contractTypes, OPENAPI_FILE, OPENAPI_FILE_SERVER, openApiFile } from '../../bin/contract-types.ts';
import { openApiDocument } from '../../functions/http/openapi.ts';
import { lambdaContext } from '../../local/gateway.ts';

// The settings every function reads at its cold start; nothing is sent to the table or the bucket named here.
Object.assign(process.env, { PUBLIC_BASE_URL: OPENAPI_FILE_SERVER, TABLE_NAME: 'unused', BUCKET_NAME: 'unused', POWERTOOLS_LOG_LEVEL: 'CRITICAL' });

/** GET /v1/openapi.json through the route's handler and its middleware chain, as the gateway invokes it. */
async function served(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { handler } = await import('../../functions/http/get-openapi.ts');
  const event = {
    version: '2.0',
    routeKey: 'GET /v1/openapi.json',
    rawPath: '/v1/openapi.json',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId: 'openapi-file', http: { method: 'GET', path: '/v1/openapi.json' } },
  } as unknown as APIGatewayProxyEventV2;
  const res = (await handler(event, lambdaContext('get-openapi') as never)) as { statusCode: number; headers: Record<string, string>; body: string };
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

describe('docs/openapi.json', () => {
  it('is the document GET /v1/openapi.json serves, as npm run contract:types writes it', async () => {
    const file = readFileSync(OPENAPI_FILE, 'utf8');
    assert.equal(file, openApiFile(), 'docs/openapi.json is stale: run npm run contract:types');
    const res = await served();
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(res.body), JSON.parse(file));
    assert.equal(JSON.parse(file).servers[0].url, OPENAPI_FILE_SERVER);
  });

  it('is the same whatever a tool did to an earlier copy in the process', async () => {
    const first = JSON.stringify(openApiDocument(OPENAPI_FILE_SERVER));
    // openapi-typescript rewrites a discriminated union's `const` into an `enum` in the document it is handed.
    const handed = openApiDocument(OPENAPI_FILE_SERVER);
    const types = await contractTypes(handed);
    await (await import('openapi-typescript')).default(handed as never);
    (handed.components as { schemas: Record<string, unknown> }).schemas.Order = {};
    assert.equal(JSON.stringify(openApiDocument(OPENAPI_FILE_SERVER)), first);
    assert.equal(await contractTypes(), types, 'the types are the same when generated twice');
    assert.equal(JSON.stringify(JSON.parse((await served()).body)), first);
  });
});
