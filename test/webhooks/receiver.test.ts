import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createReceiver, type ReceivedEvent } from '../../local/receiver.ts';

const secret = 'whsec_test_secret';
const received: ReceivedEvent[] = [];
const server = createReceiver({ secret: () => secret, onEvent: (e) => received.push(e) });
let url: string;
before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => server.close());

const post = (raw: string, signature: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body: raw });
const sign = (raw: string) => createHmac('sha256', secret).update(raw).digest('hex');

describe('the reference receiver', () => {
  // Spacing a serializer would not keep: the signature covers these exact bytes.
  const raw = '{"id":"vid_1",  "status":"done","cost":100 }';

  it('accepts a correctly signed body once per order id and status', async () => {
    assert.equal((await post(raw, sign(raw))).status, 204);
    assert.equal((await post(raw, sign(raw))).status, 204);
    assert.equal(received.length, 1);
    assert.deepEqual([received[0]!.id, received[0]!.status], ['vid_1', 'done']);
  });

  it('rejects a body changed by one byte, a re-serialized body and a missing signature with 401', async () => {
    const changed = raw.replace('100', '101');
    assert.equal((await post(changed, sign(raw))).status, 401);
    const reserialized = JSON.stringify(JSON.parse(raw));
    assert.notEqual(reserialized, raw);
    assert.equal((await post(reserialized, sign(raw))).status, 401);
    assert.equal((await fetch(url, { method: 'POST', body: raw })).status, 401);
    assert.equal(received.length, 1);
  });
});
