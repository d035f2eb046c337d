/**
 * A key's own pictures (issue 30, item 3) on the local stack, with real HTTP to the local S3 store and a real render:
 * a PNG of one bright colour uploaded through its presigned URL and named as `placement.image` fills the placement
 * scene's picture region; the presigned URL refuses another type or length, as S3 does; an upload that is not the type
 * it claims, a 20,000 x 20,000 PNG (a few hundred bytes on disk), one not uploaded and one deleted are refused at
 * creation with 422 naming the field before any charge; another key's asset is 403 and refused in an order.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { FPS, REGIONS } from '../../functions/generator/render.ts';
import { pngBomb } from '../support/hostile-images.ts';
import { rgbRegion } from '../support/media.ts';
import { errorCode, type TestStack, useStack, waitForStatus } from '../support/stack.ts';

// A small daily budget of new assets per key, so that its test can spend it (no other test here makes more than 5).
const ASSETS_A_DAY = 6;
const t = useStack({ LIMIT_ASSETS_PER_DAY: String(ASSETS_A_DAY) });
const dir = mkdtempSync(join(tmpdir(), 'assets-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A PNG of one colour, made by ffmpeg. */
function solidPng(color: string, size: number): Buffer {
  const file = join(dir, `${color}-${size}.png`);
  execFileSync(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=${color}:s=${size}x${size}`, '-frames:v', '1', file]);
  return readFileSync(file);
}

interface Upload {
  url: string;
  headers: Record<string, string>;
}

/** POST /assets for these bytes; the answer. */
async function createAsset(key: string, bytes: Buffer, contentType = 'image/png') {
  const res = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: contentType, size_bytes: bytes.length } });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; status: string; upload: Upload & { method: string; expires_at: string } };
}

/** The client's PUT to the presigned URL, with no API key (fetch sets Content-Length from the body): S3's status and error code. */
async function put(upload: Upload, bytes: Buffer, headers: Record<string, string> = upload.headers) {
  const { 'Content-Length': _, ...sent } = { ...upload.headers, ...headers };
  const res = await fetch(upload.url, { method: 'PUT', headers: sent, body: new Uint8Array(bytes) });
  const text = await res.text();
  return { status: res.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] };
}

/** What the key's money looks like: the balance and the whole ledger. */
const money = async (key: string) => ({
  balance: (await t.api('GET', '/balance', { key })).body,
  ledger: (await t.api('GET', '/balance/transactions?limit=100', { key })).body.data,
});

/** A refused creation: 422 naming `field`, its message matching `why`, and nothing charged or recorded. */
async function refused(t: TestStack, key: string, body: Record<string, unknown>, field: string, why: RegExp) {
  const before = await money(key);
  const res = await t.api('POST', '/videos', { key, body });
  assert.equal(res.status, 422, res.text);
  assert.equal(errorCode(res), 'invalid_params');
  assert.match(res.body.error.message, new RegExp(`^${field.replace('.', '\\.')}: `));
  assert.match(res.body.error.message, why);
  assert.deepEqual(await money(key), before, 'nothing charged');
  assert.equal((await t.api('GET', '/videos', { key })).body.data.length, 0, 'no order');
}

const SHORT = { duration_seconds: 10, voice: 'none', music: 'none' } as const;

describe('assets', () => {
  it('a bright PNG uploaded through its presigned URL fills the placement scene’s picture region', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const green = solidPng('0x00FF00', 512);
    const asset = await createAsset(key, green);
    assert.match(asset.id, /^ast_[0-9a-z]{26}$/);
    assert.equal(asset.status, 'unchecked');
    assert.equal(asset.upload.method, 'PUT');
    assert.ok(asset.upload.url.startsWith(`${t.stack.env.S3_ENDPOINT}/`), 'the presigned URL points at the local S3 store');
    assert.deepEqual(asset.upload.headers, { 'Content-Type': 'image/png', 'Content-Length': String(green.length), 'If-None-Match': '*' });
    const validFor = Date.parse(asset.upload.expires_at) - Date.now();
    assert.ok(validFor > 14 * 60_000 && validFor <= 15 * 60_000, `valid 15 minutes (${validFor} ms)`);

    // The signature binds the type and the exact length, as on AWS.
    assert.deepEqual(await put(asset.upload, green, { 'Content-Type': 'image/jpeg' }), { status: 403, code: 'SignatureDoesNotMatch' });
    assert.deepEqual(await put(asset.upload, green.subarray(1)), { status: 403, code: 'SignatureDoesNotMatch' });
    assert.deepEqual(await put(asset.upload, Buffer.concat([green, Buffer.from([0])])), { status: 403, code: 'SignatureDoesNotMatch' });
    // The URL changed in any signed part (here the key) is refused too.
    const tampered = { ...asset.upload, url: asset.upload.url.replace(asset.id, `${asset.id}x`) };
    assert.deepEqual(await put(tampered, green), { status: 403, code: 'SignatureDoesNotMatch' });
    // Without the signature at all: the bucket is private, as on AWS (no anonymous upload or read).
    const bare = { ...asset.upload, url: asset.upload.url.split('?')[0]! };
    assert.deepEqual(await put(bare, green), { status: 403, code: 'AccessDenied' });
    assert.equal((await put(asset.upload, green)).status, 200);
    assert.equal((await fetch(bare.url)).status, 403, 'nor read without a signature');

    const order = await t.api('POST', '/videos', { key, body: { topic: 'Green juice', ...SHORT, placement: { product: 'Greenbox', image: asset.id } } });
    assert.equal(order.status, 201, order.text);
    assert.equal(order.body.cost, 150, 'the picture costs nothing beyond placement');
    const checked = await t.api('GET', `/assets/${asset.id}`, { key });
    assert.equal(checked.status, 200);
    assert.deepEqual([checked.body.status, checked.body.width, checked.body.height], ['ready', 512, 512]);
    // The order keeps its own copy: deleting the asset now changes nothing in its video.
    assert.equal((await t.api('DELETE', `/assets/${asset.id}`, { key })).status, 204);
    assert.equal((await t.api('GET', `/assets/${asset.id}`, { key })).status, 404);

    const done = await waitForStatus(t, key, order.body.id, ['done', 'error'], 120_000);
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.equal(done.params.placement.image, asset.id);
    const video = join(dir, 'placement.mp4');
    const res = await fetch(done.result_url);
    assert.equal(res.status, 200);
    writeFileSync(video, new Uint8Array(await res.arrayBuffer()));

    // Where each scene starts, as the renderer counts its frames (at least the picture's entrance per scene).
    const seconds = [...(done.script as string).matchAll(/^Scene \d+ \(([\d.]+)s\)$/gm)].map((m) => Number(m[1]));
    const frames = seconds.map((s) => Math.max(13, Math.round(s * FPS)));
    const starts = frames.map((_, i) => frames.slice(0, i).reduce((a, b) => a + b, 0) / FPS);
    const captions = [...(done.script as string).matchAll(/^Caption: (.*)$/gm)].map((m) => m[1]!);
    const placement = captions.findIndex((c) => c.includes('Greenbox'));
    assert.ok(placement >= 0, done.script);
    const other = captions.findIndex((c, i) => i !== placement && !c.includes('Greenbox'));
    // The middle of the picture region, inside it whatever the pan (at most 48 px up).
    const pic = REGIONS.picture;
    const middle = { x: pic.x + 130, y: pic.y + 130, width: 300, height: 250 };
    const greenShare = (at: number) => {
      const px = rgbRegion(video, at, middle);
      let n = 0;
      for (let i = 0; i < px.length; i += 3) if (px[i + 1]! > 200 && px[i]! < 90 && px[i + 2]! < 90) n++;
      return n / (px.length / 3);
    };
    const inScene = (i: number) => starts[i]! + (frames[i]! / FPS) * 0.7;
    assert.ok(greenShare(inScene(placement)) > 0.95, `the placement scene shows the picture (${greenShare(inScene(placement))})`);
    assert.ok(greenShare(inScene(other)) < 0.05, `another scene does not (${greenShare(inScene(other))})`);
  });

  it('refuses unusable assets at creation with 422 naming the field, before any charge', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const order = (field: 'placement.image' | 'logo', id: string) =>
      field === 'logo' ? { topic: 'Tea', ...SHORT, logo: id } : { topic: 'Tea', ...SHORT, placement: { product: 'Leafy', image: id } };

    const text = Buffer.from('this is plain text, not a picture at all\n'.repeat(4));
    const liar = await createAsset(key, text);
    assert.equal((await put(liar.upload, text)).status, 200);
    await refused(t, key, order('placement.image', liar.id), 'placement.image', /is not a PNG picture as declared/);

    const bomb = pngBomb(20_000, 20_000);
    assert.ok(bomb.length < 2000, `small on disk (${bomb.length} bytes)`);
    const huge = await createAsset(key, bomb);
    assert.equal((await put(huge.upload, bomb)).status, 200);
    await refused(t, key, order('logo', huge.id), 'logo', /20000 x 20000 pixels; at most 4096 x 4096/);
    // The verdict is recorded: the asset says so, and a second order is refused from it.
    const seen = (await t.api('GET', `/assets/${huge.id}`, { key })).body;
    assert.equal(seen.status, 'refused');
    assert.match(seen.refusal, /20000 x 20000/);
    await refused(t, key, order('placement.image', huge.id), 'placement.image', /20000 x 20000/);

    const jpeg = solidPng('0xFF0000', 64);
    const declaredJpeg = await createAsset(key, jpeg, 'image/jpeg');
    assert.equal((await put(declaredJpeg.upload, jpeg)).status, 200);
    await refused(t, key, order('logo', declaredJpeg.id), 'logo', /is not a JPEG picture as declared \(its first bytes are not a JPEG signature\)/);

    const notYet = await createAsset(key, solidPng('0x0000FF', 64));
    await refused(t, key, order('logo', notYet.id), 'logo', /has not been uploaded yet/);
    assert.equal((await t.api('GET', `/assets/${notYet.id}`, { key })).body.status, 'unchecked', 'no verdict before the upload');

    const gone = await createAsset(key, solidPng('0x0000FF', 64));
    assert.equal((await put(gone.upload, solidPng('0x0000FF', 64))).status, 200);
    assert.equal((await t.api('DELETE', `/assets/${gone.id}`, { key })).status, 204);
    await refused(t, key, order('logo', gone.id), 'logo', /is not an asset of this key/);
    await refused(t, key, order('logo', 'ast_01m88sdrykmmkkdgyfr9yzsa5f'), 'logo', /is not an asset of this key/);
    // A malformed id is the body's own 422.
    const malformed = await t.api('POST', '/videos', { key, body: order('logo', 'logo.png') });
    assert.equal(malformed.status, 422);
    assert.match(malformed.body.error.message, /^logo: /);
  });

  it('counts each key’s new assets per UTC day: past the budget 429 rate_limited with Retry-After, nothing created', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const other = await t.user({ balance: 1000 });
    const png = solidPng('0x0000FF', 8);
    for (let i = 0; i < ASSETS_A_DAY; i++) await createAsset(key, png);
    const over = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: png.length } });
    assert.deepEqual([over.status, errorCode(over)], [429, 'rate_limited']);
    const left = Math.ceil((Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) - Date.now()) / 1000);
    assert.ok(Math.abs(Number(over.headers.get('retry-after')) - left) <= 5, `Retry-After ${over.headers.get('retry-after')}, the day ends in ${left} s`);
    assert.equal((await t.api('GET', '/assets', { key })).body.data.length, ASSETS_A_DAY, 'nothing created past it');
    await createAsset(other.apiKey, png);
  });

  it("keeps each key's assets its own: 403 for another's on GET and DELETE, refused in its orders", async () => {
    const owner = await t.user({ balance: 1000 });
    const other = await t.user({ balance: 1000 });
    const png = solidPng('0xFFFF00', 64);
    const asset = await createAsset(owner.apiKey, png);
    assert.equal((await put(asset.upload, png)).status, 200);
    // The owner's use checks it (ready), so the other key's refusal is not for want of a check.
    const mine = await t.api('POST', '/videos', { key: owner.apiKey, body: { topic: 'Lemon', ...SHORT, director_mode: true, logo: asset.id } });
    assert.equal(mine.status, 201, mine.text);

    for (const method of ['GET', 'DELETE']) {
      const res = await t.api(method, `/assets/${asset.id}`, { key: other.apiKey });
      assert.equal(res.status, 403, `${method}: ${res.text}`);
      assert.equal(errorCode(res), 'forbidden');
    }
    assert.equal((await t.api('GET', '/assets/ast_01m88sdrykmmkkdgyfr9yzsa5f', { key: other.apiKey })).status, 404);
    assert.deepEqual((await t.api('GET', '/assets', { key: other.apiKey })).body.data, []);
    await refused(
      t,
      other.apiKey,
      { topic: 'Lemon', ...SHORT, placement: { product: 'Sour', image: asset.id } },
      'placement.image',
      /not an asset of this key/,
    );
    const quick = await t.api('POST', '/videos:quick', { key: other.apiKey, body: { prompt: 'lemons', logo: asset.id } });
    assert.equal(quick.status, 422);
    assert.match(quick.body.error.message, /^logo: /);
    // The owner still has it, listed.
    const listed = (await t.api('GET', '/assets', { key: owner.apiKey })).body;
    assert.deepEqual(
      listed.data.map((a: { id: string }) => a.id),
      [asset.id],
    );
    assert.equal(listed.data[0].status, 'ready');
    assert.equal((await t.api('GET', `/videos/${mine.body.id}`, { key: owner.apiKey })).body.params.logo, asset.id);
  });

  it('refuses a presigned upload past its expiry, as S3 does', async () => {
    const { services } = await import('../../functions/app/services.ts');
    const { files } = services().stores.assets;
    const asset = {
      id: 'ast_01m88sdrykmmkkdgyfr9yzsa5f',
      userId: 'U',
      kind: 'image',
      contentType: 'image/png',
      sizeBytes: 3,
      createdAt: '',
      expiresAt: '',
    } as const;
    const upload = await files.uploadUrl(asset, 1);
    await new Promise((r) => setTimeout(r, 2100));
    assert.deepEqual(await put(upload, Buffer.from('abc')), { status: 403, code: 'AccessDenied' });
  });
});
