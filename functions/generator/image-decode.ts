/**
 * How ffmpeg opens a key's picture (an asset), the one reading used twice: by the first-use check (functions/jobs/
 * check-asset.ts, which decodes the upload whole) and by the render (its order's copy). Its declared format is forced
 * (ffmpeg would otherwise pick a demuxer by probing the bytes, whatever they claim), any decoding error is fatal, and
 * the decoder refuses a picture over the pixel cap from its header, before it allocates the frame.
 */
import { spawn } from 'node:child_process';
import { ASSET_MAX_SIDE, type AssetContentType } from '../contract/assets.ts';
import { checkOnce, FFMPEG } from './ffmpeg.ts';

/** The decoder's cap: no frame larger than the largest picture accepted is ever allocated. */
export const MAX_PIXELS = ASSET_MAX_SIDE * ASSET_MAX_SIDE;

/** The demuxer and decoder of each declared type. */
const FORMATS: Record<AssetContentType, { demuxer: string; decoder: string }> = {
  'image/png': { demuxer: 'png_pipe', decoder: 'png' },
  'image/jpeg': { demuxer: 'jpeg_pipe', decoder: 'mjpeg' },
  'image/webp': { demuxer: 'webp_pipe', decoder: 'webp' },
};

/** ffmpeg's input options for a picture of the declared type at `path`: format forced, errors fatal, pixels capped. */
export function imageInput(type: AssetContentType, path: string): string[] {
  const { demuxer, decoder } = FORMATS[type];
  return ['-f', demuxer, '-c:v', decoder, '-err_detect', 'explode', '-max_pixels', String(MAX_PIXELS), '-i', path];
}

/**
 * Decodes the picture at `path` whole, as the render will open it: its size as the decoder read it, or why it cannot
 * be used (another format than declared, damaged or cut short, over the cap, no picture at all).
 */
export function decodeImage(path: string, type: AssetContentType): Promise<{ width: number; height: number } | { reason: string }> {
  const args = ['-hide_banner', '-nostdin', '-xerror', ...imageInput(type, path), '-map', '0:v:0', '-frames:v', '1', '-f', 'null', '-'];
  // The same release as the render's (the image's FFMPEG_RELEASE), or no verdict at all.
  checkOnce();
  return new Promise((resolve, reject) => {
    // runFfmpeg keeps errors only; the verdict reads the input's stream line, written at the info level.
    const child = spawn(FFMPEG, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (d: Buffer) => {
      if (log.length < 64 * 1024) log += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal) return reject(new Error(`ffmpeg was stopped by ${signal}`));
      const name = type.replace('image/', '').toUpperCase();
      const over = /Picture size (\d+)x(\d+) (?:exceeds|is invalid)/.exec(log);
      if (over) return resolve({ reason: `is ${over[1]} x ${over[2]} pixels; at most ${ASSET_MAX_SIDE} x ${ASSET_MAX_SIDE} are accepted` });
      // The input stream's line: "Stream #0:0: Video: png, rgb24(pc), 512x512 ..." (the decoder's header parse).
      const stream = /Stream #0:0[^\n]*?: Video: [^\n]*?, (\d+)x(\d+)/.exec(log);
      if (code !== 0 || !stream) return resolve({ reason: `is not a whole ${name} picture as declared (the decoder could not read it)` });
      const width = Number(stream[1]);
      const height = Number(stream[2]);
      if (!width || !height) return resolve({ reason: 'has no width or height' });
      if (width > ASSET_MAX_SIDE || height > ASSET_MAX_SIDE) {
        return resolve({ reason: `is ${width} x ${height} pixels; at most ${ASSET_MAX_SIDE} x ${ASSET_MAX_SIDE} are accepted` });
      }
      resolve({ width, height });
    });
  });
}
