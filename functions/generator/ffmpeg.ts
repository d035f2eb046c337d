/** The ffmpeg binary that ships inside an npm package, and a runner with progress. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { GeneratorBusy, GeneratorFailed } from '../core/generator.ts';

const require = createRequire(import.meta.url);
export const FFMPEG = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/**
 * Runs ffmpeg; `onTime` receives the seconds of output written so far. A run killed by a signal (out of memory, a
 * stop) may pass on a retry; a non-zero exit is a lasting failure of this input.
 */
export function runFfmpeg(args: string[], onTime?: (seconds: number) => void, signal?: AbortSignal): Promise<void> {
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

/** The encoder settings of every video: H.264 for still scenes and AAC audio (the bench's floor encodes with them too). */
export const ENCODER_ARGS = '-c:v libx264 -preset superfast -tune stillimage -crf 21 -pix_fmt yuv420p -c:a aac -b:a 128k -ar 44100'.split(' ');
