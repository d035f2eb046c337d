// espeak-ng ships no types; this is the part of its Emscripten factory the voice uses.
declare module 'espeak-ng' {
  interface ESpeakOptions {
    arguments: string[];
    instantiateWasm?: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance) => void) => object;
  }
  const factory: (options: ESpeakOptions) => Promise<{ FS: { readFile(path: string): Uint8Array } }>;
  export default factory;
}
