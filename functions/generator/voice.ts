/** Offline speech: eSpeak NG compiled to WebAssembly (the espeak-ng package), one short synthesis per scene. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
import ESpeakNg from 'espeak-ng';
import { WaveFile } from './interop.ts';

export const VOICE_RATE = 22050;
export const DEFAULT_WPM = 165;
const VOICES = { ru: 'ru', en: 'en-us' } as const;

let compiled: Promise<WebAssembly.Module> | undefined;
/** The 18 MB module is compiled once per process; each synthesis gets a fresh, cheap instance. */
function module(): Promise<WebAssembly.Module> {
  const path = createRequire(import.meta.url)
    .resolve('espeak-ng')
    .replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
  compiled ??= WebAssembly.compile(readFileSync(path));
  return compiled;
}

/**
 * A full garbage collection. Each eSpeak instance keeps about 33 MB of WebAssembly memory that V8 frees only in a full
 * collection, which the JavaScript heap's own pressure seldom triggers: eight scenes held 250 MB at once. Collecting
 * after each synthesis keeps the render step's memory flat (measured: 371 -> 247 MB after eight voices).
 */
let gc: (() => void) | undefined;
function collect(): void {
  if (!gc) {
    gc = (globalThis as { gc?: () => void }).gc;
    if (!gc) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    }
  }
  gc();
}

/**
 * Runs `work` (synchronous) with no stack traces captured. eSpeak's file system, loading its ~300 data files at each
 * start, builds hundreds of errors it catches itself, each reading `new Error().stack`; with source maps on (tsx,
 * --enable-source-maps) those stacks cost more than the speech: measured 137 -> 60 ms of CPU per line.
 */
function withoutStacks(work: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    work();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export interface Speech {
  /** Mono 16-bit samples at VOICE_RATE. */
  samples: Int16Array;
  seconds: number;
}

export async function speak(text: string, language: 'ru' | 'en', wordsPerMinute = DEFAULT_WPM): Promise<Speech> {
  const wasm = await module();
  const engine = await ESpeakNg({
    arguments: ['-v', VOICES[language], '-s', String(Math.round(wordsPerMinute)), '-w', '/speech.wav', text],
    instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) => {
      void WebAssembly.instantiate(wasm, imports).then((instance) => withoutStacks(() => done(instance)));
      return {};
    },
  });
  const wav = new WaveFile(engine.FS.readFile('/speech.wav') as Uint8Array);
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array;
  // The instance is garbage once the samples are out; a turn of the event loop lets go of its last references.
  await new Promise((resolve) => setImmediate(resolve));
  collect();
  return { samples, seconds: samples.length / VOICE_RATE };
}
