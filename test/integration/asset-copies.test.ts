/**
 * Nothing stored before it is paid for (issue 37, items 2 and 5), counted in the local S3 store's objects under
 * orders/ and assets/: a creation naming `placement.image` and `logo` that is refused (402 at a zero balance, 409
 * past max_cost, 429 past the key's POSTs a minute) or replayed (the same Idempotency-Key), and the bot's refused
 * order, store no object; a created order holds exactly its two copies, of the bytes uploaded; an asset gone between
 * its check and its copy closes the order in error, refunded; the operator's delete-user leaves none of the user's
 * bytes; an upload URL writes once, and never after its asset's DELETE (412, as S3's conditional write answers).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { errorCode, inOneWindow, useStack } from '../support/stack.ts';

const POSTS_A_MINUTE = 5;
const t = useStack({ LIMIT_POSTS_PER_MINUTE: String(POSTS_A_MINUTE) });
/** Director mode: the order stops at its review, so nothing but its copies is written under orders/<id>/. */
const SHORT = { duration_seconds: 10, voice: 'none', music: 'none', director_mode: true } as const;

/** A 64 x 64 PNG of one colour. */
const png = (color: string) =>
  execFileSync(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', `color=c=${color}:s=64x64`, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', '-']);

interface Upload {
  url: string;
  headers: Record<string, string>;
}

/** The client's PUT to the presigned URL with the headers the answer lists: S3's status and error code. */
async function put(upload: Upload, bytes: Buffer) {
  const res = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: new Uint8Array(bytes) });
  const text = await res.text();
  return { status: res.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] };
}

/** POST /assets and the PUT of its bytes; the asset's id and its upload. */
async function uploaded(key: string, bytes: Buffer) {
  const res = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: bytes.length } });
  assert.equal(res.status, 201, res.text);
  assert.equal((await put(res.body.upload, bytes)).status, 200);
  return { id: res.body.id as string, upload: res.body.upload as Upload };
}

/** The key's two pictures, named as `placement.image` and `logo`. */
async function twoPictures(key: string) {
  const [product, logo] = [await uploaded(key, png('0x22CC44')), await uploaded(key, png('0x2244CC'))];
  return { product, logo, body: { topic: 'Tea', ...SHORT, placement: { product: 'Leafy', image: product.id }, logo: logo.id } };
}

async function s3() {
  const { aws } = await import('../../functions/adapters/aws.ts');
  return aws().s3();
}

/** Every object of the bucket under `prefix`, with its size. */
async function objects(prefix: string): Promise<Map<string, number>> {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const client = await s3();
  const found = new Map<string, number>();
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: t.stack.env.BUCKET_NAME, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) found.set(o.Key!, o.Size ?? 0);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return found;
}

/** The objects under orders/ and assets/, as one sorted list. */
const stored = async () => [...(await objects('orders/')).keys(), ...(await objects('assets/')).keys()].sort();

