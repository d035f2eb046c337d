/**
 * The first-use check of an asset (core/assets.ts inspectUpload), invoked by the functions that take orders and
 * answered with the verdict: it runs in the render's image, so the upload is decoded whole by the ffmpeg the render
 * opens its copy with, the same way (functions/generator/image-decode.ts, through app). `{ gone: true }`: the version named
 * changed or went.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import * as z from 'zod/mini';
import { assetContentType } from '../contract/assets.ts';
import type { ImageCheckAnswer } from '../core/assets.ts';
import { logger, services } from '../app/services.ts';

/** What the invoking function sends: the asset's identity and declared type, and the version to check. */
export const checkRequest = z.object({ userId: z.string(), assetId: z.string(), contentType: assetContentType, etag: z.string() });

export const handler = middy<unknown, ImageCheckAnswer>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const { userId, assetId, contentType, etag } = z.parse(checkRequest, event);
    const dir = await mkdtemp(join(tmpdir(), 'asset-'));
    try {
      return (await services().checkAsset({ id: assetId, userId, contentType }, etag, dir)) ?? { gone: true };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
