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
/**
 * How strongly a word in an emoji's name or tags counts; the name says what the picture is. A concept's picture (see
 * CONCEPTS) counts `concept`, an offer's `offer`, a time's `time`, less `conceptRank` for each picture before it.
 */
const WEIGHT = { name: 3, tag: 2, tagWord: 1, concept: 4, offer: 2.5, time: 1.5, conceptRank: 0.25 } as const;

/**
 * Signs written in CJK ideographs or kana (the enclosed ideographic supplement 🈁..🉑, ㊗, ㊙, 〽): the audience reads
 * neither, and "скидка" chose 割, Japanese for "discount". They are left out of the index.
 */
export const foreignScriptSign = (code: string) => /^1f2[0-9a-f]{2}$/.test(code) || ['3297', '3299', '303d'].includes(code);

/** Words that say nothing about a picture. */
const STOP = new Set(
  (
    'the and for with your you this that what when how why are was but not all any can get got its our out one two ' +
    'more most less than then them they their there here just very much many some into onto from about over under ' +
    'make made take have has had will would should could like know need want wrong right thing things way ways time ' +
    'today really every everything nothing something stay start simple small keep try see tell who which also only off ' +
    'это эти этот эта как что для при без над под все всё ещё уже так там тут вот где когда чтобы если или его её их ' +
    'наш ваш мой твой свой они она оно мы вы себя тебя меня нас вас был была были будет есть нет да ну очень просто ' +
    'каждый каждая день сегодня начните начать попробуйте сделайте сделать простой простого простое один одна раз вещь ' +
    'вещи всего самое дома новый новая новое новому учим weekend new английский русский english russian'
  ).split(' '),
);

/**
 * Colours count as a word of a tag wherever they are in an emoji's name: a colour says how a thing looks, not what it
 * is ("green tea" found the green apple, "чёрная пятница" the black cat). Not "orange", a fruit too.
 */
const COLOURS = 'green black white red blue yellow purple brown pink grey gray зеленый черный белый красный синий желтый фиолетовый коричневый розовый голубой';

/** Words after which the next one is what the scene lacks. */
const NEGATIONS = new Set(['без', 'не', 'нет', 'no', 'not', 'without']);

const stemmers = { ru: snowball.newStemmer('russian'), en: snowball.newStemmer('english') };
/** The library repeats its words (28,855 words, 9,290 distinct): each is stemmed once. */
const stemmed = new Map<string, string>();

/** Every word of `text` with its stem, Russian or English per word, and whether a negation stands before it. */
function words(text: string): { word: string; stem: string; negated: boolean }[] {
  const out: { word: string; stem: string; negated: boolean }[] = [];
  let negated = false;
  for (const raw of text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .match(/[\p{L}]+/gu) ?? []) {
    let stem = stemmed.get(raw);
    if (stem === undefined) {
      stem = (/[а-я]/.test(raw) ? stemmers.ru : stemmers.en).stem(raw);
      stemmed.set(raw, stem);
    }
    // "без сахара", "without sugar": the thing is not in the scene.
    out.push({ word: raw, stem, negated });
    negated = NEGATIONS.has(raw);
  }
  return out;
}

/** The stems of the words of `text` worth matching, in order, Russian or English per word. */
export function stems(text: string): { word: string; stem: string }[] {
  return words(text)
    .filter(({ word, negated }) => !negated && word.length >= 3 && !STOP.has(word))
    .map(({ word, stem }) => ({ word, stem }));
}

/**
 * Concepts that Emojibase's names and tags miss or give to another picture: "скидка" found the Japanese "discount"
 * sign, "кофейня", "латте" and "solar panels" nothing, "feed" breast-feeding, "brushing a long-haired cat" a blond
 * person. Each lists words (any form of a word here finds it, by its stem; "=word" only as written, for an English word
 * whose stem is another word, as "evening" is "even") and the pictures that show the concept, best first. A concept's
 * word is not looked up in Emojibase: the concept decides what it shows. A thing counts more than a word in an emoji's
 * name, so it wins over the scene's other words; an offer ("скидка", "sale", a "%") counts less than a name, so the
 * thing offered shows when the scene names it; a time ("по утрам", "on Fridays") less still, for it says when, not
 * what. Emojibase's match decides for every other word.
 */
