/**
 * The assets' part of the store contract: an asset and its owner's mark written with the key's count of the day, and
 * nothing when that budget is spent; read only by its owner, its owner told for the 403; listed newest first in pages;
 * gone at its expiry (TTL deletes lazily: an expired record still in the table is not read); its check recorded only
 * while it exists; a delete says whether it was there. And their bytes (`assetFilesContract`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Asset } from '../../functions/core/assets.ts';
import { newAssetId } from '../../functions/core/ids.ts';
import { assetWindow } from '../../functions/core/limits.ts';
import { after, type KnownDrifts, type MakeStores, SECOND, scenario } from './fixtures.ts';

const DAY = 86_400_000;
const assetOf = (userId: string, at: Date): Asset => ({
  id: newAssetId(at.getTime()),
  userId,
  kind: 'image',
  contentType: 'image/png',
  sizeBytes: 68,
  createdAt: at.toISOString(),
  expiresAt: new Date(at.getTime() + 30 * DAY).toISOString(),
});

export function assetsContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, 'an asset: written within the day’s budget, its owner’s only, listed newest first, gone at its expiry', async (s) => {
    const [owner, other] = [await s.user(), await s.user()];
    const t0 = new Date('2026-11-20T10:00:00Z');
    const budget = (userId: string, at = t0) => ({ window: assetWindow(at), limit: 2, owner: userId });
    const [first, second, third] = [0, 1, 2].map((i) => assetOf(owner, after(t0, i * SECOND))) as [Asset, Asset, Asset];
    assert.equal(await s.assets.create(first, budget(owner)), true);
    assert.equal(await s.assets.create(second, budget(owner)), true);
    assert.equal(await s.assets.create(third, budget(owner)), false, 'the day’s budget is spent');
    assert.equal(await s.assets.ownerOf(third.id, t0), undefined, 'nothing written of it');
    // Another key's budget is its own; the next day's window is a new one.
    assert.equal(await s.assets.create(assetOf(other, t0), budget(other)), true);
    assert.equal(await s.assets.create(third, budget(owner, after(t0, DAY))), true);

    assert.deepEqual(await s.assets.get(owner, first.id, t0), first);
    assert.equal(await s.assets.get(other, first.id, t0), undefined, 'another key reads none of it');
    assert.equal(await s.assets.ownerOf(first.id, t0), owner, 'its owner told (the 403)');
    const page = await s.assets.ofUser(owner, { limit: 2 }, t0);
    assert.deepEqual([page.assets.map((a) => a.id), page.more], [[third.id, second.id], true]);
    const rest = await s.assets.ofUser(owner, { limit: 2, below: second.id }, t0);
    assert.deepEqual([rest.assets.map((a) => a.id), rest.more], [[first.id], false]);
    assert.deepEqual((await s.assets.idsOfUser(owner)).sort(), [first.id, second.id, third.id].sort());

    const expired = after(new Date(first.expiresAt), 2 * SECOND);
    assert.equal(await s.assets.get(owner, first.id, expired), undefined, 'past its expiry');
    assert.equal(await s.assets.ownerOf(first.id, expired), undefined);
  });

  scenario(make, known, "an asset counts in its budget owner's window, whoever's asset it is (a test-mode key's in its live key's)", async (s) => {
    const [live, test] = [await s.user(), await s.user()];
    const t0 = new Date('2026-11-20T10:00:00Z');
    const shared = { window: assetWindow(t0), limit: 2, owner: live };
    assert.equal(await s.assets.create(assetOf(live, t0), shared), true);
    assert.equal(await s.assets.create(assetOf(test, after(t0, SECOND)), shared), true);
    const over = assetOf(test, after(t0, 2 * SECOND));
    assert.equal(await s.assets.create(over, shared), false, 'the two keys spent one budget');
    assert.equal(await s.assets.ownerOf(over.id, t0), undefined, 'nothing written of it');
    assert.equal(await s.assets.create(over, { ...shared, owner: test }), true, "the test account's own window was never counted in");
  });

  scenario(make, known, 'an asset’s check is recorded while it exists; a delete says whether it was there', async (s) => {
    const owner = await s.user();
    const t0 = new Date('2026-11-20T10:00:00Z');
    const asset = assetOf(owner, t0);
    assert.equal(await s.assets.create(asset, { window: assetWindow(t0), limit: 10, owner }), true);
    await s.assets.recordCheck(asset, { status: 'ready', width: 1, height: 1, etag: '"e1"' });
    assert.deepEqual((await s.assets.get(owner, asset.id, t0))?.check, { status: 'ready', width: 1, height: 1, etag: '"e1"' });
    assert.equal(await s.assets.delete(asset), true);
    assert.equal(await s.assets.delete(asset), false, 'gone already');
    assert.deepEqual([await s.assets.get(owner, asset.id, t0), await s.assets.ownerOf(asset.id, t0)], [undefined, undefined]);
    // A check recorded after the delete writes nothing back.
    await s.assets.recordCheck(asset, { status: 'refused', reason: 'late' });
    assert.equal(await s.assets.get(owner, asset.id, t0), undefined);
  });
}

/**
 * The assets' bytes (core/assets.ts AssetFiles): an upload URL writes once, and nothing after the asset's delete (its
 * marker is there); the check reads and the copy copies only the version it names, and a deleted asset's is gone.
 */
