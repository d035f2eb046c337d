/**
 * What one delivery attempt reports when it fails before any answer: the kind of failure, never an address or port
 * (a test ping's answer and the deliveries list show it to the client; it would map the networks behind a name).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebhookSender } from '../../functions/adapters/webhook-sender.ts';
import { closedPort } from '../support/listeners.ts';

describe('a failed delivery attempt', () => {
  it('says the host resolves to a private address, without the address', async () => {
    const sender = new WebhookSender({ allowPrivate: false, resolve: async () => ['10.1.2.3'] });
    const result = await sender.send('https://hooks.example.com/hook', '{}', {});
    assert.equal(result.ok, false);
    assert.equal(result.error, 'must be a public address; hooks.example.com resolves to a private or reserved address');
  });

  it('says the connection was refused, without the address or port', async () => {
    const port = await closedPort();
    const sender = new WebhookSender({ allowPrivate: true, resolve: async () => ['127.0.0.1'] });
    const result = await sender.send(`http://receiver.test:${port}/hook`, '{}', {});
    assert.deepEqual([result.ok, result.error], [false, 'connection refused']);
  });
});
