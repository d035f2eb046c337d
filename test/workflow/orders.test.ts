/**
 * Real executions of statemachines/order.asl.json on the local stack, through every transition of the spec's table:
 * quick order to done with a downloadable mp4, director mode with approve, edit and regen, and the download links.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import validate from 'asl-validator';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { fileUrl } from '../../functions/core/links.ts';
import { EmbeddedRenderer, REGIONS } from '../../functions/generator/render.ts';
import type { Scene } from '../../functions/core/generator.ts';
import { parseScript } from '../../functions/core/script-text.ts';
import { STATE_MACHINES, STEPS, substitute } from '../../functions/steps/table.ts';
import { ROOT } from '../../local/stack.ts';
import { meanAbsDiff, probe, region } from '../support/media.ts';
import { type ApiResponse, errorCode, useStack, waitForStatus } from '../support/stack.ts';

const t = useStack();
const dir = mkdtempSync(join(tmpdir(), 'workflow-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const services = async () => (await import('../../functions/app/services.ts')).services();
const ledgerSum = async (userId: string) => (await (await services()).stores.accounts.ledger(userId)).reduce((s, e) => s + e.amount, 0);

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `download ${url}`);
  return Buffer.from(await res.arrayBuffer());
}

describe('the order state machine', () => {
  it('passes asl-validator, every state machine with its resources filled from the step table', () => {
    for (const [name, machine] of Object.entries(STATE_MACHINES)) {
      const text = substitute(readFileSync(join(ROOT, machine.file), 'utf8'), (s) => `arn:aws:lambda:us-east-1:123456789012:function:${s.module}`);
      const result = validate(JSON.parse(text));
      assert.deepEqual(result.errors, [], name);
      assert.ok(result.isValid, name);
      for (const step of STEPS.filter((s) => s.machine === name)) assert.ok(text.includes(`function:${step.module}`), `${step.placeholder} is used`);
      assert.doesNotMatch(text, /\$\{/, 'every placeholder is in the step table');
    }
  });
});

/** The quick order of the first test, rendered once: the link test reads the same order. */
let quickOrder: Promise<{ userId: string; apiKey: string; id: string; seen: Set<string>; order: any }> | undefined;
const quick = () =>
  (quickOrder ??= (async () => {
    const { userId, apiKey } = await t.user({ balance: 500 });
    const created = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt: 'Calm 12 seconds video about green tea' } });
    assert.equal(created.status, 201);
    const seen = new Set<string>();
    const end = Date.now() + 60_000;
    let order: any;
    while (Date.now() < end) {
      order = (await t.api('GET', `/videos/${created.body.id}`, { key: apiKey })).body;
      seen.add(order.status);
      if (order.status === 'done' || order.status === 'error') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return { userId, apiKey, id: created.body.id as string, seen, order };
  })());

