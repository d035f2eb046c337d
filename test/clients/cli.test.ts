/**
 * The command line (`npx video-client`, clients/js/src/cli.ts) as a user runs it: the bin the workspace links into
 * node_modules/.bin, in its own process, against the local service through a proxy that checks every answer against
 * the OpenAPI document. create --wait --out saves a real mp4; director mode stops at the review and `review approve`
 * finishes it; refusals exit 1 with the contract's code and charge nothing; bad usage exits 2.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TEST_CLIP_SECONDS } from '../../functions/generator/test-clip.ts';
import { ROOT } from '../../lib/paths.ts';
import { contractProxy, type ContractProxy } from '../support/contract.ts';
import { probe } from '../support/media.ts';
import { useStack, waitForStatus } from '../support/stack.ts';

const t = useStack({ WEBHOOK_ALLOW_PRIVATE_URLS: 'on' });
const dir = mkdtempSync(join(tmpdir(), 'video-cli-test-'));
let checking: ContractProxy;
after(() => {
  checking?.close();
  rmSync(dir, { recursive: true, force: true });
});

const BIN = join(ROOT, 'node_modules', '.bin', 'video-client');

async function cli(key: string | undefined, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, VIDEO_SERVICE_URL: checking.baseUrl };
  if (key) env.VIDEO_SERVICE_KEY = key;
  else delete env.VIDEO_SERVICE_KEY;
  const child = spawn(BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

const balanceOf = async (key: string) => (await t.api('GET', '/balance', { key })).body.balance as number;

describe('the video-client command line', () => {
  before(async () => (checking = await contractProxy(t.baseUrl)));

  it('is linked as a bin by the workspace', () => {
    assert.ok(existsSync(BIN), 'npm install links node_modules/.bin/video-client');
  });

  it('create --wait --out: orders, shows progress, saves the mp4 and prints the posting pack', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const out = join(dir, 'video.mp4');
    const r = await cli(apiKey, 'create', 'Funny 10 second video about cats', '--wait', '--out', out);
    assert.equal(r.code, 0, r.stderr);
    const id = /ordered (vid_\w+) for 100 doubloons/.exec(r.stderr)?.[1];
    assert.ok(id, r.stderr);
    assert.match(r.stderr, new RegExp(`${id} (queued|running) `), 'progress while waiting');
    assert.match(r.stderr, new RegExp(`${id} done `));
    assert.match(r.stderr, /saved .*video\.mp4 \(\d+\.\d MB\)/);
    assert.match(r.stdout, new RegExp(`^${id}: done, 100 doubloons`));
    assert.match(r.stdout, /\nTitle: .+\nDescription: .+\nHashtags: #/);
    const video = probe(out);
    assert.equal(video.video.codec_name, 'h264');
    assert.deepEqual([video.video.width, video.video.height], [1080, 1920]);
    assert.ok(!existsSync(`${out}.part`));
    assert.equal(await balanceOf(apiKey), 900, 'charged once');

    const status = await cli(apiKey, 'status', id, '--json');
    assert.equal(status.code, 0);
    assert.equal(JSON.parse(status.stdout).status, 'done');
    const balance = await cli(apiKey, 'balance', '--json');
    assert.deepEqual(JSON.parse(balance.stdout), (await t.api('GET', '/balance', { key: apiKey })).body);
    const alerted = await cli(apiKey, 'balance', '--alert', '500');
    assert.match(alerted.stdout, /^900 doubloons, 0 trial videos left; spent 100 in \d{4}-\d{2}; alert below 500\n$/);
    assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.low_balance_alert.below, 500);
    assert.doesNotMatch((await cli(apiKey, 'balance', '--alert', 'none')).stdout, /alert/);
  });

  it('takes a test-mode key unchanged: an order for 0 doubloons, a short mp4 marked TEST, livemode false', async () => {
    const { services } = await import('../../functions/app/services.ts');
    const { apiKey: test } = await services().stores.accounts.issueTestKey((await t.user({ balance: 1000 })).userId, new Date());
    const out = join(dir, 'test-mode.mp4');
    const r = await cli(test, 'create', 'Funny 10 second video about cats', '--wait', '--out', out, '--json');
    assert.equal(r.code, 0, r.stderr);
    const order = JSON.parse(r.stdout);
    assert.deepEqual([order.status, order.cost, order.livemode], ['done', 0, false]);
    assert.match(r.stderr, new RegExp(`ordered ${order.id} for 0 doubloons`));
    assert.deepEqual([probe(out).video.width, Math.round(probe(out).duration)], [1080, TEST_CLIP_SECONDS]);
    const balance = JSON.parse((await cli(test, 'balance', '--json')).stdout);
    assert.deepEqual([balance.balance, balance.trial_videos_left, balance.livemode, balance.spend.spent], [0, 0, false, 0]);
  });

  it('director mode: create stops at the review with the script, review approve --wait finishes the order', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const created = await cli(apiKey, 'create', 'Green tea', '--director', '--duration', '10', '--tone', 'calm', '--wait', '--json');
    assert.equal(created.code, 0, created.stderr);
    const order = JSON.parse(created.stdout);
    assert.equal(order.status, 'awaiting_review');
    assert.equal(order.params.tone, 'calm');
    assert.equal(order.params.duration_seconds, 10);
    assert.ok(order.script.length > 20);
    const text = await cli(apiKey, 'status', order.id);
    assert.match(text.stdout, new RegExp(`Script for review:\\n[\\s\\S]+Approve: video-client review ${order.id} approve`));
    const approved = await cli(apiKey, 'review', order.id, 'approve', '--wait', '--json');
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).status, 'done');
    const again = await cli(apiKey, 'review', order.id, 'approve');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: not_awaiting_review: .+\(HTTP 409, request [\w-]+\)/);
  });

  it('quote, create --quote, list, cancel, transactions and the webhook commands', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const quoted = await cli(apiKey, 'quote', 'Green tea', '--director', '--duration', '10', '--music', 'song');
    assert.equal(quoted.code, 0, quoted.stderr);
    assert.match(quoted.stdout, /^170 doubloons \(base 100, song 70\); about \d+ s\nquote (quo_\w+), valid until /);
    const quoteId = /quote (quo_\w+)/.exec(quoted.stdout)![1]!;
    const created = await cli(
      apiKey,
      'create',
      'Green tea',
      '--director',
      '--duration',
      '10',
      '--music',
      'song',
      '--quote',
      quoteId,
      '--metadata',
      'crm=c-9',
      '--metadata',
      'src=cli',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const order = JSON.parse(created.stdout);
    assert.deepEqual(order.client_metadata, { crm: 'c-9', src: 'cli' });
    assert.match(created.stderr, /for 170 doubloons/);
    const tooDear = await cli(apiKey, 'create', 'Tea', '--director', '--max-cost', '50');
    assert.equal(tooDear.code, 1);
    assert.match(tooDear.stderr, /max_cost_exceeded/);
    const listed = await cli(apiKey, 'list', '--json');
    assert.deepEqual(
      JSON.parse(listed.stdout).map((o: { id: string }) => o.id),
      [order.id],
    );
    const tagged = await cli(apiKey, 'list', '--metadata', 'src=cli', '--json');
    assert.deepEqual(
      JSON.parse(tagged.stdout).map((o: { id: string }) => o.id),
      [order.id],
    );
    assert.equal((await cli(apiKey, 'list', '--metadata', 'src=nothing', '--json')).stdout.trim(), '[]');
    assert.equal((await cli(apiKey, 'create', 'Tea', '--metadata', 'novalue')).code, 2, 'bad usage');
    await waitForStatus(t, apiKey, order.id, ['awaiting_review']);
    const canceled = await cli(apiKey, 'cancel', order.id);
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.equal(canceled.stdout, `${order.id}: canceled, 170 doubloons refunded\n`);
    const ledger = await cli(apiKey, 'transactions');
    assert.deepEqual(
      ledger.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/).slice(1, 3).join(' ')),
      ['refund 170', 'charge -170', 'top_up 1000'],
    );
    const hook = (await t.api('POST', '/webhooks', { key: apiKey, body: { url: 'http://127.0.0.1:9/nothing' } })).body;
    const rotated = await cli(apiKey, 'webhook', 'rotate', hook.id, '--overlap', '60');
    assert.match(rotated.stdout, /^new secret whsec_\S+; the old one signs too until /);
    const test = await cli(apiKey, 'webhook', 'test', hook.id);
    assert.equal(test.code, 1, 'nothing listens there');
    assert.match(test.stdout, /^not delivered: /);
    const resend = await cli(apiKey, 'webhook', 'resend', hook.id, '--since', '2026-01-01T00:00:00Z');
    assert.equal(resend.stdout, 'nothing to send again\n');
    assert.equal((await cli(apiKey, 'webhook', 'resend', hook.id)).code, 2);
  });

  it('refusals exit 1 with the code and charge nothing; bad usage exits 2 and sends nothing', async () => {
    const { apiKey } = await t.user({ balance: 1000 });
    const badTone = await cli(apiKey, 'create', 'Tea', '--tone', 'weird');
    assert.equal(badTone.code, 1);
    assert.match(badTone.stderr, /error: invalid_params: tone/);
    const poor = await t.user({ balance: 0 });
    const broke = await cli(poor.apiKey, 'create', 'Tea');
    assert.equal(broke.code, 1);
    assert.match(broke.stderr, /error: insufficient_funds/);
    const missing = await cli(apiKey, 'status', 'vid_01m837a36rwd3vvm20wnzfsswb');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /error: not_found/);
    const wrongKey = await cli('vgk_nope', 'balance');
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /error: unauthorized/);
    assert.equal(await balanceOf(apiKey), 1000);

    const before = checking.checked;
    for (const args of [
      [],
      ['create'],
      ['create', 'a', 'b'],
      ['review', 'vid_x', 'edit'],
      ['frobnicate'],
      ['balance', '--bogus'],
      ['create', 'x', '--timeout', 'soon'],
    ]) {
      const r = await cli(apiKey, ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.length > 0);
    }
    const noKey = await cli(undefined, 'balance');
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /an API key is needed/);
    assert.equal(checking.checked, before, 'bad usage sends no request');
    const help = await cli(undefined, '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: video-client <command>/);
  });

  it('received only answers the OpenAPI document describes', () => {
    assert.ok(checking.checked >= 15, `${checking.checked} answers checked`);
    assert.deepEqual(checking.violations, []);
  });
});
