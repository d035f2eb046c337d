/**
 * Pictures that follow the script: each scene's picture is chosen by its caption's and visual hint's words, in Russian
 * and English. Over a set of scripts (the embedded writer's for twelve topics, and scenes as clients write them), the
 * test lists the picture each scene got and requires at least 80% of scenes to have one matched to their words. Over a
 * labelled set of scene texts (pictures-labelled.ts) it requires 90% of pictures to be one of those labelled as fitting,
 * and no sign in a script the audience does not read (the Japanese ideograph buttons) for any text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createVideoBody } from '../../functions/contract/orders.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLibraryIndex, CONCEPTS, matchPicture, picturesFor, stems } from '../../functions/generator/pictures.ts';
import { ROOT } from '../../lib/paths.ts';
import { writeScript } from '../../functions/generator/writer.ts';
import { LABELLED } from './pictures-labelled.ts';

const TOPICS = [
  'Скидка 50% на зелёный чай до пятницы',
  'Как вырастить томаты на балконе',
  'Утренний кофе без сахара',
  'Лучшие книги для отпуска',
  'Собака и кошка дома',
  'Бег по утрам для новичков',
  'How to brew green tea',
  'Our new pizza recipe',
  'Saving money on groceries',
  'Learn guitar in 10 minutes a day',
  'Morning yoga routine',
  'Travel to Japan on a budget',
];

/** Scenes as clients write them in director mode: caption and visual hint. */
const CLIENT_SCENES: [string, string][] = [
  ['Свежая выпечка каждое утро', 'хлеб на столе'],
  ['Доставка за 30 минут', 'курьер на велосипеде'],
  ['Скидка на все кроссовки', 'обувь'],
  ['Ремонт телефонов за час', 'смартфон крупно'],
  ['Учим английский с нуля', 'книга и тетрадь'],
  ['Тренировка дома без железа', 'спортзал'],
  ['Новый вкус мороженого', 'мороженое летом'],
  ['Подарки к Новому году', 'ёлка и подарки'],
  ['Fresh flowers for any day', 'a bouquet of roses'],
  ['Fix your bike in five steps', 'bicycle repair'],
  ['Our coffee beans come from Brazil', 'coffee cup'],
  ['Rainy day reading list', 'umbrella and books'],
  ['Summer sale on sunglasses', 'beach, sun'],
  ['Learn to code this weekend', 'laptop on a desk'],
  ['Healthy breakfast ideas', 'eggs and avocado'],
  ['Winter tires: change them now', 'car in the snow'],
];

describe('pictures for scenes', () => {
  it('reads the library index that the packages and the rules build today (npm run pictures:index)', () => {
    const committed = JSON.parse(readFileSync(join(ROOT, 'functions', 'generator', 'pictures-index.json'), 'utf8'));
    assert.deepEqual(committed, buildLibraryIndex());
  });

  it('gives at least 80% of scenes a picture matched to one of their words, over a set of scripts', (t) => {
    const rows: string[] = [];
    let matched = 0;
    let scenes = 0;
    for (const topic of TOPICS) {
      const script = writeScript({ params: createVideoBody.parse({ topic, duration_seconds: 40 }) });
      picturesFor(script.scenes, topic).forEach((p, i) => {
        const scene = script.scenes[i]!;
        scenes++;
        if (p.matched) matched++;
        rows.push(`${scene.caption} | ${scene.visual} -> ${p.name} (${p.matched ?? 'no word matched'})`);
      });
    }
    for (const [caption, visual] of CLIENT_SCENES) {
      const p = picturesFor([{ caption, visual }], caption)[0]!;
      scenes++;
      if (p.matched) matched++;
      rows.push(`${caption} | ${visual} -> ${p.name} (${p.matched ?? 'no word matched'})`);
    }
    t.diagnostic(`${matched} of ${scenes} scenes matched:\n${rows.join('\n')}`);
    assert.ok(matched / scenes >= 0.8, `${matched} of ${scenes} scenes matched:\n${rows.join('\n')}`);
  });

  it('matches by the word as written in either language, in any of its forms', () => {
    assert.equal(matchPicture('Скидка 50% на зелёный чай', '')?.name, 'teacup without handle');
    assert.equal(matchPicture('How to brew green tea', '')?.name, 'teapot');
    assert.equal(matchPicture('Собаки', '')?.name, 'dog face');
    assert.equal(matchPicture('Our new pizza recipe', 'kitchen')?.name, 'pizza');
  });

  it('prefers the caption’s words, leaves out what the scene says it lacks, and varies the pictures of one video', () => {
    assert.equal(matchPicture('Утренний кофе без сахара', 'крупный план')?.name, 'hot beverage');
    assert.ok(!stems('coffee without sugar').some((w) => w.word === 'sugar'));
    const [first, second] = picturesFor(
      [
        { caption: 'Чай', visual: '' },
        { caption: 'Ещё чай', visual: '' },
      ],
      'чай',
    );
    assert.notEqual(first!.code, second!.code);
  });

  it('gives a scene with no matching word the topic’s picture, and a sparkle without one', () => {
    const [p] = picturesFor([{ caption: 'Вот так', visual: '' }], 'Пицца дома');
    assert.equal(p!.name, 'pizza');
    assert.equal(p!.matched, undefined);
    assert.equal(picturesFor([{ caption: 'Вот так', visual: '' }], 'Вот так')[0]!.code, '2728');
  });
});

