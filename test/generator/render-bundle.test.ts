/**
 * The render as the image runs it: bundled by the image's build (lib/render-image.ts buildRenderApp: one ESM file, the
 * package files it reads beside it), copied away from the project, and run with no node_modules of the project in
 * reach and ffmpeg named by FFMPEG_PATH. eSpeak's worker, the fonts and the pictures must all be found from the bundle
 * (a file the image lacks fails here, not at the first order on AWS).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';
import { BUNDLING } from '../../lib/functions.ts';
import { buildRenderApp } from '../../lib/render-image.ts';
import { probe, volumeOf } from '../support/media.ts';

const dir = mkdtempSync(join(tmpdir(), 'render-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the render bundle', () => {
  it('renders a video from the bundle and its package files alone, as the image holds them', () => {
    const app = join(dir, 'app');
    buildRenderApp(app, join(import.meta.dirname, 'fixtures', 'bundle-render.ts'), { target: BUNDLING.target, external: BUNDLING.externalModules });
    const out = join(dir, 'out');
    const run = spawnSync(process.execPath, [join(app, 'index.mjs'), out], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, FFMPEG_PATH: FFMPEG, HOME: dir },
      timeout: 120_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { video: string; seconds: number; pictures?: string[] };
    assert.ok(Math.abs(result.seconds - 10) < 0.5, `${result.seconds} s`);
    assert.ok((result.pictures ?? []).length >= 4, 'a picture for every scene');
    const media = probe(result.video);
    assert.deepEqual([media.video.width, media.video.height, media.audio?.codec_name], [1080, 1920, 'aac']);
    // The voice was spoken: the soundtrack is not silence (music alone is quieter, but never this close to -91 dB).
    assert.ok(volumeOf(result.video).max > -30, 'a soundtrack');
  });
});
