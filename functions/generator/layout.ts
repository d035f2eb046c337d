/**
 * Caption layout by measurement: text is wrapped to the safe width using the font's own advance widths, the size
 * shrinks until the block fits the safe height without splitting a word, and only a word wider than the line at the
 * smallest size is split with a hyphen. Characters the
 * font cannot draw (emoji, for one) are left out rather than drawn as boxes. Nothing is ever cut off.
 */
import { GeneratorFailed } from '../core/generator.ts';
import { fontAt } from './fonts.ts';

export interface CaptionBox {
  /** Safe area, in pixels of the 1080x1920 frame. */
  width: number;
  height: number;
  maxSize: number;
  minSize: number;
  lineSpacing: number;
}

export interface CaptionLayout {
  size: number;
  lineHeight: number;
  lines: string[];
  /** Width of each line at `size`, as measured. */
  widths: number[];
}

/** Keeps what the font can draw, with whitespace folded. */
export function drawable(fontPath: string, text: string): string {
  const font = fontAt(fontPath);
  return Array.from(text.normalize('NFC'))
    .filter((ch) => /\s/.test(ch) || font.charToGlyphIndex(ch) > 0)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

export function measure(fontPath: string, text: string, size: number): number {
  // drawtext applies no kerning, so neither does the measurement.
  return fontAt(fontPath).getAdvanceWidth(text, size, { kerning: false });
}

/** The lines of `text` at `size`; `split` says whether a word had to be split to fit the width. */
function wrap(fontPath: string, text: string, size: number, width: number): { lines: string[]; split: boolean } {
  const lines: string[] = [];
  let split = false;
  let line = '';
  const push = (word: string) => {
    const candidate = line ? `${line} ${word}` : word;
    if (measure(fontPath, candidate, size) <= width) {
      line = candidate;
      return;
    }
    if (line) lines.push(line);
    line = '';
    if (measure(fontPath, word, size) <= width) {
      line = word;
      return;
    }
    // A word wider than the line: split it, each piece but the last ending in a hyphen.
    split = true;
    let piece = '';
    for (const ch of Array.from(word)) {
      if (piece && measure(fontPath, `${piece}${ch}-`, size) > width) {
        lines.push(`${piece}-`);
        piece = '';
      }
      piece += ch;
    }
    line = piece;
  };
  for (const word of text.split(' ')) push(word);
  if (line) lines.push(line);
  return { lines, split };
}

export function layoutCaption(fontPath: string, raw: string, box: CaptionBox): CaptionLayout {
  const text = drawable(fontPath, raw);
  if (!text) return { size: box.maxSize, lineHeight: 0, lines: [], widths: [] };
  // The largest size at which the caption fits without splitting a word (a hyphen the client did not write); only
  // when none does, the largest at which it fits at all.
  for (const splitting of [false, true]) {
    for (let size = box.maxSize; size >= box.minSize; size -= 4) {
      const { lines, split } = wrap(fontPath, text, size, box.width);
      const lineHeight = Math.round(size * box.lineSpacing);
      if ((splitting || !split) && lines.length * lineHeight <= box.height) {
        return { size, lineHeight, lines, widths: lines.map((l) => measure(fontPath, l, size)) };
      }
    }
  }
  throw new GeneratorFailed(`The caption "${shorten40(text)}" does not fit on screen even at the smallest size`);
}

const shorten40 = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
