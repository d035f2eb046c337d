/**
 * A key's own pictures (assets): created with a presigned upload, checked when an order first names one, copied into
 * each order that names it. The rules:
 * - an asset is its key's user's: another's is 403 on GET and DELETE, and an order naming it is refused (422 naming
 *   the field, as for none: an order does not learn whether another key's asset exists);
 * - the upload is checked once, at its first use, by decoding it whole as the render will open it (ImageCheck: its
 *   signature at byte 0, then ffmpeg with the declared format forced and a pixel cap the decoder enforces from the
 *   header, at most 4096 x 4096); a definite verdict is recorded on the asset, "not uploaded yet" is not (the upload
 *   may still come);
 * - an upload only creates (its presigned PUT carries `If-None-Match: *`): a second PUT, or one after the asset's
 *   DELETE (which leaves an empty marker at its key), meets an object there and is refused (412);
 * - the check happens before the order is charged (a refusal is 422, nothing charged, nothing stored); the order
 *   records the version checked (its ETag), and its own copy of those bytes is made only once the order is committed,
 *   as it starts: a refused or replayed request stores nothing, a deleted asset does not change an order made before,
 *   and the render reads only the copies recorded on its order.
 */
import { ASSET_ID_RE, type AssetContentType, type AssetCreated, type AssetView } from '../contract/assets.ts';
import type { OrderParams } from '../contract/orders.ts';
import { assetBudgetExceeded, forbidden, InvalidParams, notFound } from './errors.ts';
import { epochSeconds } from './expiry.ts';
import type { Scene } from './generator.ts';
import { newAssetId } from './ids.ts';
import { assetWindow, type Budget, limitsOwner } from './limits.ts';

/** Assets (records and bytes) are kept this long from their creation. */
export const ASSET_RETENTION_DAYS = 30;
/** How long the presigned upload URL works. */
export const UPLOAD_URL_SECONDS = 15 * 60;
/**
 * How long the empty marker a deleted asset leaves at its key is kept (an S3 lifecycle rule on objects under 1 byte):
 * longer than any upload URL works, so none can write there after the delete.
 */
export const ASSET_MARKER_DAYS = 1;

/** What the check found: usable (with its header's facts and the version checked), or refused, why. */
export type AssetCheck = { status: 'ready'; width: number; height: number; etag: string } | { status: 'refused'; reason: string };

export interface Asset {
  id: string;
  userId: string;
  kind: 'image';
  contentType: AssetContentType;
  sizeBytes: number;
  createdAt: string;
  /** When the record and the bytes go (DynamoDB's TTL, S3's lifecycle rule). */
  expiresAt: string;
  check?: AssetCheck;
}

/** A checked asset as an order records it: what the render needs to read and place its copy. */
export interface OrderAsset {
  contentType: AssetContentType;
  width: number;
  height: number;
  /** The version checked: the order's copy is made of these bytes only (absent on orders copied before it was recorded). */
  etag?: string;
}

export interface AssetStore {
  /**
   * Writes the asset and its owner's mark (which tells 403 from 404), counted in the key's budget window with them;
   * false, and nothing written, when the window already holds `budget.limit` new assets.
   */
  create(asset: Asset, budget: Budget): Promise<boolean>;
  /** The user's asset; undefined when the user has none by this id (or it expired). */
  get(userId: string, assetId: string, now: Date): Promise<Asset | undefined>;
  /** Who owns an asset id (undefined: nobody, or it expired). */
  ownerOf(assetId: string, now: Date): Promise<string | undefined>;
  /** The user's assets with ids below `below`, newest first, at most `limit`; `more` when others remain. */
  ofUser(userId: string, range: { below?: string; limit: number }, now: Date): Promise<{ assets: Asset[]; more: boolean }>;
  /** Records the check's verdict, while the asset exists. */
  recordCheck(asset: Asset, check: AssetCheck): Promise<void>;
  /** Deletes the asset and its owner's mark; false when it was not there. */
  delete(asset: Pick<Asset, 'id' | 'userId'>): Promise<boolean>;
  /** Ids of every asset of the user (the operator's account deletion). */
  idsOfUser(userId: string): Promise<string[]>;
}

