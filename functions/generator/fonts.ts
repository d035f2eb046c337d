/** The fonts the renderer draws with, by file path (ffmpeg's drawtext needs a TTF path), and their metrics. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type opentype from 'opentype.js';
import { parseFont } from './interop.ts';

const require = createRequire(import.meta.url);

export const FONTS = {
  caption: require.resolve('@expo-google-fonts/montserrat/800ExtraBold/Montserrat_800ExtraBold.ttf'),
  label: require.resolve('@expo-google-fonts/montserrat/600SemiBold/Montserrat_600SemiBold.ttf'),
} as const;

const loaded = new Map<string, opentype.Font>();

export function fontAt(path: string): opentype.Font {
  let font = loaded.get(path);
  if (!font) {
    const buf = readFileSync(path);
    font = parseFont(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    loaded.set(path, font);
  }
  return font;
}
