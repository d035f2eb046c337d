/**
 * Prism in the contract proxy's chain (test/support/prism.ts, test/support/contract.ts), the one every client suite
 * in another process talks through: in front of a stand-in for the service, Prism forwards what the document allows
 * untouched, reports an answer that breaches docs/openapi.json beside the proxy's own check, keeps a request outside
 * the document apart, and is stopped with the proxy. Where Prism cannot start the proxy goes straight to the service:
 * this test then skips, saying why. The clients' own suites run through the same chain (python-client, cli).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { contractProxy, type ContractProxy } from '../support/contract.ts';

const BALANCE = { balance: 1000, trial_videos_left: 0, livemode: true, spend: { month: '2026-11', spent: 0 } };

describe('Prism behind the contract proxy', () => {
  let service: Server;
  let proxy: ContractProxy;
  const seen: string[] = [];

  before(async () => {
    // The service's answers as they are (GET /balance), and one that breaks the document (a balance that is text).
    service = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const body = req.url === '/v1/balance' ? BALANCE : req.url?.startsWith('/v1/balance?variant=broken') ? { ...BALANCE, balance: 'lots' } : undefined;
      if (!body)
        return res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'No such route' } }));
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r-1' }).end(JSON.stringify(body));
    });
    await new Promise<void>((ok) => service.listen(0, '127.0.0.1', ok));
    proxy = await contractProxy(`http://127.0.0.1:${(service.address() as AddressInfo).port}/v1`);
  });
  after(() => {
    proxy?.close();
    service?.closeAllConnections();
    service?.close();
  });

  it('forwards what the document allows untouched, and reports a breach and a request outside it apart', async (t) => {
    if (!proxy.prism) return t.skip(`Prism did not start: ${proxy.prismSkipped}`);
    const key = { 'x-api-key': 'vgk_test' };
    const ok = await fetch(`${proxy.baseUrl}/balance`, { headers: key });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), BALANCE);
    assert.equal(ok.headers.get('x-request-id'), 'r-1');
    assert.equal(ok.headers.get('sl-violations'), null, "Prism's header is the proxy's, not the client's");
    assert.equal(proxy.violations.length, 0, proxy.violations.join('\n'));

    const broken = await fetch(`${proxy.baseUrl}/balance?variant=broken`, { headers: key });
    assert.equal((await broken.json()).balance, 'lots', `reported, not refused: Prism runs without --errors (${seen.join(', ')})`);
    const prismSaw = proxy.violations.filter((v) => v.startsWith('Prism: '));
    assert.equal(prismSaw.length, 1, proxy.violations.join('\n'));
    assert.match(prismSaw[0]!, /^Prism: GET \/v1\/balance\?variant=broken -> 200: response\.body\.balance: .*integer/);
    assert.ok(
      proxy.violations.some((v) => !v.startsWith('Prism: ') && /balance/.test(v)),
      "the proxy's own check found it too",
    );

    // No key: a request the document refuses, which the service answers (401 here as 404): kept apart.
    await (await fetch(`${proxy.baseUrl}/videos`)).text();
    assert.ok(
      proxy.prism.requestViolations.some((v) => v.startsWith('GET /v1/videos -> 404: request')),
      proxy.prism.requestViolations.join('\n'),
    );
    assert.deepEqual(seen, ['GET /v1/balance', 'GET /v1/balance?variant=broken', 'GET /v1/videos'], 'each request reached the service once, as sent');
    assert.equal(proxy.prism.exchanges, 3);
  });

  it('stops the Prism process it started', async (t) => {
    if (!proxy.prism) return t.skip(`Prism did not start: ${proxy.prismSkipped}`);
    const pid = proxy.prism.pid;
    assert.ok(pid);
    await proxy.prism.close();
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });

  it('goes straight to the service when Prism cannot start, saying why', async () => {
    const direct = await contractProxy(`http://127.0.0.1:${(service.address() as AddressInfo).port}/v1`, { prismDocument: '/nonexistent/openapi.json' });
    try {
      assert.equal(direct.prism, undefined);
      assert.match(direct.prismSkipped ?? '', /Prism/);
      const res = await fetch(`${direct.baseUrl}/balance`, { headers: { 'x-api-key': 'vgk_test' } });
      assert.deepEqual([res.status, direct.checked, direct.violations], [200, 1, []]);
    } finally {
      direct.close();
    }
  });
});