export const CONCEPTS: { words: string; pictures: string[]; kind?: 'offer' | 'time' }[] = [
  { words: 'кофе кофейня капучино латте эспрессо бариста coffee café cafe cappuccino latte espresso barista', pictures: ['2615'] },
  { words: 'чай чая чаем чаю чайная чаепитие tea', pictures: ['1f375', '2615', '1fad6'] },
  { words: 'скидка распродажа акция sale discount %', pictures: ['1f3f7', '1f6cd'], kind: 'offer' },
  { words: 'кошка кот котик котенок котята cat kitten kitty', pictures: ['1f408', '1f431'] },
  { words: 'кормить корм кормление накормить feed feeding', pictures: ['1f963', '1f37d'] },
  { words: 'расчесывать расчесать расческа вычесывать груминг brush comb groom grooming', pictures: ['1faae', '1f429', '1faa5'] },
  { words: 'зубы зубной teeth tooth toothbrush', pictures: ['1faa5', '1f9b7'] },
  { words: 'панели solar', pictures: ['2600', '1f31e', '1f50b'] },
  { words: 'энергия электричество energy electricity', pictures: ['26a1', '1f50c', '1f50b'] },
  { words: 'батарея аккумулятор battery', pictures: ['1f50b'] },
  { words: 'телефон смартфон phone smartphone', pictures: ['1f4f1', '1f4f2'] },
  { words: 'ремонт починка repair', pictures: ['1f527', '1f6e0'] },
  { words: 'растение plant plants houseplant', pictures: ['1fab4', '1f331'] },
  { words: 'цветы букет flowers bouquet', pictures: ['1f490', '1f337', '1f339'] },
  { words: 'спортзал спортзале тренажерный фитнес gym =fitness workout', pictures: ['1f3cb', '1f4aa'] },
  { words: 'офис office', pictures: ['1f3e2', '1f4bc'] },
  { words: 'вебинар webinar', pictures: ['1f4bb', '1f5a5'] },
  { words: 'концерт concert', pictures: ['1f3a4', '1f3b8', '1f3b6'] },
  { words: 'английский english', pictures: ['1f4da', '1f4d6'] },
  { words: 'деньги экономить сэкономить экономия money savings', pictures: ['1f4b0', '1fa99'] },
  { words: 'пекарня выпечка bakery pastry', pictures: ['1f950', '1f35e', '1f956'] },
  { words: 'утро утром утрам утренний morning mornings', pictures: ['23f0', '1f305', '1f304'], kind: 'time' },
  { words: 'вечер вечером вечерний =evening =evenings tonight', pictures: ['1f306', '1f307', '1f319'], kind: 'time' },
  { words: 'выходные суббота воскресенье пятница weekend weekends saturday sunday friday fridays', pictures: ['1f4c5', '1f5d3'], kind: 'time' },
];

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
  const colours = new Set(stems(COLOURS).map(({ stem }) => stem));
  const add = (text: string, code: string, weight: number) => {
    for (const { stem } of stems(text)) {
      const of = index.stems[stem] ?? {};
      of[code] = Math.max(of[code] ?? 0, colours.has(stem) ? WEIGHT.tagWord : weight);
      index.stems[stem] = of;
    }
  };
  for (const lang of ['en', 'ru'] as const) {
    const data = JSON.parse(readFileSync(require.resolve(`emojibase-data/${lang}/compact.json`), 'utf8')) as EmojiEntry[];
    for (const e of data) {
      if (e.group === undefined || LEFT_OUT_GROUPS.has(e.group)) continue;
      const code = fileOf(e.hexcode);
      if (lang === 'en') {
        if (foreignScriptSign(code) || !existsSync(join(dir, `${code}.svg`))) continue;
        index.entries[code] = [e.label, e.order ?? 1e9, e.group === FACES];
      } else if (!index.entries[code]) continue;
      add(e.label, code, WEIGHT.name);
      for (const tag of e.tags ?? []) add(tag, code, tag.includes(' ') ? WEIGHT.tagWord : WEIGHT.tag);
    }
  }
  return index;
}

