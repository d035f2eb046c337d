/** Looking at rendered media with the real ffprobe and ffmpeg: streams, loudness, and pixels of a frame region. */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';

const FFPROBE = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path;

export interface Probe {
  duration: number;
  video: { codec_name: string; width: number; height: number; r_frame_rate: string; pix_fmt: string };
  audio?: { codec_name: string; sample_rate: string; channels: number };
  faststart: boolean;
}

export function probe(file: string): Probe {
  const out = JSON.parse(
    execFileSync(
      FFPROBE,
      [
        '-v',
        'error',
        '-show_entries',
        'format=duration:stream=codec_type,codec_name,width,height,r_frame_rate,pix_fmt,sample_rate,channels',
        '-of',
        'json',
        file,
      ],
      { encoding: 'utf8' },
    ),
  );
  const streams = out.streams as Record<string, any>[];
  // +faststart puts the moov atom before mdat.
  const head = execFileSync('head', ['-c', '65536', file]);
  const moov = head.indexOf('moov');
  const mdat = head.indexOf('mdat');
  return {
    duration: Number(out.format.duration),
    video: streams.find((s) => s.codec_type === 'video') as Probe['video'],
    audio: streams.find((s) => s.codec_type === 'audio') as Probe['audio'],
    faststart: moov >= 0 && (mdat < 0 || moov < mdat),
  };
}

/** Mean and peak volume in dB of the audio track (digital silence is about -91). */
export function volumeOf(file: string): { mean: number; max: number } {
  const r = spawnStderr(['-hide_banner', '-nostats', '-i', file, '-map', '0:a', '-af', 'volumedetect', '-f', 'null', '-']);
  const mean = Number(/mean_volume:\s*(-?[\d.]+) dB/.exec(r)?.[1]);
  const max = Number(/max_volume:\s*(-?[\d.]+) dB/.exec(r)?.[1]);
  return { mean, max };
}

function spawnStderr(args: string[]): string {
  return spawnSync(FFMPEG, args, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] }).stderr;
}

/** Grey pixels (0..255) of a region of the frame at `seconds`. */
export function region(file: string, seconds: number, r: { x: number; y: number; width: number; height: number }): Buffer {
  return execFileSync(
    FFMPEG,
    [
      '-v',
      'error',
      '-ss',
      String(seconds),
      '-i',
      file,
      '-frames:v',
      '1',
      '-vf',
      `crop=${r.width}:${r.height}:${r.x}:${r.y},format=gray`,
      '-f',
      'rawvideo',
      '-',
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
}

/**
 * The share of pixels far (more than `distance` grey levels) from the region's median: text, light on dark or dark
 * on light, scores; a smooth background gradient does not.
 */
export function inkFraction(pixels: Buffer, distance = 80): number {
  const sorted = Uint8Array.from(pixels).sort();
  const median = sorted[sorted.length >> 1]!;
  return pixels.filter((p) => Math.abs(p - median) > distance).length / pixels.length;
}
export const meanAbsDiff = (a: Buffer, b: Buffer) => a.reduce((s, p, i) => s + Math.abs(p - b[i]!), 0) / a.length;
