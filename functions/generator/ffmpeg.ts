/**
 * The ffmpeg binary, and a runner with progress. On AWS the render image names its own (FFMPEG_PATH, Debian's
 * release FFMPEG_RELEASE: lib/render-image); on one machine it is the one that ships inside an npm package.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { GeneratorBusy, GeneratorFailed } from '../core/generator.ts';

export const FFMPEG = process.env.FFMPEG_PATH || (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/**
 * Throws unless the ffmpeg at `path` is the release `release` ("7.1" accepts 7.1.2-0+deb13u1): an image built with
 * another ffmpeg fails at its first render with this message, not with subtly different videos.
 */
export function checkFfmpegRelease(path: string, release: string): void {
  const res = spawnSync(path, ['-version'], { encoding: 'utf8' });
  const first = (res.stdout ?? '').split('\n')[0] ?? '';
  const version = /^ffmpeg version (\S+)/.exec(first)?.[1] ?? '';
  if (version !== release && !version.startsWith(`${release}.`) && !version.startsWith(`${release}-`)) {
    throw new Error(`ffmpeg at ${path} is "${version || res.error?.message || 'unknown'}", not release ${release}`);
  }
}

let checked = false;
/** The release check of the ffmpeg in use, once a process (FFMPEG_RELEASE: the render's image). */
export function checkOnce(): void {
  if (checked || !process.env.FFMPEG_RELEASE) return;
  checkFfmpegRelease(FFMPEG, process.env.FFMPEG_RELEASE);
  checked = true;
}

/**
 * Runs ffmpeg; `onTime` receives the seconds of output written so far. A run killed by a signal (out of memory, a
 * stop) may pass on a retry; a non-zero exit is a lasting failure of this input.
 */
export function runFfmpeg(args: string[], onTime?: (seconds: number) => void, signal?: AbortSignal): Promise<void> {
  checkOnce();
  return new Promise((resolve, reject) => {
    const child = spawn(FFMPEG, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-progress', 'pipe:1', '-nostats', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    child.stdout.on('data', (d: Buffer) => {
      const m = /out_time_(?:ms|us)=(\d+)/.exec(d.toString());
      if (m && onTime) onTime(Number(m[1]) / 1e6);
    });
    // An abort kills the child; 'close' then reports the signal.
    child.on('error', (err) => {
      if (err.name !== 'AbortError') reject(new GeneratorBusy(`ffmpeg could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else if (signal) reject(new GeneratorBusy(`ffmpeg was stopped by ${signal}`));
      else reject(new GeneratorFailed(`ffmpeg failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/** Quotes a value for a filter graph option; file paths only, which never carry a quote here. */
export function quote(value: string): string {
  if (value.includes("'")) throw new GeneratorFailed(`Unsupported character in path ${value}`);
  return `'${value}'`;
}

/**
 * A drawtext filter drawing the text of `file` as written. drawtext expands its text by default (`%{localtime}`,
 * `%{pts}`, a stray `%` ends the text, `\\` escapes), so expansion is off: nothing a client writes is interpreted.
 */
export function drawText(o: { font: string; file: string; size: number; style: string; x: string; y: string }): string {
  return `drawtext=fontfile=${quote(o.font)}:textfile=${quote(o.file)}:expansion=none:fontsize=${o.size}:${o.style}:x=${o.x}:y=${o.y}`;
}

/** The video encoder: H.264 for still scenes (two threads: as fast here as x264's own choice, 20 MB less). */
export const VIDEO_ENCODER_ARGS = '-c:v libx264 -preset superfast -tune stillimage -crf 21 -threads 2 -pix_fmt yuv420p'.split(' ');
export const AUDIO_ENCODER_ARGS = '-c:a aac -b:a 128k -ar 44100'.split(' ');
/** The encoder settings of every video (the bench's floor encodes with them too). */
export const ENCODER_ARGS = [...VIDEO_ENCODER_ARGS, ...AUDIO_ENCODER_ARGS];