/** The concepts' words as matchPicture looks them up: "=word" as written, any other by its stem. */
function conceptWords(): Map<string, number[]> {
  const map = new Map<string, number[]>();
  CONCEPTS.forEach(({ words: list }, i) => {
    for (const w of list.split(' ')) {
      const key = w.startsWith('=') || w === '%' ? w : words(w)[0]!.stem;
      map.set(key, [...(map.get(key) ?? []), i]);
    }
  });
  return map;
}

interface Library {
  byStem: Map<string, Map<string, number>>;
  /** A concept's word (its stem, or "=word") -> the concept's index in CONCEPTS. */
  concepts: Map<string, number[]>;
  entries: Map<string, { name: string; order: number; face: boolean }>;
  svgDir: string;
}

let library: Library | undefined;

function loadLibrary(): Library {
  if (library) return library;
  const index = prebuilt as unknown as LibraryIndex;
  library = {
    byStem: new Map(Object.entries(index.stems).map(([stem, codes]) => [stem, new Map(Object.entries(codes))])),
    concepts: conceptWords(),
    entries: new Map(Object.entries(index.entries).map(([code, [name, order, face]]) => [code, { name, order, face }])),
    svgDir: svgDir(),
  };
  return library;
}

/**
 * The picture for one scene: the emoji that the most of the scene's words name (a concept's word counts most, then a
 * word in its name, then one in its tags; the caption's words before the hint's), preferring one the video has not
 * shown yet; undefined when no word names any.
 */
export function matchPicture(caption: string, visual: string, used: ReadonlySet<string> = new Set()): Picture | undefined {
  const lib = loadLibrary();
  const scores = new Map<string, { score: number; first: string; best: number }>();
  const count = (code: string, weight: number, word: string) => {
    const s = scores.get(code) ?? { score: 0, first: word, best: 0 };
    s.score += weight;
    // The word that counted most is the one the picture is said to match.
    if (weight > s.best) Object.assign(s, { first: word, best: weight });
    scores.set(code, s);
  };
  // Each concept counts once, by its word in the caption if there is one.
  const concepts = new Map<number, { word: string; boost: number }>();
  for (const [text, boost] of [
    [visual, 1],
    [caption, 2],
  ] as const) {
    for (const [i, word] of conceptsIn(text, lib)) concepts.set(i, { word, boost });
  }
  for (const [i, { word, boost }] of concepts) {
    const { pictures, kind } = CONCEPTS[i]!;
    for (const [rank, code] of pictures.entries()) count(code, (WEIGHT[kind ?? 'concept'] - WEIGHT.conceptRank * rank) * boost, word);
  }
  const scene = [...stems(caption).map((w) => ({ ...w, boost: 2 })), ...stems(visual).map((w) => ({ ...w, boost: 1 }))];
  const seen = new Set<string>();
  for (const { word, stem, boost } of scene) {
    // A concept's word is the concept's alone.
    if (seen.has(stem) || lib.concepts.has(stem) || lib.concepts.has(`=${word}`)) continue;
    seen.add(stem);
    for (const [code, weight] of lib.byStem.get(stem) ?? []) count(code, weight * boost, word);
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

/** The concepts `text` names (not after a negation), each with the first word that names it. */
function conceptsIn(text: string, lib: Library): Map<number, string> {
  const found = new Map<number, string>();
  const name = (key: string, word: string) => {
    for (const i of lib.concepts.get(key) ?? []) if (!found.has(i)) found.set(i, word);
  };
  for (const { word, stem, negated } of words(text)) {
    if (negated) continue;
    name(`=${word}`, word);
    name(stem, word);
  }
  if (text.includes('%')) name('%', '%');
  return found;
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