/** The bytes (S3 on AWS): the presigned upload, the bounded read the check makes, the copies into orders. */
export interface AssetFiles {
  /**
   * A URL that accepts one PUT of exactly this type and length for `seconds`, only while nothing is stored at the
   * asset's key (no second upload, none after its deletion), and the headers it must carry.
   */
  uploadUrl(asset: Asset, seconds: number): Promise<{ url: string; headers: Record<string, string> }>;
  /** The stored object's length and version, or undefined when nothing was uploaded. */
  stat(asset: Asset): Promise<{ size: number; etag: string } | undefined>;
  /** Writes the object to a local file, while its version is `etag`; false when it changed or went. */
  readTo(asset: Pick<Asset, 'id' | 'userId'>, etag: string, toPath: string): Promise<boolean>;
  /** Copies the object, while its version is `etag`, into the order's files; false when it changed or went. */
  copyToOrder(asset: Pick<Asset, 'id' | 'userId'>, etag: string, orderId: string): Promise<boolean>;
  /** The order's copy of an asset, written to a local file (the render). */
  readCopy(orderId: string, assetId: string, toPath: string): Promise<void>;
  /**
   * Deletes the asset's bytes (a DELETE, an account's deletion), leaving an empty marker at its key for a day
   * (ASSET_MARKER_DAYS): an upload URL still valid meets an object there and is refused.
   */
  delete(asset: Pick<Asset, 'id' | 'userId'>): Promise<void>;
}

/** What decoding a picture found: its size, or why it cannot be used. */
export type ImageVerdict = { width: number; height: number } | { reason: string };
/** The check function's answer: the verdict, or `gone` when the version named changed or went. */
export type ImageCheckAnswer = ImageVerdict | { gone: true };

/**
 * The first-use check of an upload, run where the render's decoder is (on AWS the check function, built from the
 * render's image): the verdict on the version `etag`, or undefined when that version changed or went.
 */
export interface ImageCheck {
  check(asset: Asset, etag: string): Promise<ImageVerdict | undefined>;
}

export interface AssetPorts {
  assets: AssetStore;
  files: AssetFiles;
  images: ImageCheck;
  /** New assets a key may create in a UTC day (LIMIT_ASSETS_PER_DAY): what one key can store is bounded. */
  perDay?: number;
}

/**
 * The default budget of new assets per key and UTC day: with 30 days' keeping and 10 MiB each, at most about 30 GiB a
 * key holds (docs/decisions.md, Assets).
 */
export const ASSETS_PER_DAY = 100;

