/**
 * Request and response schemas of the asset routes (additive to v1): a key's own pictures, uploaded straight to
 * storage through a presigned PUT and named by orders (`placement.image`, `logo`, a script's `Image:` line).
 */
import * as z from 'zod/mini';
import { ASSET_ID_RE } from './orders.ts';
import { pageLimit, pageOf } from './order-list.ts';
import { explainedEnum, timestamp } from './zod.ts';

export { ASSET_ID_RE };
/** The largest upload, in bytes (10 MiB). */
export const ASSET_MAX_BYTES = 10 * 1024 * 1024;
/** The largest picture side, in pixels. */
export const ASSET_MAX_SIDE = 4096;

export const assetContentType = explainedEnum('The picture’s media type, as it will be uploaded.', {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/webp': 'WebP (still, not animated)',
});
export type AssetContentType = z.infer<typeof assetContentType>;

export const createAssetBody = z
  .strictObject({
    kind: z.literal('image').check(z.describe('What the asset is: `image`, the one kind in v1.')),
    content_type: assetContentType.check(z.describe('The media type of the upload: `image/png`, `image/jpeg` or `image/webp`; its bytes must be that type.')),
    size_bytes: z
      .int()
      .check(
        z.gte(1),
        z.lte(ASSET_MAX_BYTES, `must be at most ${ASSET_MAX_BYTES} (10 MiB)`),
        z.describe('The exact length of the upload in bytes, 1 to 10485760 (10 MiB): the upload URL accepts that length only.'),
      ),
  })
  .check(
    z.meta({
      description: 'Body of POST /assets (additive): the picture about to be uploaded. The answer is the asset and a presigned URL to PUT its bytes to.',
      examples: [{ kind: 'image', content_type: 'image/png', size_bytes: 48213 }],
    }),
  );

const assetId = z.string().check(z.describe('The asset’s id: `ast_` and 26 lower-case characters. Name it in an order (`placement.image`, `logo`).'));

export const assetView = z
  .object({
    id: assetId,
    kind: z.literal('image').check(z.describe('Always `image` in v1.')),
    content_type: assetContentType.check(z.describe('The media type the upload was declared with (see AssetContentType).')),
    size_bytes: z.int().check(z.describe('The length the upload was declared with, in bytes.')),
    status: explainedEnum('Where the asset stands. Its upload is checked when an order first names it.', {
      unchecked: 'no order has named it yet (uploaded or not: the check happens at first use)',
      ready: 'checked: its bytes are the declared type, at most 4096 x 4096 pixels; orders may name it',
      refused: 'checked and found unusable (`refusal` says why); an order naming it is refused with 422',
    }),
    width: z.optional(z.int().check(z.describe('Ready: the picture’s width in pixels, read from its header.'))),
    height: z.optional(z.int().check(z.describe('Ready: the picture’s height in pixels.'))),
    refusal: z.optional(z.string().check(z.describe('Refused: why, for humans.'))),
    created_at: timestamp.check(z.describe('When the asset was created (POST /assets).')),
    expires_at: timestamp.check(z.describe('When the asset and its bytes are deleted: 30 days after its creation. Orders made before keep their copy.')),
  })
  .check(
    z.meta({
      description: 'An asset: a picture of the key’s own, kept 30 days (GET /assets/{id}, the items of GET /assets).',
      examples: [
        {
          id: 'ast_01m88sdrykmmkkdgyfr9yzsa5f',
          kind: 'image',
          content_type: 'image/png',
          size_bytes: 48213,
          status: 'ready',
          width: 1024,
          height: 1024,
          created_at: '2026-11-25T07:20:00.000Z',
          expires_at: '2026-12-25T07:20:00.000Z',
        },
      ],
    }),
  );
export type AssetView = z.infer<typeof assetView>;

export const assetCreated = z
  .extend(assetView, {
    upload: z
      .object({
        method: z.literal('PUT').check(z.describe('Always `PUT`.')),
        url: z
          .url()
          .check(z.describe('The presigned storage URL to PUT the bytes to (`curl -T file -H "Content-Type: ..." -H "If-None-Match: *" URL`). No API key.')),
        headers: z
          .record(z.string(), z.string())
          .check(
            z.describe(
              'The headers the PUT must carry, exactly: `Content-Type` and `Content-Length` as declared, and `If-None-Match: *`. The signature binds them: another type or length, or no If-None-Match, is refused (403 SignatureDoesNotMatch). The URL only creates: a second PUT, or one after the asset’s DELETE, is refused with 412 PreconditionFailed.',
            ),
          ),
        expires_at: timestamp.check(z.describe('When the URL stops working: 15 minutes after the asset was created.')),
      })
      .check(z.describe('Where and how to upload the bytes, once, within 15 minutes.')),
  })
  .check(
    z.meta({
      description: 'The asset just created (201 of POST /assets) and the presigned URL its bytes go to.',
      examples: [
        {
          id: 'ast_01m88sdrykmmkkdgyfr9yzsa5f',
          kind: 'image',
          content_type: 'image/png',
          size_bytes: 48213,
          status: 'unchecked',
          created_at: '2026-11-25T07:20:00.000Z',
          expires_at: '2026-12-25T07:20:00.000Z',
          upload: {
            method: 'PUT',
            url: 'https://files.example.com/assets/01JD.../ast_01m88sdrykmmkkdgyfr9yzsa5f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match&...',
            headers: { 'Content-Type': 'image/png', 'Content-Length': '48213', 'If-None-Match': '*' },
            expires_at: '2026-11-25T07:35:00.000Z',
          },
        },
      ],
    }),
  );
export type AssetCreated = z.infer<typeof assetCreated>;

export const listAssetsQuery = z
  .strictObject({
    limit: pageLimit,
    starting_after: z.optional(
      z
        .string()
        .check(
          z.regex(ASSET_ID_RE, 'must be an asset id (ast_...)'),
          z.describe('The cursor: the assets created before this one (its `next_starting_after`, or the last id of a page).'),
        ),
    ),
  })
  .check(z.describe('The query of GET /assets (additive): the key’s assets, newest first.'));
export type ListAssetsQuery = z.output<typeof listAssetsQuery>;

export const assetList = pageOf(assetView, 'assets', 'A page of the key’s assets (GET /assets), newest first; expired ones are gone.');
