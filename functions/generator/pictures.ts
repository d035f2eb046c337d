/**
 * A picture for each scene, chosen by the words of its caption and visual hint from an open-licensed library shipped
 * in npm packages: Twemoji's SVG graphics (@twemoji/svg; CC-BY 4.0) found through Emojibase's Russian and English
 * names and tags (emojibase-data; MIT), matched by Snowball stems (snowball-stemmers), so that "чая", "чаем" and
 * "tea" all find the teacup. SVGs are rasterized by resvg compiled to WebAssembly (@resvg/resvg-wasm): no native
 * binary, the same on every host and in the render image.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import snowball from 'snowball-stemmers';
import prebuilt from './pictures-index.json' with { type: 'json' };

const require = createRequire(import.meta.url);

interface EmojiEntry {
  hexcode: string;
  label: string;
  tags?: string[];
  group?: number;
  order?: number;
}

export interface Picture {
  /** Twemoji's file name without .svg, e.g. "1f375". */
  code: string;
  /** Emojibase's English name, e.g. "teacup without handle". */
  name: string;
  /** The scene's word that chose it, or undefined when nothing matched and the topic's or a default picture stands in. */
  matched?: string;
}

/** Emojibase groups left out: skin-tone components and flags (a flag says nothing about a scene). */
const LEFT_OUT_GROUPS = new Set([2, 9]);
/** Faces (group 0) match many everyday words ("hand", "light") but show a scene's thing poorly: they count for less. */
const FACES = 0;
/** How strongly a word in an emoji's name or tags counts; the name says what the picture is. */
const WEIGHT = { name: 3, tag: 2, tagWord: 1 } as const;

/** Words that say nothing about a picture. */
const STOP = new Set(
  (
    'the and for with your you this that what when how why are was but not all any can get got its our out one two ' +
    'more most less than then them they their there here just very much many some into onto from about over under ' +
    'make made take have has had will would should could like know need want wrong right thing things way ways time ' +
    'today really every everything nothing something stay start simple small keep try see tell who which also only ' +
    'это эти этот эта как что для при без над под все всё ещё уже так там тут вот где когда чтобы если или его её их ' +
    'наш ваш мой твой свой они она оно мы вы себя тебя меня нас вас был была были будет есть нет да ну очень просто ' +
    'каждый каждая день сегодня начните начать попробуйте сделайте сделать простой простого простое один одна раз вещь ' +
    'вещи всего самое дома новый новая новое новому учим weekend new английский русский english russian'
  ).split(' '),
);

/** Words after which the next one is what the scene lacks. */
const NEGATIONS = new Set(['без', 'не', 'нет', 'no', 'not', 'without']);

const stemmers = { ru: snowball.newStemmer('russian'), en: snowball.newStemmer('english') };
/** The library repeats its words (28,855 words, 9,290 distinct): each is stemmed once. */
const stemmed = new Map<string, string>();

/** The stems of the words of `text` worth matching, in order, Russian or English per word. */
export function stems(text: string): { word: string; stem: string }[] {
  const out: { word: string; stem: string }[] = [];
  let negated = false;
  for (const raw of text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .match(/[\p{L}]+/gu) ?? []) {
    // "без сахара", "without sugar": the thing is not in the scene.
    const skip = negated;
    negated = NEGATIONS.has(raw);
    if (skip || raw.length < 3 || STOP.has(raw)) continue;
    let stem = stemmed.get(raw);
    if (stem === undefined) {
      stem = (/[а-я]/.test(raw) ? stemmers.ru : stemmers.en).stem(raw);
      stemmed.set(raw, stem);
    }
    out.push({ word: raw, stem });
  }
  return out;
}

/**
 * The library's index, built from the packages by `npm run pictures:index` into pictures-index.json (a test keeps it
 * equal to a fresh build): building it takes 150 ms and 20 MB of JSON at every cold start, reading it 10 ms.
 */
export interface LibraryIndex {
  /** code -> [English name, Emojibase's order, is a face]. */
  entries: Record<string, [string, number, boolean]>;
  /** stem -> code -> the weight of the best place the stem appears in the emoji's name or tags. */
  stems: Record<string, Record<string, number>>;
}

/** Twemoji names its files by code points in lower case, without the emoji presentation selector. */
const fileOf = (hexcode: string) => hexcode.toLowerCase().replace(/-fe0f/g, '');
const svgDir = () => dirname(require.resolve('@twemoji/svg/package.json'));