/** The bytes of an object. */
async function bytesOf(key: string): Promise<Buffer> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const out = await (await s3()).send(new GetObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

describe('asset copies: nothing stored before it is paid for', () => {
  it('a creation refused 402 (a zero balance), and the bot’s, stores nothing, though its assets are checked', async () => {
    const broke = await t.user({ balance: 0 });
    const { logo, product, body } = await twoPictures(broke.apiKey);
    const before = await stored();
    const poor = await t.api('POST', '/videos', { key: broke.apiKey, body });
    assert.deepEqual([poor.status, errorCode(poor)], [402, 'insufficient_funds']);
    assert.deepEqual(await stored(), before, 'a 402 stores nothing');
    assert.equal((await t.api('GET', `/assets/${logo.id}`, { key: broke.apiKey })).body.status, 'ready', 'checked all the same');
    // The bot's order for the same account: refused alike.
    const { handler: placeOrder } = await import('../../functions/bot/place-order.ts');
    const { invoke } = await import('../../local/invocations.ts');
    const { lambdaContext } = await import('../../local/gateway.ts');
    const params = { duration_seconds: 10, voice: 'none', music: 'none', placement: { product: 'Leafy', image: product.id }, logo: logo.id };
    const bot = await invoke('place-order', () => placeOrder({ user_id: broke.userId, topic: 'Tea', params }, lambdaContext('place-order')));
    assert.equal('error' in bot && bot.error.code, 'insufficient_funds');
    assert.deepEqual(await stored(), before, "the bot's refused order stores nothing");
  });

  it('a creation refused 409 (past its max_cost) stores nothing', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const { body } = await twoPictures(key);
    const before = await stored();
    const dear = await t.api('POST', '/videos', { key, body: { ...body, max_cost: 1 } });
    assert.deepEqual([dear.status, errorCode(dear)], [409, 'max_cost_exceeded']);
    assert.deepEqual(await stored(), before, 'a 409 stores nothing');
  });

  it('a creation refused 429 (the key’s POSTs of the minute spent, counted by its transaction) stores nothing', async () => {
    const { result } = await inOneWindow(async () => {
      const { apiKey: key } = await t.user({ balance: 1000 });
      const { body } = await twoPictures(key);
      for (let i = 2; i < POSTS_A_MINUTE; i++) await t.api('POST', '/videos:quote', { key, body: { topic: 'Tea' } });
      const was = await stored();
      const res = await t.api('POST', '/videos', { key, body });
      return { res, was, now: await stored() };
    });
    assert.deepEqual([result.res.status, errorCode(result.res)], [429, 'rate_limited']);
    assert.deepEqual(result.now, result.was, 'a 429 stores nothing');
  });

  it('a created order holds exactly its two copies, of the bytes uploaded; its replay stores nothing more', async () => {
    const { apiKey: key } = await t.user({ balance: 1000 });
    const mine = await twoPictures(key);
    const before = await stored();
    const request = { key, body: mine.body, headers: { 'idempotency-key': 'copies-1' } };
    const created = await t.api('POST', '/videos', request);
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const copies = [`orders/${id}/assets/${mine.logo.id}`, `orders/${id}/assets/${mine.product.id}`].sort();
    assert.deepEqual([...(await objects(`orders/${id}/`)).keys()].sort(), copies, 'the order holds its two copies');
    assert.deepEqual(await stored(), [...before, ...copies].sort(), 'and nothing else was stored');
    assert.deepEqual(await bytesOf(`orders/${id}/assets/${mine.logo.id}`), png('0x2244CC'), 'a copy of the bytes uploaded');
    const replayed = await t.api('POST', '/videos', request);
    assert.deepEqual([replayed.status, replayed.body.id], [200, id]);
    assert.deepEqual(await stored(), [...before, ...copies].sort(), 'a replay stores nothing');
  });

  it('an asset gone between its check and its copy: the order is closed in error and refunded in full, nothing copied', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const { logo, body } = await twoPictures(key);
    // Both checked (ready) by an order first.
    assert.equal((await t.api('POST', '/videos', { key, body })).status, 201);
    // Then the logo's bytes go, its record still saying ready (a DELETE landing between a check and a copy).
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    await (await s3()).send(new PutObjectCommand({ Bucket: t.stack.env.BUCKET_NAME, Key: `assets/${userId}/${logo.id}`, Body: new Uint8Array(0) }));
    const balance = (await t.api('GET', '/balance', { key })).body.balance as number;
    const res = await t.api('POST', '/videos', { key, body });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'queued', 'every creation is answered queued, as the spec says');
    const order = (await t.api('GET', `/videos/${res.body.id}`, { key })).body;
    assert.deepEqual([order.status, order.error.code, order.refund.amount], ['error', 'asset_unavailable', res.body.cost]);
    assert.equal((await t.api('GET', '/balance', { key })).body.balance, balance, 'refunded in full');
    assert.equal((await objects(`orders/${res.body.id}/`)).has(`orders/${res.body.id}/assets/${logo.id}`), false, 'no copy of the gone logo');
  });

  it('the operator’s delete-user leaves no bytes of the user: no order’s files or copies, only its assets’ empty markers', async () => {
    const before = await objects('orders/');
    const { apiKey: key, userId } = await t.user({ balance: 200 });
    const { body } = await twoPictures(key);
    assert.equal((await t.api('POST', '/videos', { key, body })).status, 201);
    // Refused: the balance is spent.
    assert.equal((await t.api('POST', '/videos', { key, body })).status, 402);
    // One never uploaded: its URL still works for 15 minutes.
    const pending = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: 100 } });
    assert.equal(pending.status, 201);
    const { deleteUser } = await import('../../functions/core/admin.ts');
    const { services } = await import('../../functions/app/services.ts');
    assert.equal((await deleteUser(services().stores, userId)).orders, 1);
    const left = [...(await objects('orders/')).keys()].filter((k) => !before.has(k));
    assert.deepEqual(left, [], 'no order file or copy of the user is left');
    const assets = await objects(`assets/${userId}/`);
    assert.deepEqual([...assets.values()], [0, 0, 0], 'each asset only an empty marker, which the lifecycle rule expires after a day');
    // The upload URL issued before the deletion writes nothing now.
    assert.deepEqual(await put(pending.body.upload, Buffer.alloc(100)), { status: 412, code: 'PreconditionFailed' });
    assert.deepEqual([...(await objects(`assets/${userId}/`)).values()], [0, 0, 0]);
  });

  it('a PUT to an upload URL after its asset’s DELETE is refused: 412 PreconditionFailed, its bytes not stored', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const bytes = png('0x884422');
    const create = () => t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: bytes.length } });
    // Uploaded, then deleted: the URL still within its 15 minutes writes nothing.
    const done = await create();
    assert.equal((await put(done.body.upload, bytes)).status, 200);
    assert.equal((await t.api('DELETE', `/assets/${done.body.id}`, { key })).status, 204);
    assert.deepEqual(await put(done.body.upload, bytes), { status: 412, code: 'PreconditionFailed' });
    // Deleted before any upload, alike.
    const early = await create();
    assert.equal((await t.api('DELETE', `/assets/${early.body.id}`, { key })).status, 204);
    assert.deepEqual(await put(early.body.upload, bytes), { status: 412, code: 'PreconditionFailed' });
    assert.deepEqual(
      Object.fromEntries(await objects(`assets/${userId}/`)),
      { [`assets/${userId}/${done.body.id}`]: 0, [`assets/${userId}/${early.body.id}`]: 0 },
      'only the empty markers are left',
    );
  });

  it('an upload URL writes once: its signature binds If-None-Match, a second PUT does not replace the bytes checked', async () => {
    const { apiKey: key, userId } = await t.user({ balance: 1000 });
    const first = png('0x448822');
    const asset = await t.api('POST', '/assets', { key, body: { kind: 'image', content_type: 'image/png', size_bytes: first.length } });
    assert.deepEqual(asset.body.upload.headers, { 'Content-Type': 'image/png', 'Content-Length': String(first.length), 'If-None-Match': '*' });
    const { 'If-None-Match': _, ...without } = asset.body.upload.headers;
    assert.deepEqual(await put({ ...asset.body.upload, headers: without }, first), { status: 403, code: 'SignatureDoesNotMatch' });
    assert.equal((await put(asset.body.upload, first)).status, 200);
    // A second PUT of the same length (a bomb, say) is refused.
    const other = Buffer.from(first);
    other[other.length - 20]! ^= 0xff;
    assert.deepEqual(await put(asset.body.upload, other), { status: 412, code: 'PreconditionFailed' });
    assert.deepEqual(await bytesOf(`assets/${userId}/${asset.body.id}`), first);
  });
});