/** Signs written in CJK ideographs or kana: the enclosed ideographic supplement (🈁..🉑), ㊗, ㊙ and 〽. */
const cjkSign = (code: string) => /^1f2[0-9a-f]{2}$/.test(code) || ['3297', '3299', '303d'].includes(code);

describe('pictures for a labelled set of scene texts', () => {
  it('labels only pictures the library has, half the texts in each language', () => {
    const dir = join(ROOT, 'node_modules', '@twemoji', 'svg');
    const missing = LABELLED.flatMap(({ codes }) => codes).filter((code) => !existsSync(join(dir, `${code}.svg`)));
    assert.deepEqual(missing, []);
    assert.ok(LABELLED.length >= 60);
    assert.equal(LABELLED.filter((l) => l.lang === 'ru').length, LABELLED.length / 2);
  });

  it('gives at least 90% of the texts a picture labelled as fitting them', (t) => {
    const misses = LABELLED.flatMap(({ text, codes }) => {
      const p = matchPicture(text, '');
      return p && codes.includes(p.code) ? [] : [`${text} -> ${p ? `${p.code} ${p.name} (${p.matched})` : 'nothing'}`];
    });
    const hits = LABELLED.length - misses.length;
    t.diagnostic(`${hits} of ${LABELLED.length} labelled texts hit; misses:\n${misses.join('\n')}`);
    assert.ok(hits / LABELLED.length >= 0.9, `${hits} of ${LABELLED.length} hit; misses:\n${misses.join('\n')}`);
  });

  it('never chooses a sign in CJK ideographs or kana, which the audience does not read', () => {
    const texts = [...LABELLED.map((l) => l.text), 'скидка', 'Скидка 20% на капучино', 'discount', 'bargain', 'secret'];
    const chosen = texts.map((text) => [text, matchPicture(text, '')?.code ?? ''] as const).filter(([, code]) => cjkSign(code));
    assert.deepEqual(chosen, []);
    // Nor in a video, where a picture already shown gives way to the next best one.
    const video = picturesFor(
      texts.map((caption) => ({ caption, visual: '' })),
      'скидка',
    );
    assert.deepEqual(
      video.filter((p) => cjkSign(p.code)),
      [],
    );
    // Nor for any other text: the index holds none.
    assert.deepEqual(Object.keys(buildLibraryIndex().entries).filter(cjkSign), []);
  });

  it('names in the concepts table only pictures the index has', () => {
    const { entries } = buildLibraryIndex();
    assert.deepEqual(
      CONCEPTS.flatMap(({ pictures }) => pictures).filter((code) => !entries[code]),
      [],
    );
  });
});
