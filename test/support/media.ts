/** Looking at rendered media with the real ffprobe and ffmpeg: streams, loudness, and pixels of a frame region. */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { FFMPEG } from '../../functions/generator/ffmpeg.ts';

const FFPROBE = (createRequire(import.meta.url)('@ffprobe-installer/ffprobe') as { path: string }).path;

export interface Probe {
  duration: number;
  video: { codec_name: string; width: number; height: number; r_frame_rate: string; pix_fmt: string };
  audio?: { codec_name: string; sample_rate: string; channels: number } | undefined;
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

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One frame at `seconds`, cropped to `r` and filtered by `vf`, in the format ffmpeg's output options say. */
function frame(file: string, seconds: number, r: Region, vf: string, output: string[]): Buffer {
  // An image (a cover) has no time to seek to: ffmpeg answers a seek in it with no frame at all.
  const args = [
    '-v',
    'error',
    ...(seconds > 0 ? ['-ss', String(seconds)] : []),
    '-i',
    file,
    '-frames:v',
    '1',
    '-vf',
    `crop=${r.width}:${r.height}:${r.x}:${r.y},${vf}`,
  ];
  return execFileSync(FFMPEG, [...args, ...output, '-'], { maxBuffer: 64 * 1024 * 1024 });
}

/** Grey pixels (0..255) of a region of the frame at `seconds`. */
export const region = (file: string, seconds: number, r: Region): Buffer => frame(file, seconds, r, 'format=gray', ['-f', 'rawvideo']);
/** RGB pixels (three bytes each) of a region of the frame at `seconds`. */
export const rgbRegion = (file: string, seconds: number, r: Region): Buffer => frame(file, seconds, r, 'format=rgb24', ['-f', 'rawvideo']);

/** The index of the frame `-ss seconds` gives: the first at or after that time (ffmpeg reads the time in microseconds). */
const frameIndex = (seconds: number, fps: number) => Math.ceil((Math.round(seconds * 1e6) * fps) / 1e6 - 1e-9);

/**
 * The whole grey frames of a video at `times`, decoded in one pass: each is the frame region()
 * reads at that time. A seek decodes from the keyframe before it (the renders have one every 8 s), so a region() per
 * frame decodes the same frames again and again.
 */
function decodeFrames(file: string, times: number[]): { at: (seconds: number) => Buffer; width: number; height: number } {
  const { video } = probe(file);
  const [num, den] = video.r_frame_rate.split('/').map(Number);
  const fps = num! / (den ?? 1);
  const wanted = [...new Set(times.map((t) => frameIndex(t, fps)))].sort((a, b) => a - b);
  const select = `select='${wanted.map((n) => `eq(n\\,${n})`).join('+')}',format=gray`;
  // Passthrough: each selected frame once, not repeated to fill the gaps between them.
  const args = ['-v', 'error', '-i', file, '-vf', select, '-vsync', 'passthrough', '-frames:v', String(wanted.length), '-f', 'rawvideo', '-'];
  const out = execFileSync(FFMPEG, args, { maxBuffer: 1024 * 1024 * 1024 });
  const size = video.width * video.height;
  if (out.length !== size * wanted.length) throw new Error(`${file}: ${out.length / size} of ${wanted.length} frames decoded`);
  const at = (seconds: number) => {
    const i = times.includes(seconds) ? wanted.indexOf(frameIndex(seconds, fps)) : -1;
    if (i < 0) throw new Error(`the frame at ${seconds} s was not decoded (times: ${times.join(', ')})`);
    return out.subarray(i * size, (i + 1) * size);
  };
  return { at, width: video.width, height: video.height };
}

export interface Frames {
  /** What region(file, seconds, r) gives, for one of the decoded times. */
  region(seconds: number, r: Region): Buffer;
  /**
   * The pixels of region `r` after filter `vf` has drawn on the whole frame: what `-ss seconds -vf <vf>,crop,format=gray`
   * gives (ffmpeg draws those on the grey frame too).
   */
  drawn(seconds: number, r: Region, vf: string): Buffer;
}

/** The frames of a video at `times`, decoded once, to look at as region() does. */
export function framesAt(file: string, times: number[]): Frames {
  const { at, width, height } = decodeFrames(file, times);
  return {
    region(seconds, r) {
      const whole = at(seconds);
      const out = Buffer.alloc(r.width * r.height);
      for (let y = 0; y < r.height; y++) whole.copy(out, y * r.width, (r.y + y) * width + r.x, (r.y + y) * width + r.x + r.width);
      return out;
    },
    drawn(seconds, r, vf) {
      const args = ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', `${width}x${height}`, '-i', '-'];
      const crop = `crop=${r.width}:${r.height}:${r.x}:${r.y},format=gray`;
      return execFileSync(FFMPEG, [...args, '-vf', `${vf},${crop}`, '-f', 'rawvideo', '-'], { input: at(seconds), maxBuffer: 64 * 1024 * 1024 });
    },
  };
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

/** Why text cannot be read back from frames here (no tesseract with Russian and English), or undefined. */
export const ocrMissing = (() => {
  const r = spawnSync('tesseract', ['--list-langs'], { encoding: 'utf8' });
  if (r.error) return 'tesseract is not installed (.ci/run installs it)';
  const langs = r.stdout.split('\n').map((l) => l.trim());
  return langs.includes('rus') && langs.includes('eng') ? undefined : 'tesseract lacks rus or eng';
})();

/**
 * The text tesseract reads in a region of the frame at `seconds`: light text (white with a dark border) or dark text
 * (the CTA's button) is kept black on white first, everything else dropped.
 */
export function readText(file: string, seconds: number, r: Region, ink: 'light' | 'dark'): string {
  const keep =
    ink === 'light' ? "format=gray,lut=y='if(gt(val,190),0,255)'" : `lutrgb=${['r', 'g', 'b'].map((c) => `${c}='if(lt(val,70),0,255)'`).join(':')},format=gray`;
  const png = frame(file, seconds, r, keep, ['-c:v', 'png', '-f', 'image2']);
  return execFileSync('tesseract', ['stdin', 'stdout', '-l', 'rus+eng', '--psm', '6'], { input: png, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
}

/** Cyrillic letters drawn like Latin ones, which OCR swaps freely. */
const LOOKALIKES: Record<string, string> = { а: 'a', е: 'e', ё: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', к: 'k', м: 'm', н: 'h', т: 't', в: 'b' };

/** Text as OCR compares it: lower case, look-alike letters folded, whitespace collapsed. */
export const foldForOcr = (s: string) =>
  Array.from(s.toLowerCase().replace(/\s+/g, ' ').trim())
    .map((ch) => LOOKALIKES[ch] ?? ch)
    .join('');
