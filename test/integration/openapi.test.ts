/**
 * The contract as served: GET /openapi.json (no key) is a valid OpenAPI 3.1 document by an independent validator and
 * describes every route, header, error code and the webhook events; GET /docs serves the reference page and its
 * assets from the service. Every answer the tests fetch from a test stack is checked against this document
 * (test/support/contract.ts); the last tests here show that check refusing what breaks the document.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { STATUS_OF } from '../../functions/http/errors.ts';
import { ROUTES } from '../../functions/http/routes.ts';
import { checkAgainstContract, checkFetchesTo } from '../support/contract.ts';
import { useStack } from '../support/stack.ts';

const t = useStack();

describe('the OpenAPI document', () => {
  it('is served without a key and is valid OpenAPI 3.1', async () => {
    const res = await t.api('GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.equal(res.body.servers[0].url, t.baseUrl);
    const result = await new Validator().validate(res.body);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
  });

  it('describes every route, the headers, every error code and the webhook events', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      assert.ok(op, `${r.method} ${r.path}`);
      assert.deepEqual(op.security, r.auth ? undefined : [], `${r.method} ${r.path} needs a key: ${r.auth}`);
      if (r.auth) assert.ok(op.responses['401'], `${r.method} ${r.path} documents 401`);
    }
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: doc.components.securitySchemes.ApiKey.description,
    });
    const text = JSON.stringify(doc);
    for (const header of ['Idempotency-Key', 'Retry-After', 'X-Service-Signature', 'Idempotent-Replayed']) assert.ok(text.includes(`"${header}"`), header);
    assert.deepEqual(doc.components.schemas.ErrorCode.enum.sort(), Object.keys(STATUS_OF).sort());
    for (const code of Object.keys(STATUS_OF)) assert.ok(text.includes(`\`${code}\``), `error code ${code} is documented on an operation`);
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item as Record<string, { operationId: string }>).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    assert.deepEqual(Object.keys(doc.webhooks).sort(), ['balance.low', 'video.awaiting_review', 'video.done', 'video.error', 'webhook.test']);
    assert.equal(doc.webhooks['video.done'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/Order');
    const quick = doc.paths['/videos:quick'].post;
    assert.ok(quick.responses['429'].headers['Retry-After']);
    assert.ok(quick.parameters.some((p: { name: string }) => p.name === 'Idempotency-Key'));
    assert.deepEqual(
      quick['x-codeSamples'].map((s: { lang: string }) => s.lang),
      ['Shell', 'JavaScript', 'Python'],
    );
  });

  it('can grow without breaking clients: answers open to new fields, requests strict, enums and review branches named', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    const schemas = doc.components.schemas as Record<string, Record<string, any>>;
    const text = (name: string) => JSON.stringify(schemas[name]);
    for (const answer of ['Order', 'CreationResponse', 'WebhookCreated', 'WebhookList', 'DeliveryList', 'Balance', 'ErrorResponse'])
      assert.doesNotMatch(text(answer), /"additionalProperties":false/, answer);
    for (const request of ['CreateVideoRequest', 'QuickVideoRequest', 'ReviewApprove', 'ReviewEdit', 'ReviewRegen', 'CreateWebhookRequest'])
      assert.equal(schemas[request]!.additionalProperties, false, request);
    // No schema is named Error: generated code would shadow the language's own.
    assert.equal(schemas.Error, undefined);
    for (const [name, where] of [
      ['OrderStatus', ['Order', 'CreationResponse']],
      ['Tone', ['Order', 'CreateVideoRequest']],
      ['Language', ['Order', 'CreateVideoRequest']],
      ['Music', ['Order', 'CreateVideoRequest']],
      ['Voice', ['Order', 'CreateVideoRequest']],
      ['Channel', ['Order']],
      ['Billing', ['CreateVideoRequest']],
      ['WebhookEvent', ['DeliveryList']],
      ['ErrorCode', ['ErrorResponse']],
    ] as const) {
      assert.ok(schemas[name]!.enum.length > 1, name);
      for (const user of where) assert.ok(text(user).includes(`"#/components/schemas/${name}"`), `${user} refers to ${name}`);
    }
    assert.deepEqual(schemas.ReviewRequest!.discriminator, {
      propertyName: 'action',
      mapping: { approve: '#/components/schemas/ReviewApprove', edit: '#/components/schemas/ReviewEdit', regen: '#/components/schemas/ReviewRegen' },
    });
    for (const time of ['created_at', 'updated_at']) assert.equal(schemas.Order!.properties[time].format, 'date-time');
    assert.equal(schemas.Order!.properties.cost.minimum, 0);
    assert.equal(schemas.CreationResponse!.properties.cost.minimum, 0);
    // The creation routes say what a reused Idempotency-Key answers; the download route what its redirect leads to.
    assert.match(doc.paths['/videos'].post.responses['422'].description, /Idempotency-Key used with a different request/);
    assert.deepEqual(Object.keys(doc.paths['/files/{id}/{file}'].get.responses['200'].content), ['video/mp4', 'image/jpeg']);
    assert.deepEqual(
      Object.values(doc.webhooks).map((w: any) => w.post.operationId),
      ['videoAwaitingReview', 'videoDone', 'videoError', 'balanceLow', 'webhookTest'],
    );
  });

  it("passes Spectral's and Redocly's recommended rules with no error and no warning", async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    // A public address, as on AWS (the rules warn about a localhost server, which the test stack has).
    doc.servers = [{ url: 'https://video.service.test/v1' }];
    const source = JSON.stringify(doc, null, 2);
    const { Spectral, Document } = (await import('@stoplight/spectral-core')) as any;
    const { oas } = await import('@stoplight/spectral-rulesets');
    const { Json } = await import('@stoplight/spectral-parsers');
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas, 'recommended']] });
    const found = (await spectral.run(new Document(source, Json, 'openapi.json'))) as { code: string; path: string[]; message: string }[];
    assert.deepEqual(
      found.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`),
      [],
    );
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) } as never);
    assert.deepEqual(
      problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`),
      [],
    );
  });

  it('serves the reference page and its assets without a key, nothing from elsewhere', async () => {
    const page = await fetch(`${t.baseUrl}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(sources.sort(), ['/v1/docs/swagger-ui-bundle.js', '/v1/docs/swagger-ui.css']);
    for (const [asset, type] of [
      ['swagger-ui-bundle.js', /javascript/],
      ['swagger-ui.css', /css/],
    ] as const) {
      const res = await fetch(`${t.baseUrl}/docs/${asset}`);
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('content-type')!, type);
      assert.ok((await res.text()).length > 10_000, asset);
    }
    assert.equal((await t.api('GET', '/docs/../../etc/passwd')).status, 404);
    assert.equal((await t.api('GET', '/docs/index.html')).status, 404);
  });

  it('refuses, in the contract check, answers that break the document', () => {
    assert.throws(() => checkAgainstContract('GET', '/v1/balance', 200, 'application/json', { balance: '12' }), /does not match/);
    assert.throws(() => checkAgainstContract('GET', '/v1/balance', 418, 'application/json', { error: { code: 'teapot', message: 'x' } }), /error envelope/);
    assert.throws(() => checkAgainstContract('GET', '/v1/balance', 201, 'application/json', {}), /status not in the OpenAPI document/);
    assert.doesNotThrow(() =>
      checkAgainstContract('GET', '/v1/balance', 200, 'application/json', {
        balance: 12,
        trial_videos_left: 0,
        livemode: true,
        spend: { month: '2026-11', spent: 0 },
      }),
    );
    // A documented status with a code the operation does not list for it.
    assert.throws(
      () => checkAgainstContract('POST', '/v1/videos/vid_x/cancel', 409, 'application/json', { error: { code: 'quote_invalid', message: 'x' } }),
      /error code quote_invalid is not among those the operation documents/,
    );
    assert.doesNotThrow(() =>
      checkAgainstContract('POST', '/v1/videos/vid_x/cancel', 409, 'application/json', { error: { code: 'not_cancelable', message: 'x' } }),
    );
  });

  it('checks every fetch to a checked address: a server breaking the document makes the fetch fail', async () => {
    // A real server on loopback that answers like the API but breaks the contract.
    const server = createServer((req, res) => {
      const [status, body] = req.url === '/v1/balance' ? [200, { balance: 'lots' }] : [404, { message: 'not the envelope' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const stop = checkFetchesTo(base);
    try {
      await assert.rejects(fetch(`${base}/balance`), /does not match the OpenAPI document/);
      await assert.rejects(fetch(`${base}/nowhere`), /not the error envelope/);
    } finally {
      stop();
      server.closeAllConnections();
      server.close();
    }
  });
});