describe('a quick order', () => {
  it('goes queued -> running -> done with a downloadable mp4 (no key), metadata, one charge and its slot freed', async () => {
    const { userId, id, seen, order } = await quick();
    assert.equal(order.status, 'done', JSON.stringify(order.error));
    assert.ok(seen.has('running'), `statuses seen: ${[...seen].join(', ')}`);
    assert.deepEqual(Object.keys(order.metadata).sort(), ['description', 'hashtags', 'title']);
    assert.ok(order.metadata.hashtags.every((h: string) => h.startsWith('#')));
    assert.match(order.script, /^Scene 1/);

    const mp4 = join(dir, 'quick.mp4');
    writeFileSync(mp4, await download(order.result_url));
    const p = probe(mp4);
    assert.deepEqual([p.video.codec_name, p.video.width, p.video.height], ['h264', 1080, 1920]);
    assert.ok(Math.abs(p.duration - 12) <= 0.5);
    assert.ok((await download(order.cover_url)).subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])), 'the cover is a JPEG');

    const { accounts, orders } = (await services()).stores;
    assert.equal((await accounts.get(userId))!.activeTasks, 0);
    assert.equal((await accounts.get(userId))!.balance, 400);
    assert.equal(await ledgerSum(userId), 400);
    const events = await orders.events(id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['video.done'],
    );
    assert.equal(events[0]!.record.status, 'done');
    assert.ok(events[0]!.record.result_url);
  });

  it('serves result_url with its content type and range requests through the redirect, renews it on every GET, and refuses tampered, expired and deleted ones', async () => {
    const { apiKey, id } = await quick();
    const order = await waitForStatus(t, apiKey, id, ['done']);
    const redirect = await fetch(order.result_url, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const ranged = await fetch(order.result_url, { headers: { range: 'bytes=0-1023' } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get('content-type'), 'video/mp4');
    assert.equal((await ranged.arrayBuffer()).byteLength, 1024);

    // Links carry whole seconds: a GET in a later second than the first must sign a new one.
    let again = (await t.api('GET', `/videos/${id}`, { key: apiKey })).body;
    for (const end = Date.now() + 5000; again.result_url === order.result_url && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 100));
      again = (await t.api('GET', `/videos/${id}`, { key: apiKey })).body;
    }
    assert.notEqual(again.result_url, order.result_url, 'a fresh link on every GET');
    assert.equal((await fetch(again.result_url, { redirect: 'manual' })).status, 302);

    const url = new URL(order.result_url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const forged = await fetch(tampered, { redirect: 'manual' });
    assert.equal(forged.status, 403);
    assert.equal((await forged.json()).error.code, 'forbidden');
    const {
      config,
      stores: { files },
    } = await services();
    const expired = fileUrl(config.publicBaseUrl, config.linkSigningKey!, id, 'video', new Date(Date.now() - 8 * 86_400_000));
    assert.equal((await fetch(expired, { redirect: 'manual' })).status, 403);
    const otherOrder = url.toString().replace(id, 'vid_01m837a36rwd3vvm20wnzfsswb');
    assert.equal((await fetch(otherOrder, { redirect: 'manual' })).status, 403, 'a link signs one order');

    // Retention: the same rule the local runtime runs every hour, 31 days on.
    assert.ok((await files.expire(new Date(Date.now() + 31 * 86_400_000))) >= 3);
    const gone = await fetch(again.result_url, { redirect: 'manual' });
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, 'not_found');
    assert.equal((await t.api('GET', `/videos/${id}`, { key: apiKey })).body.status, 'done', 'the order stays readable');
  });
});

const director = { topic: 'Morning coffee', duration_seconds: 10, director_mode: true };

/** A director-mode order approved at its review and rendered, once: the approve test reads each step, and the deletion test deletes its user after it. */
let approvedOrder: Promise<{ userId: string; apiKey: string; id: string; waiting: any; activeAtReview: number; approved: ApiResponse; done: any }> | undefined;
const approvedDirector = () =>
  (approvedOrder ??= (async () => {
    const { userId, apiKey } = await t.user({ balance: 500 });
    const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
    const waiting = await waitForStatus(t, apiKey, id, ['awaiting_review']);
    const activeAtReview = (await (await services()).stores.accounts.get(userId))!.activeTasks;
    const approved = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'approve' } });
    const done = await waitForStatus(t, apiKey, id, ['done', 'error']);
    return { userId, apiKey, id, waiting, activeAtReview, approved, done };
  })());

