/** Offline speech: eSpeak NG compiled to WebAssembly (the espeak-ng package), one short synthesis per scene. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
      void WebAssembly.instantiate(wasm, imports).then(done);
      return {};
    },
  });
  const wav = new WaveFile(engine.FS.readFile('/speech.wav') as Uint8Array);
  const samples = wav.getSamples(false, Int16Array) as unknown as Int16Array;
  return { samples, seconds: samples.length / VOICE_RATE };
}