const DAY_MS = 86_400_000;
const NAMES: Record<AssetContentType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/webp': 'WebP' };
/** Each type's signature, from byte 0 (a WebP's: RIFF, any length, then WEBP). */
const SIGNATURES: Record<AssetContentType, (b: Uint8Array) => boolean> = {
  'image/png': (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP',
};
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
/** How many of a file's first bytes signatureRefusal reads. */
export const SIGNATURE_BYTES = 32;

/**
 * The declared type's signature at byte 0 (a decoder's probe would take a file whose signature starts at byte 1 for
 * another format's), and a WebP that is not animated (its decoder reads no animation). Undefined when it holds.
 */
export function signatureRefusal(bytes: Uint8Array, declared: AssetContentType): string | undefined {
  if (!SIGNATURES[declared](bytes)) return `is not a ${NAMES[declared]} picture as declared (its first bytes are not a ${NAMES[declared]} signature)`;
  if (declared === 'image/webp' && ascii(bytes, 12, 16) === 'VP8X' && ((bytes[20] ?? 0) & 0x02) !== 0) {
    return 'is an animated WebP; only still pictures are used';
  }
  return undefined;
}

/**
 * The check of the version `etag` of an upload, made where the bytes are decoded: its signature, then the whole
 * picture decoded by `decode` (the render's own way of opening it). Undefined when that version changed or went.
 */
export async function inspectUpload(
  p: {
    files: Pick<AssetFiles, 'readTo'>;
    decode: (path: string, type: AssetContentType) => Promise<ImageVerdict>;
    readStart: (path: string) => Promise<Uint8Array>;
  },
  asset: Pick<Asset, 'id' | 'userId' | 'contentType'>,
  etag: string,
  path: string,
): Promise<ImageVerdict | undefined> {
  if (!(await p.files.readTo(asset, etag, path))) return undefined;
  const refusal = signatureRefusal(await p.readStart(path), asset.contentType);
  return refusal ? { reason: refusal } : p.decode(path, asset.contentType);
}

export const toAssetView = (a: Asset): AssetView => ({
  id: a.id,
  kind: a.kind,
  content_type: a.contentType,
  size_bytes: a.sizeBytes,
  status: a.check?.status ?? 'unchecked',
  ...(a.check?.status === 'ready' ? { width: a.check.width, height: a.check.height } : {}),
  ...(a.check?.status === 'refused' ? { refusal: a.check.reason } : {}),
  created_at: a.createdAt,
  expires_at: a.expiresAt,
});

/** POST /assets: the record (kept 30 days) and the presigned URL its bytes go to within 15 minutes. */
export async function createAsset(
  p: AssetPorts,
  account: { userId: string; testOf?: string | undefined },
  body: { kind: 'image'; content_type: AssetContentType; size_bytes: number },
  now: Date,
): Promise<AssetCreated> {
  const asset: Asset = {
    id: newAssetId(now.getTime()),
    userId: account.userId,
    kind: body.kind,
    contentType: body.content_type,
    sizeBytes: body.size_bytes,
    createdAt: now.toISOString(),
    // Whole seconds: the unit the TTL is stored in.
    expiresAt: new Date(epochSeconds(new Date(now.getTime() + ASSET_RETENTION_DAYS * DAY_MS)) * 1000).toISOString(),
  };
  const limit = p.perDay ?? ASSETS_PER_DAY;
  const window = assetWindow(now);
  if (!(await p.assets.create(asset, { window, limit, owner: limitsOwner(account) }))) throw assetBudgetExceeded(window.retryAfterSeconds, limit);
  const { url, headers } = await p.files.uploadUrl(asset, UPLOAD_URL_SECONDS);
  return { ...toAssetView(asset), upload: { method: 'PUT', url, headers, expires_at: new Date(now.getTime() + UPLOAD_URL_SECONDS * 1000).toISOString() } };
}

/** The caller's asset: 404 when there is none, 403 when it is another key's user's. */
export async function readOwnAsset(p: Pick<AssetPorts, 'assets'>, userId: string, assetId: string | undefined, now: Date): Promise<Asset> {
  if (!assetId || !ASSET_ID_RE.test(assetId)) throw notFound('asset');
  const asset = await p.assets.get(userId, assetId, now);
  if (asset) return asset;
  const owner = await p.assets.ownerOf(assetId, now);
  throw owner === undefined ? notFound('asset') : forbidden('asset');
}

/**
 * DELETE /assets/{id}: the bytes (their marker written), then the record, so that a failure leaves the asset for a
 * repeat. Orders made before keep their copies.
 */
export async function deleteAsset(p: AssetPorts, userId: string, assetId: string | undefined, now: Date): Promise<void> {
  const asset = await readOwnAsset(p, userId, assetId, now);
  await p.files.delete(asset);
  await p.assets.delete(asset);
}

/** GET /assets: a page of the caller's assets, newest first. */
export async function listAssets(p: Pick<AssetPorts, 'assets'>, userId: string, q: { limit: number; starting_after?: string | undefined }, now: Date) {
  const { assets, more } = await p.assets.ofUser(userId, { limit: q.limit, ...(q.starting_after ? { below: q.starting_after } : {}) }, now);
  return { data: assets.map(toAssetView), has_more: more, ...(more && assets.length ? { next_starting_after: assets.at(-1)!.id } : {}) };
}

/** An asset an order names, by the request field that names it (`placement.image`, `logo`, `text`). */
export interface AssetRef {
  field: string;
  id: string;
}

/** The assets an order's parameters name, with the fields that name them. */
export function assetRefsOf(params: Pick<OrderParams, 'placement' | 'logo'>): AssetRef[] {
  return [
    ...(params.placement?.image ? [{ field: 'placement.image', id: params.placement.image }] : []),
    ...(params.logo ? [{ field: 'logo', id: params.logo }] : []),
  ];
}

/** The assets a script's scenes name (`Image:` lines), named by the review's field. */
export const sceneAssetRefs = (scenes: readonly Pick<Scene, 'image'>[], field: string): AssetRef[] =>
  scenes.flatMap((s, i) => (s.image ? [{ field: `${field} (scene ${i + 1} Image)`, id: s.image }] : []));

/**
 * The check phase of naming assets in an order, before anything is charged or stored: each must be the user's and
 * usable (checked now at its first use, the verdict recorded); 422 naming the field otherwise. What the order records
 * of each, with the version checked. An asset the order already has is not checked again.
 */
export async function checkAssets(
  p: Pick<AssetPorts, 'assets' | 'files' | 'images'>,
  userId: string,
  refs: readonly AssetRef[],
  now: Date,
  has: Readonly<Record<string, OrderAsset>> = {},
): Promise<Record<string, OrderAsset>> {
  const checked: Record<string, OrderAsset> = {};
  for (const ref of refs) {
    if (has[ref.id] || checked[ref.id]) continue;
    const refuse = (reason: string) => new InvalidParams(ref.field, `the asset ${ref.id} ${reason}`);
    const asset = await p.assets.get(userId, ref.id, now);
    if (!asset) throw refuse('is not an asset of this key (none by this id, another key’s, or past its 30 days)');
    let check = asset.check;
    if (!check) {
      const verdict = await checkUpload(p, asset);
      if (verdict === undefined) throw refuse('has not been uploaded yet (PUT its bytes to the upload URL of POST /assets)');
      check = verdict;
      await p.assets.recordCheck(asset, check);
    }
    if (check.status === 'refused') throw refuse(check.reason);
    checked[ref.id] = { contentType: asset.contentType, width: check.width, height: check.height, etag: check.etag };
  }
  return checked;
}

/** How an order ends when an asset it names went between its check and its copy (it is refunded in full). */
export const ASSET_GONE = {
  code: 'asset_unavailable',
  message: 'An asset the order names was deleted before the order’s copy of it was made; the order was refunded',
} as const;

/**
 * The copy phase, once the order is committed (as it starts): its own copy of each asset it records, of the version
 * checked. The ids whose copy could not be made because the asset went (or changed) since; a store's failure throws.
 * A copy made again is the same bytes: every start of the order (its creation's, a repeat's, the audit's) may copy.
 */
export async function copyAssets(
  files: Pick<AssetFiles, 'copyToOrder'>,
  order: { id: string; userId: string; assets?: Readonly<Record<string, OrderAsset>> },
  only?: readonly string[],
): Promise<string[]> {
  const lost: string[] = [];
  for (const [id, a] of Object.entries(order.assets ?? {})) {
    // An order recorded before the version was: its copies were made at its creation.
    if ((only && !only.includes(id)) || a.etag === undefined) continue;
    if (!(await files.copyToOrder({ id, userId: order.userId }, a.etag, order.id))) lost.push(id);
  }
  return lost;
}

/** The check of an upload: undefined when there is nothing to check yet. */
async function checkUpload({ files, images }: Pick<AssetPorts, 'files' | 'images'>, asset: Asset): Promise<AssetCheck | undefined> {
  const stored = await files.stat(asset);
  if (!stored) return undefined;
  if (stored.size !== asset.sizeBytes) return { status: 'refused', reason: `is ${stored.size} bytes, not the ${asset.sizeBytes} declared` };
  const found = await images.check(asset, stored.etag);
  if (!found) return undefined;
  return 'reason' in found ? { status: 'refused', reason: found.reason } : { status: 'ready', ...found, etag: stored.etag };
}
