/**
 * The routes deployed from the one route table (functions/http/routes.ts) and the local gateway's matching
 * (local/gateway.ts, matchRoute), which follows HTTP API's documented rules: a literal segment over a variable, a
 * variable over a greedy one, no match to $default, variables decoded once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_PREFIX, CUSTOM_METHODS, customMethodOf, DEPLOYED_ROUTES, deployedKey, ROUTES } from '../../functions/http/routes.ts';
import { compile, matchRoute } from '../../local/gateway.ts';

describe('the deployed routes', () => {
  it('serve every table route, with no colon in a route key: the custom methods share one route', () => {
    for (const r of ROUTES) {
      const key = deployedKey(`${r.method} ${r.path}`);
      assert.ok(
        DEPLOYED_ROUTES.some((d) => `${d.method} ${d.path}` === key && d.runs.includes(r.handler)),
        `${r.method} ${r.path}`,
      );
    }
    assert.deepEqual(
      DEPLOYED_ROUTES.filter((d) => d.path.includes(':')),
      [],
    );
    assert.deepEqual(
      DEPLOYED_ROUTES.filter((d) => d.handler === CUSTOM_METHODS.handler),
      [{ method: 'POST', path: `${API_PREFIX}/{customMethod}`, handler: 'custom-methods', runs: ['create-quick', 'quote-video', 'not-found'] }],
    );
    assert.equal(deployedKey('POST /videos'), 'POST /v1/videos');
    assert.throws(() => deployedKey('POST /videos:nothing'), /not in the route table/);
  });

  it('find the custom method by its decoded segment, decoding nothing again', () => {
    const key = deployedKey('POST /videos:quick');
    assert.equal(customMethodOf(key, 'videos:quick')?.handler, 'create-quick');
    assert.equal(customMethodOf(key, 'videos:quote')?.handler, 'quote-video');
    // What `%253A` is once decoded: not a colon.
    for (const other of ['videos', 'videos:Quick', 'videos:nothing', 'videos%3Aquick', 'videos%3aquote', 'webhooks', ''])
      assert.equal(customMethodOf(key, other), undefined, other);
    assert.equal(customMethodOf('GET /v1/{customMethod}', 'videos:quick'), undefined);
  });
});

describe('the local gateway', () => {
  // The example of AWS's guide for HTTP API routes, and a variable route beside a literal one; least specific first, so
  // that the order of the list decides nothing.
  const routes = [
    { method: 'GET', path: '/pets/{proxy+}', name: 'greedy' },
    { method: 'GET', path: '/pets/dog/{id}', name: 'variable' },
    { method: 'GET', path: '/pets/dog/1', name: 'literal' },
    { method: 'POST', path: '/pets/{name}', name: 'post variable' },
    { method: 'POST', path: '/pets/new', name: 'post literal' },
  ].map(compile);
  const match = (method: string, path: string) => {
    const m = matchRoute(routes, method, path);
    return m.route ? [m.route.name, m.pathParameters] : '$default';
  };

  it('picks the most specific route: a literal, then a variable, then a greedy one, else $default', () => {
    assert.deepEqual(match('GET', '/pets/dog/1'), ['literal', {}]);
    assert.deepEqual(match('GET', '/pets/dog/2'), ['variable', { id: '2' }]);
    assert.deepEqual(match('GET', '/pets/cat/1'), ['greedy', { proxy: 'cat/1' }]);
    assert.deepEqual(match('GET', '/pets/dog/1/toys'), ['greedy', { proxy: 'dog/1/toys' }]);
    assert.deepEqual(match('POST', '/pets/new'), ['post literal', {}]);
    assert.deepEqual(match('POST', '/pets/rex'), ['post variable', { name: 'rex' }]);
    for (const [method, path] of [
      ['GET', '/pets'],
      ['GET', '/pets/'],
      ['POST', '/pets/dog/1'],
      ['POST', '/pets/'],
      ['DELETE', '/pets/dog/1'],
    ])
      assert.equal(match(method!, path!), '$default', `${method} ${path}`);
  });

  it('decodes variables once, compares literals as sent, and sends a variable that does not decode to $default', () => {
    assert.deepEqual(match('GET', '/pets/dog/a%2Fb'), ['variable', { id: 'a/b' }]);
    assert.deepEqual(match('GET', '/pets/dog/a%2525'), ['variable', { id: 'a%25' }]);
    assert.deepEqual(match('POST', '/pets/n%65w'), ['post variable', { name: 'new' }]);
    assert.equal(match('GET', '/pets/dog/%zz'), '$default');
    assert.equal(match('POST', '/pets/%E0%A4%A'), '$default');
  });

  it('serves the deployed routes: both spellings of a custom method reach its route, decoded once', () => {
    const deployed = DEPLOYED_ROUTES.map(compile);
    const methodOf = (path: string) => {
      const m = matchRoute(deployed, 'POST', path);
      assert.equal(m.route?.handler, CUSTOM_METHODS.handler, path);
      return customMethodOf(`${m.route!.method} ${m.route!.path}`, m.pathParameters![CUSTOM_METHODS.param]!)?.handler;
    };
    for (const path of ['/v1/videos:quick', '/v1/videos%3Aquick', '/v1/videos%3aquick']) assert.equal(methodOf(path), 'create-quick', path);
    for (const path of ['/v1/videos%253Aquick', '/v1/videos%253aquick', '/v1/videos%25253Aquick']) assert.equal(methodOf(path), undefined, path);
    assert.equal(matchRoute(deployed, 'POST', '/v1/videos').route?.handler, 'create-video');
    assert.equal(matchRoute(deployed, 'GET', '/v1/videos:quick').route, undefined);
  });
});
