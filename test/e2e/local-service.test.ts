/**
 * `npm start` as a user runs it: the service comes up on its port, prints the demo key, keeps data across a restart,
 * and leaves no Java process behind when stopped. Also the operator CLI against that running service.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../../local/ports.ts';
import { checkFetchesTo } from '../support/contract.ts';
import { liveBalance } from '../support/stack.ts';
import { isLoopback, listenersOf } from '../support/listeners.ts';
import { admin as runAdmin, javaOf, javaPidsOf, QUICK_JAVA, startService, stopService } from '../support/service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'video-service-e2e-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (port: number) => startService(port, dataDir, QUICK_JAVA);
const stop = (child: ChildProcess) => stopService(child);
/** Java of the data folder, once a process that stopped it has had up to 10 s to see it end (the kill is asynchronous). */
async function javaOfDataDir(): Promise<string> {
  for (const end = Date.now() + 10_000; javaOf(dataDir) !== '' && Date.now() < end; ) await new Promise((r) => setTimeout(r, 100));
  return javaOf(dataDir);
}
const admin = (...args: string[]) => runAdmin(dataDir, ...args);

describe('npm start', () => {
  it('serves the API with a demo key, keeps data across restarts and stops cleanly', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/v1`;
    checkFetchesTo(base);
    const first = await start(port);
    const key = /API key:\s+(\S+)/.exec(first.output())![1]!;
    assert.match(first.output(), new RegExp(`http://localhost:${port}/v1`));
    // The demo user's test-mode key, shown beside the live one: its own account, no money.
    const testKey = /Test key:\s+(vgk_test_\S+)/.exec(first.output())![1]!;
    const testBalance = await (await fetch(`${base}/balance`, { headers: { 'x-api-key': testKey } })).json();
    assert.deepEqual(testBalance, { balance: 0, trial_videos_left: 0, livemode: false, spend: { month: new Date().toISOString().slice(0, 7), spent: 0 } });
    // An order that stops at its review: kept across the restart without a render (the restart test renders one).
    const created = await fetch(`${base}/videos`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'Tea', director_mode: true }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    // The files that hold secrets (the link key, the demo key, the settings with the link key) are the owner's only.
    for (const file of ['link-signing-key', 'demo-user.json', 'runtime.json']) {
      assert.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
    }
    // Nothing it starts answers beyond this machine: DynamoDB Local (key hashes, balances, webhook secrets), the S3
    // store, the Step Functions endpoint and the gateway all listen on loopback only.
    const [java] = javaPidsOf(dataDir);
    assert.ok(java, 'DynamoDB Local runs');
    const listening = [...listenersOf(java), ...listenersOf(first.child.pid!)];
    assert.ok(listenersOf(java).length >= 1 && listenersOf(first.child.pid!).length >= 3, JSON.stringify(listening));
    assert.deepEqual(
      listening.filter((l) => !isLoopback(l.address)),
      [],
      'listening beyond loopback',
    );

    // The operator CLI works against the running service's data.
    const user = admin('create-user', '--balance', '300');
    assert.match(user.api_key, /^vgk_/);
    assert.deepEqual(admin('top-up', '--user', user.user_id, '--amount', '200'), { balance: 500 });
    const balance = await fetch(`${base}/balance`, { headers: { 'x-api-key': user.api_key } });
    assert.deepEqual(await balance.json(), liveBalance({ balance: 500, trial_videos_left: 3 }));
    // The bot's channel: an order for the same account with no key, charged like an API order.
    const botOrder = admin('create-order', '--user', user.user_id, '--topic', 'Green tea', '--params', '{"duration_seconds": 10}', '--director');
    assert.deepEqual(Object.keys(botOrder).sort(), ['cost', 'eta_seconds', 'id', 'status']);
    assert.deepEqual([botOrder.status, botOrder.cost], ['queued', 0], 'a trial video, as for the API');
    const seen = (await (await fetch(`${base}/videos/${botOrder.id}`, { headers: { 'x-api-key': user.api_key } })).json()) as {
      channel: string;
      director_mode: boolean;
    };
    assert.deepEqual([seen.channel, seen.director_mode], ['bot', true]);
    assert.equal(admin('create-order', '--user', user.user_id, '--topic', 'Tea', '--prompt', 'Tea').error.code, 'invalid_params');
    const key2 = admin('issue-key', '--user', user.user_id).api_key;
    assert.notEqual(key2, user.api_key);
    assert.equal((await fetch(`${base}/balance`, { headers: { 'x-api-key': user.api_key } })).status, 401, 'the replaced key stops at once');
    assert.deepEqual(admin('revoke-key', '--user', user.user_id), { revoked: true });
    assert.equal((await fetch(`${base}/balance`, { headers: { 'x-api-key': key2 } })).status, 401);
    assert.equal(admin('top-up', '--user', user.user_id, '--amount=-5').error.code, 'invalid_params');
    assert.equal(admin('top-up', '--user', user.user_id, '--amount', '-5').error.code, 'bad_request');
    assert.equal(admin('top-up', '--user', '01JZ0000000000000000000000', '--amount', '5').error.code, 'not_found', 'no such user');
    assert.equal(admin('create-user', '--plan', 'platinum').error.code, 'bad_request');

    assert.equal(await stop(first.child), 0, first.output().slice(-3000));
    assert.equal(await javaOfDataDir(), '', 'DynamoDB Local still running after stop');

    const second = await start(port);
    const again = await fetch(`${base}/videos/${id}`, { headers: { 'x-api-key': key } });
    assert.equal(again.status, 200, 'the order survived the restart');
    assert.equal(/API key:\s+(\S+)/.exec(second.output())![1], key, 'the same demo key is shown');
    assert.equal(/Test key:\s+(\S+)/.exec(second.output())![1], testKey, 'and the same test key');
    assert.equal(await stop(second.child), 0);
    assert.equal(await javaOfDataDir(), '');
  });

  it('runs the operator CLI on the data folder when no service runs', async () => {
    // Each command starts the stores on the folder and stops them: what one wrote, the next one reads.
    const user = admin('create-user', '--balance', '100', '--plan', 'creator');
    assert.equal(user.plan, 'creator');
    assert.deepEqual(admin('delete-user', '--user', user.user_id), { deleted: true, orders: 0, files: 0 });
    assert.equal(admin('balance', '--user', user.user_id).error.code, 'not_found');
    assert.equal(await javaOfDataDir(), '');
  });
});
