/**
 * Offline speech: eSpeak NG compiled to WebAssembly (the espeak-ng package), one short synthesis per scene, in a
 * worker thread that a render opens for its soundtrack and ends with it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WaveFile } from './interop.ts';

export const VOICE_RATE = 22050;
export const DEFAULT_WPM = 165;
const VOICES = { ru: 'ru', en: 'en-us' } as const;

const engine = createRequire(import.meta.url).resolve('espeak-ng');
let compiled: Promise<WebAssembly.Module> | undefined;
/**
 * The 18 MB module is compiled once per process and shared with each worker; each synthesis gets a fresh instance.
 * Read and compiled off the render's thread, which meanwhile makes the pictures.
 */
function module(): Promise<WebAssembly.Module> {
  compiled ??= readFile(engine.replace(/espeak-ng\.js$/, 'espeak-ng.wasm')).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

/**
 * The worker, as source (plain JavaScript, so that it runs the same from TypeScript sources and from the render
 * function's single-file bundle, where no worker file exists). Per request it runs eSpeak's command line once in a
 * fresh instance and sends back the WAV.
 * - Each instance keeps about 33 MB of WebAssembly memory that V8 frees only in a full collection, which heap pressure
 *   seldom triggers: the worker collects after each line (its own small heap: a few ms), and when the worker ends after
 *   the last line all of it is returned at once. In the render's own thread the collections cost more and
 *   the memory stayed with the process for the rest of the render (measured: 278-350 MB RSS during the encode, against
 *   about 250 MB now).
 * - eSpeak's file system, loading its ~300 data files at each start, builds hundreds of errors it catches itself, each
 *   reading `new Error().stack`; with source maps on those stacks cost more than the speech, so none are captured
 *   (measured: 137 -> 60 ms of CPU per line).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
// The flag is the process's: set by the first worker, it gives later ones a global gc.
if (!globalThis.gc) require('node:v8').setFlagsFromString('--expose-gc');
const collect = globalThis.gc ?? require('node:vm').runInNewContext('gc');
const factory = import(workerData.url).then((m) => m.default);
parentPort.on('message', async ({ id, args }) => {
  try {
    const ESpeakNg = await factory;
    const instance = await ESpeakNg({
      arguments: args,
      instantiateWasm: (imports, done) => {
        void WebAssembly.instantiate(workerData.wasm, imports).then((wasm) => {
          const limit = Error.stackTraceLimit;
          Error.stackTraceLimit = 0;
          try {
            done(wasm);
          } finally {
            Error.stackTraceLimit = limit;
          }
        });
        return {};
      },
    });
    const wav = instance.FS.readFile('/speech.wav');
    parentPort.postMessage({ id, wav }, [wav.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
  setImmediate(collect);
});
`;

export interface Speech {
  /** Mono 16-bit samples at VOICE_RATE. */
  samples: Int16Array;
  seconds: number;
}

/** eSpeak NG's voice for one render: `speak` as often as needed, then `close` (which frees all its memory). */
export class Voice {
  private worker: Promise<Worker> | undefined;
  private readonly pending = new Map<number, { resolve: (wav: Uint8Array) => void; reject: (err: Error) => void }>();
  private next = 0;

  async speak(text: string, language: 'ru' | 'en', wordsPerMinute = DEFAULT_WPM): Promise<Speech> {
    const worker = await this.start();
    const args = ['-v', VOICES[language], '-s', String(Math.round(wordsPerMinute)), '-w', '/speech.wav', text];
    const wav = await new Promise<Uint8Array>((resolve, reject) => {
      const id = this.next++;
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, args });
    });
    const samples = new WaveFile(wav).getSamples(false, Int16Array) as unknown as Int16Array;
    return { samples, seconds: samples.length / VOICE_RATE };
  }

  /** Ends the worker; a speak still waiting fails. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await (await worker).terminate();
  }

  private start(): Promise<Worker> {
    if (this.worker) return this.worker;
    const started = module().then((wasm) => {
      // No --import tsx and the like: the worker's code is plain JavaScript.
      const worker = new Worker(WORKER, { eval: true, execArgv: [], workerData: { url: pathToFileURL(engine).href, wasm } });
      worker.on('message', ({ id, wav, error }: { id: number; wav?: Uint8Array; error?: string }) => {
        const waiting = this.pending.get(id);
        this.pending.delete(id);
        if (wav) waiting?.resolve(wav);
        else waiting?.reject(new Error(`eSpeak NG failed: ${error}`));
      });
      const fail = (err: Error) => {
        for (const waiting of this.pending.values()) waiting.reject(err);
        this.pending.clear();
      };
      worker.on('error', (err) => fail(new Error(`eSpeak NG failed: ${err.message}`)));
      worker.on('exit', (code) => {
        fail(new Error(`eSpeak NG's worker ended (${code})`));
        // A later line starts a new worker.
        if (this.worker === started) this.worker = undefined;
      });
      return worker;
    });
    this.worker = started;
    return started;
  }
}