export function assetFilesContract(make: MakeStores, known: KnownDrifts) {
  scenario(make, known, 'an asset’s bytes: uploaded once, read and copied as the version checked, and no upload after its delete', async (s) => {
    const t0 = new Date('2026-11-20T10:00:00Z');
    const [asset, never] = [assetOf('U1', t0), assetOf('U1', after(t0, SECOND))];
    // Of the declared length: the URL is signed for it.
    const bytes = Buffer.alloc(asset.sizeBytes, 'first ');
    const upload = await s.assetFiles.uploadUrl(asset, 60);
    assert.equal(upload.headers['If-None-Match'], '*', 'the upload only creates');
    assert.equal(await s.assetFiles.stat(asset), undefined, 'nothing before the upload');
    assert.equal(await s.clientPut(asset, upload, bytes), 200);
    const stored = await s.assetFiles.stat(asset);
    assert.equal(stored?.size, bytes.length);
    const etag = stored!.etag;
    assert.equal(await s.clientPut(asset, upload, Buffer.alloc(asset.sizeBytes, 'other ')), 412, 'a second PUT is refused');
    assert.equal((await s.assetFiles.stat(asset))?.etag, etag, 'and changes nothing');
    const read = mkdtempSync(join(tmpdir(), 'asset-read-'));
    try {
      assert.equal(await s.assetFiles.readTo(asset, etag, join(read, 'bytes')), true);
      assert.deepEqual(readFileSync(join(read, 'bytes')), bytes);
      assert.equal(await s.assetFiles.readTo(asset, '"another version"', join(read, 'other')), false);
    } finally {
      rmSync(read, { recursive: true, force: true });
    }

    const [order, other] = ['vid_01kfa00000000000000000000a', 'vid_01kfa00000000000000000000b'];
    assert.equal(await s.assetFiles.copyToOrder(asset, '"another version"', other), false, 'only the version named is copied');
    assert.equal(await s.assetFiles.copyToOrder(asset, etag, order), true);
    const dir = mkdtempSync(join(tmpdir(), 'asset-copy-'));
    try {
      await s.assetFiles.readCopy(order, asset.id, join(dir, 'copy'));
      assert.deepEqual(readFileSync(join(dir, 'copy')), bytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    await s.assetFiles.delete(asset);
    assert.equal(await s.clientPut(asset, upload, bytes), 412, 'no upload after the delete');
    assert.equal(await s.assetFiles.readTo(asset, etag, join(tmpdir(), `asset-gone-${asset.id}`)), false, 'its bytes are gone');
    assert.equal(await s.assetFiles.copyToOrder(asset, etag, other), false);
    // Deleted before any upload: its URL writes nothing either.
    const late = await s.assetFiles.uploadUrl(never, 60);
    await s.assetFiles.delete(never);
    assert.equal(await s.clientPut(never, late, bytes), 412);
  });
}
