/**
 * The renderer of test-mode orders (docs/decisions.md "Test mode"): a real 1080x1920 H.264 + AAC mp4 of a few seconds
 * and its cover, "TEST" and the script's title on every frame, in well under a second of ffmpeg. A client's pipeline
 * downloads and handles a true mp4; no provider is called and the render slot is held only that long.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Renderer, RenderRequest, RenderResult } from '../core/generator.ts';
import { drawText, ENCODER_ARGS, runFfmpeg } from './ffmpeg.ts';
import { FONTS } from './fonts.ts';
import { drawable } from './layout.ts';

/** How long a test-mode video is, whatever duration the order asked for. */
export const TEST_CLIP_SECONDS = 3;
const SIZE = { width: 1080, height: 1920 };
/** The mark: white letters on a red band across the middle of every frame (tests read it there). */
export const TEST_MARK = { text: 'TEST', band: { x: 0, y: 660, width: 1080, height: 360 }, size: 260 };

export class TestClipRenderer implements Renderer {
  async render(req: RenderRequest): Promise<RenderResult> {
    const mark = join(req.outDir, 'test-mark.txt');
    const title = join(req.outDir, 'test-title.txt');
    writeFileSync(mark, TEST_MARK.text);
    writeFileSync(title, drawable(FONTS.label, req.script.pack.title.slice(0, 40)));
    const band = TEST_MARK.band;
    const frame = [
      `drawbox=x=${band.x}:y=${band.y}:w=${band.width}:h=${band.height}:color=0xE11D48:t=fill`,
      drawText({
        font: FONTS.caption,
        file: mark,
        size: TEST_MARK.size,
        style: 'fontcolor=white',
        x: '(w-text_w)/2',
        y: `${band.y + band.height / 2}-text_h/2`,
      }),
      drawText({ font: FONTS.label, file: title, size: 56, style: 'fontcolor=white', x: '(w-text_w)/2', y: String(band.y + band.height + 120) }),
    ].join(',');
    const video = join(req.outDir, 'video.mp4');
    const cover = join(req.outDir, 'cover.jpg');
    req.onProgress?.(0, 'test-clip');
    // One pass: the video (10 fps is plenty for a still) and the cover from the same frames.
    await runFfmpeg([
      '-y',
      ...['-f', 'lavfi', '-i', `color=c=0x111827:s=${SIZE.width}x${SIZE.height}:r=10:d=${TEST_CLIP_SECONDS}`],
      ...['-t', String(TEST_CLIP_SECONDS), '-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo'],
      ...['-filter_complex', `[0:v]${frame},split=2[v][c]`],
      ...['-map', '[v]', '-map', '1:a', ...ENCODER_ARGS, '-movflags', '+faststart', video],
      ...['-map', '[c]', '-frames:v', '1', '-q:v', '3', cover],
    ]);
    req.onProgress?.(1, 'test-clip');
    return { video, cover, seconds: TEST_CLIP_SECONDS };
  }
}
