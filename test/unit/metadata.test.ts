/** Client metadata's pure parts: the query's deepObject form, and the idempotency hash that binds the pairs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askedOrder, type OrderRequest, requestHashes } from '../../functions/core/order-request.ts';
import { planFromPrompt } from '../../functions/generator/planner.ts';
import { deepObject } from '../../functions/http/middleware.ts';

const deps = { planPrompt: planFromPrompt, deliverable: { ai_visual: true, voice_clone: true } };
const hashes = (req: OrderRequest) => requestHashes(req, askedOrder(deps, req), 'api');

describe('client metadata', () => {
  it('reads metadata[KEY]=VALUE as one object, and other names as they are', () => {
    assert.deepEqual(deepObject({ 'metadata[crm]': 'a', 'metadata[utm.source]': 'b', limit: '5', status: undefined }), {
      metadata: { crm: 'a', 'utm.source': 'b' },
      limit: '5',
      status: undefined,
    });
    assert.deepEqual(deepObject({ 'a[b][c]': '1', 'x[': '2' }), { 'a[b][c]': '1', 'x[': '2' }, 'only one level, well formed');
    // The hostile suite's case: an assignment would have set the prototype, and the strict schema seen nothing.
    const proto = deepObject(JSON.parse('{"__proto__": "1", "metadata[__proto__]": "2"}'));
    assert.deepEqual(Object.keys(proto).sort(), ['__proto__', 'metadata']);
    assert.deepEqual(Object.keys(proto.metadata as object), ['__proto__']);
  });

  it('hashes a request without pairs exactly as before pairs existed (stored idempotency records still answer)', () => {
    // The hashes of this request on the code before metadata (main at 9e36f3d).
    const req: OrderRequest = { kind: 'quick', prompt: 'Funny 20 second video about cats', deadlineSeconds: 600, maxCost: 300 };
    assert.deepEqual(hashes(req), {
      priced: 'a9f49b804af942ae5b951b50b11bc982034340042b03df4f8d8059658162f720',
      full: '0f7e67ff76ebc9a7b07a874878957788f207807c4fa91071920328153a7fb615',
    });
    assert.deepEqual(hashes({ ...req, metadata: {} }), hashes(req), 'no pairs is no pairs');
  });

  it('binds the pairs in the full hash, in key order, and leaves the price alone', () => {
    const req: OrderRequest = { kind: 'quick', prompt: 'Cats' };
    const a = hashes({ ...req, metadata: { a: '1', b: '2' } });
    assert.deepEqual(a, hashes({ ...req, metadata: { b: '2', a: '1' } }));
    assert.notEqual(a.full, hashes({ ...req, metadata: { a: '1', b: '3' } }).full);
    assert.notEqual(a.full, hashes(req).full);
    assert.equal(a.priced, hashes(req).priced, 'a quote prices the same with or without pairs');
  });
});
