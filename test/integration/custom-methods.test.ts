/**
 * The custom methods (POST /videos:quick, POST /videos:quote) on the local stack, through the local gateway, which
 * routes as HTTP API documents and with the routes lib/api.ts deploys (functions/http/routes.ts, DEPLOYED_ROUTES):
 * whether the client sends the colon or `%3A`, the order is created or quoted; the segment is decoded once (`%253A`
 * is no colon); any other name on that route answers as the $default route does; the exact routes beside it still win; a path that does not decode is a clean 404.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { CUSTOM_METHODS, deployedKey } from '../../functions/http/routes.ts';
import { lambdaContext } from '../../local/gateway.ts';
import { errorCode, useStack } from '../support/stack.ts';

// Executions are accepted and held: these tests are about routing, not about rendering.
const t = useStack({ LOCAL_SFN_HOLD: '1' });
const quick = { prompt: 'A 10 second video about green tea' };

describe('the custom methods', () => {
  it('create an order through POST /v1/videos:quick, /v1/videos%3Aquick and /v1/videos%3aquick', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const ids = new Set<string>();
    for (const path of ['/videos:quick', '/videos%3Aquick', '/videos%3aquick']) {
      const res = await t.api('POST', path, { key, body: quick });
      assert.equal(res.status, 201, `${path}: ${res.text}`);
      assert.match(res.body.id, /^vid_/, path);
      ids.add(res.body.id);
    }
    assert.equal(ids.size, 3, 'three orders');
    const listed = await t.api('GET', '/videos?limit=10', { key });
    assert.deepEqual(new Set(listed.body.data.map((o: { id: string }) => o.id)), ids);
  });

  it('quote through POST /v1/videos:quote and /v1/videos%3Aquote, charging nothing', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    for (const path of ['/videos:quote', '/videos%3Aquote']) {
      const res = await t.api('POST', path, { key, body: quick });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.match(res.body.quote_id, /^quo_/, path);
    }
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000);
  });

  it('answer any other name on their route exactly as the $default route does', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    for (const path of ['/videos:nothing', '/videos%3Anothing', '/balance', '/videos:Quick']) {
      const res = await t.api('POST', path, { key, body: quick });
      assert.deepEqual([res.status, errorCode(res)], [404, 'not_found'], path);
    }
    // The same event to both handlers: the same answer, headers and all.
    const [{ handler: customMethods }, { handler: notFound }] = await Promise.all([
      import('../../functions/http/custom-methods.ts'),
      import('../../functions/http/not-found.ts'),
    ]);
    const event = {
      version: '2.0',
      routeKey: deployedKey('POST /videos:quick'),
      rawPath: '/v1/videos:nothing',
      rawQueryString: '',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      pathParameters: { [CUSTOM_METHODS.param]: 'videos:nothing' },
      requestContext: { requestId: 'req-1', http: { method: 'POST', path: '/v1/videos:nothing' } },
      body: JSON.stringify(quick),
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const call = (h: (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>) => h(event, lambdaContext('custom-methods', 'req-1'));
    const answer = await call(customMethods as never);
    assert.equal((answer as { statusCode: number }).statusCode, 404);
    assert.deepEqual(answer, await call(notFound as never));
  });

  it('leave the exact routes beside them to their own handlers', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    // POST /v1/videos and POST /v1/webhooks are not the custom methods' route, which would answer 404.
    for (const path of ['/videos', '/webhooks']) {
      const res = await t.api('POST', path, { key, body: {} });
      assert.deepEqual([res.status, errorCode(res)], [422, 'invalid_params'], path);
    }
  });

  it('decode the method segment once: a %25 in it is a 404 in the envelope, and nothing is created or charged', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    for (const path of ['/videos%253Aquick', '/videos%253aquick', '/videos%25253Aquick', '/videos%253Aquote', '/videos%25%33Aquick']) {
      const res = await t.api('POST', path, { key, body: quick });
      assert.deepEqual([res.status, errorCode(res)], [404, 'not_found'], `${path}: ${res.text}`);
    }
    assert.deepEqual((await t.api('GET', '/videos', { key })).body.data, []);
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, 1000);
  });

  it('answer a path that does not decode with a clean 404 envelope', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    for (const [method, path] of [
      ['POST', '/videos%3'],
      ['POST', '/videos%zzquick'],
      ['POST', '/%E0%A4%A'],
      ['GET', '/videos/%zz'],
    ] as const) {
      const res = await t.api(method, path, { key, ...(method === 'POST' ? { body: quick } : {}) });
      assert.deepEqual([res.status, errorCode(res)], [404, 'not_found'], path);
    }
  });
});
