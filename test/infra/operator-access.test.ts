/**
 * The operators' permissions in docs/deploy.md are the ones the operator CLI needs, as real IAM actions on the real
 * resources: every command of bin/admin.ts runs in its own process against the local stack, as on AWS with TABLE_NAME
 * and the other outputs set, with each AWS call it makes recorded (test/support/record-aws-calls.ts), and the grants
 * each command needed must be exactly the rows of the documented table that name it. The user is made as rich as an
 * operator's account gets: a webhook, a picture, a paid order rendered to its files, a plan, then deleted.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { documentedGrants, runRecorded } from '../support/aws-actions.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });
let receiver: Server | undefined;
after(() => receiver?.close());

describe("the operators' permissions (docs/deploy.md)", () => {
  it('are exactly what each operator CLI command needs on the local stack, no transaction pseudo-action, the index for delete-user', async () => {
    const documented = documentedGrants();
    const seen = new Map<string, Set<string>>();
    const admin = async (command: string, ...args: string[]) => {
      const res = await runRecorded('bin/admin.ts', [command, ...args], { ...process.env, ...t.stack.env });
      assert.equal(res.code, 0, `${command}: ${res.out}`);
      for (const g of res.grants) (seen.get(command) ?? seen.set(command, new Set()).get(command)!).add(g);
      return JSON.parse(res.out.trim().split('\n').at(-1)!) as Record<string, any>;
    };
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((ok) => receiver!.listen(0, '127.0.0.1', ok));

    const { user_id: user, api_key: firstKey } = await admin('create-user', '--balance', '1000', '--trial-videos', '0');
    const { api_key: key } = await admin('issue-key', '--user', user);
    assert.notEqual(key, firstKey);
    const { api_key: testKey, test_account_id: testAccount } = await admin('issue-key', '--user', user, '--test');
    assert.match(testKey, /^vgk_test_/);
    assert.equal((await t.api('POST', '/webhooks', { key: testKey, body: { url: 'http://127.0.0.1:9/test-hook' } })).status, 201);
    assert.deepEqual(await admin('revoke-key', '--user', user, '--test'), { revoked: true, livemode: false });
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    assert.equal((await t.api('POST', '/webhooks', { key, body: { url: hook } })).status, 201);
    // A picture of the user's own, uploaded: delete-user replaces its bytes with the empty marker.
    const picture = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNg+M8AAAICAQB7CYF4AAAAAElFTkSuQmCC', 'base64');
    const asset = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: picture.length } });
    const { 'Content-Length': _, ...uploadHeaders } = asset.body.upload.headers;
    assert.equal((await fetch(asset.body.upload.url, { method: 'PUT', headers: uploadHeaders, body: new Uint8Array(picture) })).status, 200);
    assert.equal((await admin('top-up', '--user', user, '--amount', '5')).balance, 1005);
    assert.equal((await admin('set-plan', '--user', user, '--plan', 'creator')).plan, 'creator');
    assert.equal((await admin('set-plan', '--user', user)).plan, null);
    assert.equal((await admin('balance', '--user', user)).balance, 1005);
    const order = await admin('create-order', '--user', user, '--prompt', 'A 10 second video about green tea, no music, no voiceover');
    assert.ok(order.cost > 0, 'a paid order');
    assert.equal((await waitForStatus(t, key, order.id, ['done', 'error'])).status, 'done');
    assert.deepEqual(await admin('revoke-key', '--user', user), { revoked: true });
    const deleted = await admin('delete-user', '--user', user);
    const { services } = await import('../../functions/app/services.ts');
    assert.equal(await services().stores.accounts.get(testAccount), undefined, 'the test-mode account went with its live account');
    assert.equal(await services().stores.webhooks.ofUser(testAccount), undefined, 'and its webhook');
    assert.deepEqual([deleted.orders, deleted.files > 0], [1, true]);

    // An admission completes the wait of an order already waiting with a running execution only if one is next in
    // line when the creation finds a free slot (functions/core/capacity.ts): documented, not required here.
    const mayNeed: Record<string, string[]> = { 'create-order': ['states:SendTaskSuccess on *'] };
    for (const [command, grants] of seen) {
      const rows = [...(documented.get(command) ?? [])].filter((g) => grants.has(g) || !mayNeed[command]?.includes(g));
      assert.deepEqual([...grants].sort(), rows.sort(), command);
    }
    for (const [command, grants] of Object.entries(mayNeed)) for (const g of grants) assert.ok(documented.get(command)?.has(g), `${command}: ${g}`);
    const commands = ['create-user', 'issue-key', 'top-up', 'set-plan', 'balance', 'create-order', 'revoke-key', 'delete-user'];
    assert.deepEqual([...seen.keys()].sort(), commands.sort());
    // Every documented operator row was needed by the command it names (the smoke test's rows: test/e2e/smoke.test.ts).
    for (const [command, grants] of documented) if (command !== 'smoke') assert.ok(seen.has(command) && grants.size, command);
    // A transaction is authorized per item; "TransactWriteItems" is no IAM action to grant.
    assert.ok(![...documented.values()].some((g) => [...g].some((x) => x.includes('TransactWriteItems'))));
  });
});
