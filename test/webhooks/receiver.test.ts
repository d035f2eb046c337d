/**
 * The reference receiver (local/receiver.ts, on the JavaScript client's unwrap): it takes a delivery signed as the
 * service signs, once per event id; refuses a changed, re-serialized or unsigned body with 401, a body-only signature
 * alone too, and a correctly signed delivery whose timestamp is outside the tolerance (a replay) with 400.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { signatureHeaders } from '../../functions/core/webhook-signature.ts';
import { createReceiver, type ReceivedEvent } from '../../local/receiver.ts';

const secret = 'whsec_dGVzdC1zZWNyZXQtb2YtdGhlLXJlY2VpdmVy';
// The receiver's clock, fixed: 2026-11-28T12:00:00Z.
const NOW = Date.UTC(2026, 10, 28, 12);
const received: ReceivedEvent[] = [];
const server = createReceiver({ secret: () => secret, onEvent: (e) => received.push(e), now: () => NOW });
let url: string;
before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => server.close());

const signed = (raw: string, at = NOW / 1000, id = 'vid_1:done') => ({
  ...signatureHeaders(raw, [secret], { id, timestamp: at }),
  'x-service-event': 'video.done',
});
const post = (body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the reference receiver', () => {
  // Spacing a serializer would not keep: the signature covers these exact bytes.
  const raw = '{"id":"vid_1",  "status":"done","cost":100 }';

  it('accepts a correctly signed body once per event id', async () => {
    assert.equal((await post(raw, signed(raw))).status, 204);
    assert.equal((await post(raw, signed(raw))).status, 204);
    assert.equal(received.length, 1);
    assert.deepEqual([received[0]!.id, received[0]!.status, received[0]!.type, received[0]!.eventId], ['vid_1', 'done', 'video.done', 'vid_1:done']);
  });

  it('rejects a body changed by one byte, a re-serialized body, a missing signature and a body-only one with 401', async () => {
    const changed = raw.replace('100', '101');
    assert.equal((await post(changed, signed(raw))).status, 401);
    const reserialized = JSON.stringify(JSON.parse(raw));
    assert.notEqual(reserialized, raw);
    assert.equal((await post(reserialized, signed(raw))).status, 401);
    assert.equal((await fetch(url, { method: 'POST', body: raw })).status, 401);
    assert.equal((await post(raw, { 'x-service-signature': createHmac('sha256', secret).update(raw).digest('hex') })).status, 401);
    assert.equal(received.length, 1);
  });

  it('refuses a correctly signed delivery from 2001, or 10 minutes ahead, with 400, and takes one 4 minutes old', async () => {
    const replay = await post(raw, signed(raw, Date.UTC(2001, 0, 1) / 1000, 'vid_2:done'));
    assert.equal(replay.status, 400);
    assert.match(await replay.text(), /timestamp outside the tolerance/);
    assert.equal((await post(raw, signed(raw, NOW / 1000 + 600, 'vid_3:done'))).status, 400);
    assert.equal((await post(raw, signed(raw, NOW / 1000 - 240, 'vid_4:done'))).status, 204);
    assert.deepEqual(
      received.map((e) => e.eventId),
      ['vid_1:done', 'vid_4:done'],
    );
  });
});