/** The index, from Emojibase's Russian and English data and the SVGs Twemoji has. */
export function buildLibraryIndex(): LibraryIndex {
  const dir = svgDir();
  const index: LibraryIndex = { entries: {}, stems: {} };
  const add = (text: string, code: string, weight: number) => {
    for (const { stem } of stems(text)) {
      const of = index.stems[stem] ?? {};
      of[code] = Math.max(of[code] ?? 0, weight);
      index.stems[stem] = of;
    }
  };
  for (const lang of ['en', 'ru'] as const) {
    const data = JSON.parse(readFileSync(require.resolve(`emojibase-data/${lang}/compact.json`), 'utf8')) as EmojiEntry[];
    for (const e of data) {
      if (e.group === undefined || LEFT_OUT_GROUPS.has(e.group)) continue;
      const code = fileOf(e.hexcode);
      if (lang === 'en') {
        if (!existsSync(join(dir, `${code}.svg`))) continue;
        index.entries[code] = [e.label, e.order ?? 1e9, e.group === FACES];
      } else if (!index.entries[code]) continue;
      add(e.label, code, WEIGHT.name);
      for (const tag of e.tags ?? []) add(tag, code, tag.includes(' ') ? WEIGHT.tagWord : WEIGHT.tag);
    }
  }
  return index;
}

interface Library {
  byStem: Map<string, Map<string, number>>;
  entries: Map<string, { name: string; order: number; face: boolean }>;
  svgDir: string;
}

let library: Library | undefined;

function loadLibrary(): Library {
  if (library) return library;
  const index = prebuilt as unknown as LibraryIndex;
  library = {
    byStem: new Map(Object.entries(index.stems).map(([stem, codes]) => [stem, new Map(Object.entries(codes))])),
    entries: new Map(Object.entries(index.entries).map(([code, [name, order, face]]) => [code, { name, order, face }])),
    svgDir: svgDir(),
  };
  return library;
}

/**
 * The picture for one scene: the emoji that the most of the scene's words name (a word in its name counts more than
 * one in its tags; the caption's words before the hint's), preferring one the video has not shown yet; undefined when
 * no word names any.
 */
export function matchPicture(caption: string, visual: string, used: ReadonlySet<string> = new Set()): Picture | undefined {
  const lib = loadLibrary();
  const scores = new Map<string, { score: number; first: string; best: number }>();
  const words = [...stems(caption).map((w) => ({ ...w, boost: 2 })), ...stems(visual).map((w) => ({ ...w, boost: 1 }))];
  const seen = new Set<string>();
  for (const { word, stem, boost } of words) {
    if (seen.has(stem)) continue;
    seen.add(stem);
    for (const [code, weight] of lib.byStem.get(stem) ?? []) {
      const s = scores.get(code) ?? { score: 0, first: word, best: 0 };
      s.score += weight * boost;
      // The word that counted most is the one the picture is said to match.
      if (weight * boost > s.best) Object.assign(s, { first: word, best: weight * boost });
      scores.set(code, s);
    }
  }
  let best: { code: string; score: number; first: string } | undefined;
  for (const [code, s] of scores) {
    // A picture already shown counts for less, so that scenes about one thing still vary where they can.
    const entry = lib.entries.get(code)!;
    const score = s.score * (used.has(code) ? 0.6 : 1) * (entry.face ? 0.5 : 1);
    const order = entry.order;
    if (!best || score > best.score || (score === best.score && order < lib.entries.get(best.code)!.order)) best = { code, score, first: s.first };
  }
  return best && { code: best.code, name: lib.entries.get(best.code)!.name, matched: best.first };
}

/** A picture for every scene: matched by its words, else the topic's, else a sparkle. */
export function picturesFor(scenes: { caption: string; visual: string }[], topic: string): Picture[] {
  const used = new Set<string>();
  const fallback = matchPicture(topic, '') ?? { code: '2728', name: 'sparkles' };
  return scenes.map((scene) => {
    const picture = matchPicture(scene.caption, scene.visual, used) ?? { code: fallback.code, name: fallback.name };
    used.add(picture.code);
    return picture;
  });
}

let wasmReady: Promise<void> | undefined;

/** The picture as a PNG `size` pixels wide (transparent around the drawing). */
export async function rasterize(picture: Picture, size: number): Promise<Buffer> {
  wasmReady ??= initWasm(readFileSync(require.resolve('@resvg/resvg-wasm/index_bg.wasm')));
  await wasmReady;
  const svg = readFileSync(join(loadLibrary().svgDir, `${picture.code}.svg`), 'utf8');
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: size } }).render();
  const png = Buffer.from(rendered.asPng());
  rendered.free();
  return png;
}