describe('director mode', () => {
  it('waits in awaiting_review without holding a slot, and approve finishes it', async () => {
    const { userId, apiKey, id, waiting, activeAtReview, approved, done } = await approvedDirector();
    assert.match(waiting.script, /Caption: /);
    assert.equal(waiting.result_url, undefined);
    const { accounts, orders } = (await services()).stores;
    assert.equal(activeAtReview, 0, 'awaiting_review does not count as active');
    assert.equal(approved.status, 200);
    assert.equal(approved.body.id, id);
    assert.equal(approved.body.status, 'running');
    assert.equal(done.status, 'done');
    assert.equal(done.script, waiting.script);
    const again = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'approve' } });
    assert.equal(again.status, 409);
    assert.equal(errorCode(again), 'not_awaiting_review');
    assert.deepEqual(
      (await orders.events(id)).map((e) => e.type),
      ['video.awaiting_review', 'video.done'],
    );
    assert.equal((await accounts.get(userId))!.activeTasks, 0);
    assert.equal(await ledgerSum(userId), 400);
  });

  it('renders the client’s edited text: the video’s captions come from it', async () => {
    const { apiKey } = await t.user({ balance: 500 });
    const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
    const waiting = await waitForStatus(t, apiKey, id, ['awaiting_review']);
    const text = 'Caption: Edited by the client\nVoice: The client wrote this line.\n\nCaption: Second edited scene\nVoice: And this one.';
    const bad = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'edit', text: `Caption: ${'x'.repeat(200)}` } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.error.message, /^text: /);
    const edited = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'edit', text } });
    assert.equal(edited.status, 200);
    const done = await waitForStatus(t, apiKey, id, ['done', 'error']);
    assert.equal(done.status, 'done');
    assert.match(done.script, /Caption: Edited by the client/);
    assert.doesNotMatch(
      done.script,
      new RegExp(
        waiting.script
          .split('\n')[1]
          .replace('Caption: ', '')
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      ),
    );

    // The rendered first scene matches a render of the edited text and differs from one of the original script, at
    // the same moment. The references are silent and stop at the scene playing then: frames do not depend on the
    // sound, nor on the scenes after theirs (a call to action, drawn on the last scene, is not ordered here).
    const video = join(dir, 'edited.mp4');
    writeFileSync(video, await download(done.result_url));
    const params = createVideoBody.parse({ ...done.params, music: 'none', voice: 'none' });
    assert.equal(params.cta, undefined);
    const renderer = new EmbeddedRenderer();
    const scenes = parseScript(text, 10);
    const at = scenes[0]!.seconds / 2;
    const until = (list: Scene[]) => list.slice(0, list.findIndex((_, i) => list.slice(0, i + 1).reduce((s, x) => s + x.seconds, 0) > at) + 1);
    const pack = done.metadata;
    const reference = await renderer.render({ script: { language: 'en', scenes: until(scenes), pack }, params, outDir: join(dir, 'ref-edited') });
    const original = await renderer.render({
      script: { language: 'en', scenes: until(parseScript(waiting.script, 10)), pack },
      params,
      outDir: join(dir, 'ref-original'),
    });
    const ours = region(video, at, REGIONS.caption);
    assert.ok(meanAbsDiff(ours, region(reference.video, at, REGIONS.caption)) < 3, 'captions of the edited text');
    assert.ok(meanAbsDiff(ours, region(original.video, at, REGIONS.caption)) > 3, 'not the original captions');
  });

  it('refuses an edit whose voice cannot be spoken in its scene’s time (422 naming text), the order still at review and uncharged', async () => {
    const { userId, apiKey } = await t.user({ balance: 500 });
    const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
    const waiting = await waitForStatus(t, apiKey, id, ['awaiting_review']);
    const { stores } = await services();
    const token = (await stores.orders.get(id))?.reviewToken;
    assert.ok(token);
    const [ledger, active] = [await ledgerSum(userId), (await stores.accounts.get(userId))!.activeTasks];

    // 108 words in a 10 s video: scene 1 gets 8.4 s, too short for its 468 characters however fast the voice.
    const long = `Caption: Tea facts\nVoice: ${'Tea is calm. '.repeat(36).trim()}\n\nCaption: Follow\nVoice: Follow.`;
    const refused = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'edit', text: long } });
    assert.equal(refused.status, 422);
    assert.equal(errorCode(refused), 'invalid_params');
    assert.match(
      refused.body.error.message,
      /^text: the voice of scene 1 cannot be spoken in its 8\.4 s: it is 467 spoken characters long and at most 297 fit/,
    );
    const after = (await t.api('GET', `/videos/${id}`, { key: apiKey })).body;
    assert.equal(after.status, 'awaiting_review');
    assert.equal(after.script, waiting.script);
    assert.equal((await stores.orders.get(id))?.reviewToken, token, 'the review’s token unused');
    assert.equal(await ledgerSum(userId), ledger, 'nothing charged or refunded');
    assert.equal((await stores.accounts.get(userId))!.activeTasks, active, 'no task taken');

    const fitting = 'Caption: Tea facts\nVoice: Tea is calm, and so are you.\n\nCaption: Follow\nVoice: Follow for more.';
    const edited = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'edit', text: fitting } });
    assert.equal(edited.status, 200);
    const done = await waitForStatus(t, apiKey, id, ['done', 'error']);
    assert.equal(done.status, 'done');
    assert.match(done.script, /Voice: Tea is calm, and so are you\./);
  });

  it('regen rewrites the script along the note and returns to awaiting_review', async () => {
    const { apiKey } = await t.user({ balance: 500 });
    const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
    const first = await waitForStatus(t, apiKey, id, ['awaiting_review']);
    const regen = await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'regen', note: 'Mention the oat milk latte' } });
    assert.equal(regen.status, 200);
    assert.equal(regen.body.status, 'running');
    let second: any;
    const end = Date.now() + 30_000;
    do {
      second = (await t.api('GET', `/videos/${id}`, { key: apiKey })).body;
      await new Promise((r) => setTimeout(r, 100));
    } while (!(second.status === 'awaiting_review' && second.script !== first.script) && Date.now() < end);
    assert.equal(second.status, 'awaiting_review');
    assert.notEqual(second.script, first.script);
    assert.match(second.script, /oat milk latte/);
    const { orders } = (await services()).stores;
    assert.deepEqual(
      (await orders.events(id)).map((e) => e.id),
      [`${id}:awaiting_review:1`, `${id}:awaiting_review:2`],
    );
    assert.equal((await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'approve' } })).status, 200);
    assert.equal((await waitForStatus(t, apiKey, id, ['done', 'error'])).status, 'done');
  });

  it('still finishes when the review wait it answers no longer exists (a token lost with a stop)', async () => {
    const { apiKey } = await t.user({ balance: 500 });
    const { id } = (await t.api('POST', '/videos', { key: apiKey, body: director })).body;
    await waitForStatus(t, apiKey, id, ['awaiting_review']);
    const { orders } = (await services()).stores;
    assert.ok(await orders.patch(id, { status: 'awaiting_review', set: { reviewToken: 'a-token-of-a-wait-that-died' } }, new Date()));
    assert.equal((await t.api('POST', `/videos/${id}/review`, { key: apiKey, body: { action: 'approve' } })).status, 200);
    assert.equal((await waitForStatus(t, apiKey, id, ['done', 'error'])).status, 'done');
  });
});

describe('deleting a user', () => {
  it('removes the key, the orders with their events and the files, irrevocably', async () => {
    // The approved director order's user: one order, done, with its video, cover and posting pack.
    const { userId, apiKey, id, done } = await approvedDirector();
    assert.equal(done.status, 'done');
    const s = (await services()).stores;
    assert.ok(await s.files.exists(id, 'video'));
    const { deleteUser } = await import('../../functions/core/admin.ts');
    assert.deepEqual(await deleteUser(s, userId), { orders: 1, files: 3 });
    assert.equal((await t.api('GET', `/videos/${id}`, { key: apiKey })).status, 401);
    assert.equal(await s.orders.get(id), undefined);
    assert.deepEqual(await s.orders.events(id), []);
    assert.equal(await s.files.exists(id, 'video'), false);
    assert.equal(await s.accounts.get(userId), undefined);
    assert.deepEqual(await s.accounts.ledger(userId), []);
  });
});
