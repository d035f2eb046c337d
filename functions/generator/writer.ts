/**
 * The embedded writer: parameters (and, on regen, a note) to a script of 4 to 8 scenes and a posting pack.
 * Deterministic: the same parameters give the same script; a regen note changes it along the note.
 */
import { createHash } from 'node:crypto';
import type { OrderParams } from '../contract/orders.ts';
import { detectLanguage } from '../core/language.ts';
import type { PostingPack, Scene, Script, WriteRequest, Writer } from '../core/generator.ts';
import { allotSeconds, shorten } from '../core/script-text.ts';

type Lang = 'ru' | 'en';
type Tone = OrderParams['tone'];

interface Bank {
  hook: Record<Tone, (t: string) => [caption: string, voice: string]>;
  /** Caption, voice and visual hint; the hint names a thing the scene's picture can show (pictures.ts). */
  points: ((t: string) => [string, string, string])[];
  placement: (product: string, t: string, description?: string) => [string, string];
  cta: (cta: string | undefined) => [string, string];
  note: (note: string) => [string, string];
  visuals: { hook: (t: string) => string; placement: (product: string) => string; note: string; cta: string };
  title: (t: string, n: number) => string;
  description: (t: string, cta: string) => string;
  tags: string[];
}

const BANKS: Record<Lang, Bank> = {
  en: {
    hook: {
      neutral: (t) => [t, `Here is what to know about ${t}.`],
      energetic: (t) => [`${t}!`, `Ready? ${t}, fast!`],
      calm: (t) => [t, `Slow down. Let's talk about ${t}.`],
      funny: (t) => [`${t}, but honestly`, `${t}. Yes, really. Stay with me.`],
      serious: (t) => [t, `${t}: the facts that matter.`],
    },
    points: [
      (t) => ['Start simple', `Start with the basics of ${t}.`, 'first steps, footprints'],
      () => ['One small trick', 'One small trick changes everything.', 'magic wand'],
      () => ['Skip this mistake', 'Most people get this part wrong.', 'warning, caution'],
      () => ['Make it a habit', 'Do it daily and it gets easy.', 'calendar'],
      () => ['Quality over quantity', 'Less, but better, wins every time.', 'gem stone'],
      () => ['Try it today', 'Try it today and see the difference.', 'rocket launch'],
      () => ['Share the idea', 'Tell a friend who needs this.', 'light bulb, idea'],
      () => ['Keep it fun', 'Keep it fun and you will keep going.', 'party popper'],
    ],
    placement: (p, _t, d) => [p, d ? `${p}: ${d}` : `${p} makes it easier.`],
    cta: (c) => [c ?? 'Follow for more', c ? `${c}.` : 'Follow for more ideas like this.'],
    note: (n) => [shorten(n, 60), `${n.replace(/[.!?]*$/, '')}.`],
    visuals: { hook: (t) => `${t}, close-up`, placement: (p) => `${p}, shopping bags`, note: 'memo, note', cta: 'bell sound' },
    title: (t, n) => `${t}: ${n} things to know`,
    description: (t, c) => `Everything about ${t} in one short video. ${c}.`,
    tags: ['#shorts', '#reels', '#tips'],
  },
  ru: {
    hook: {
      neutral: (t) => [t, `Вот что важно знать: ${t}.`],
      energetic: (t) => [`${t}!`, `Готовы? ${t} — быстро!`],
      calm: (t) => [t, `Без спешки. Поговорим про ${t}.`],
      funny: (t) => [`${t}, если честно`, `${t}. Да, серьёзно. Смотрите дальше.`],
      serious: (t) => [t, `${t}: только главное.`],
    },
    points: [
      () => ['Начните с простого', 'Начните с самого простого.', 'первые шаги, следы'],
      () => ['Один приём', 'Один приём меняет всё.', 'волшебная палочка'],
      () => ['Частая ошибка', 'Многие ошибаются именно здесь.', 'знак предупреждения'],
      () => ['Сделайте привычкой', 'Каждый день — и станет легко.', 'календарь'],
      () => ['Лучше меньше', 'Меньше, но лучше.', 'драгоценный камень'],
      () => ['Попробуйте сегодня', 'Попробуйте сегодня и сравните.', 'ракета, взлёт'],
      () => ['Поделитесь', 'Отправьте другу, которому это нужно.', 'лампочка, идея'],
      () => ['С удовольствием', 'Когда интересно, легко продолжать.', 'праздник, хлопушка'],
    ],
    placement: (p, _t, d) => [p, d ? `${p}: ${d}` : `${p} поможет в этом.`],
    cta: (c) => [c ?? 'Подписывайтесь', c ? `${c}.` : 'Подписывайтесь, будет ещё.'],
    note: (n) => [shorten(n, 60), `${n.replace(/[.!?]*$/, '')}.`],
    visuals: { hook: (t) => `${t}, крупный план`, placement: (p) => `${p}, покупки`, note: 'заметка, блокнот', cta: 'колокольчик' },
    title: (t, n) => `${t}: ${n} главных мысли`,
    description: (t, c) => `Всё про «${t}» в одном коротком видео. ${c}.`,
    tags: ['#shorts', '#reels', '#советы'],
  },
};

const seedOf = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest().readUInt32BE(0);

export function languageOf(params: OrderParams): Lang {
  return params.language === 'auto' ? detectLanguage(params.topic) : params.language;
}

const STOPWORDS = new Set([
  'about',
  'with',
  'this',
  'that',
  'your',
  'from',
  'what',
  'when',
  'how',
  'why',
  'video',
  'для',
  'про',
  'это',
  'как',
  'что',
  'или',
  'видео',
  'чтобы',
  'если',
]);

function hashtags(topic: string, lang: Lang, product?: string): string[] {
  const words = topic
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 3 && !STOPWORDS.has(w))
    .sort((a, b) => b.length - a.length)
    .slice(0, 3);
  const tags = [...words.map((w) => `#${w}`), ...(product ? [`#${product.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase()}`] : []), ...BANKS[lang].tags];
  return [...new Set(tags)].filter((t) => t.length > 1).slice(0, 8);
}

/** A tone asked for in a regen note ("funnier", "серьёзнее"), if any. */
function toneFromNote(note: string): Tone | undefined {
  if (/funn|joke|humou?r|смешн|весел|юмор/i.test(note)) return 'funny';
  if (/serious|formal|серь[её]зн|строж/i.test(note)) return 'serious';
  if (/energ|dynamic|faster|энерг|динамичн|бодр/i.test(note)) return 'energetic';
  if (/calm|softer|спокойн|мягче/i.test(note)) return 'calm';
  return undefined;
}

export function writeScript(req: WriteRequest): Script {
  const { params, regen } = req;
  const lang = languageOf(params);
  const bank = BANKS[lang];
  const tone = (regen && toneFromNote(regen.note)) || params.tone;
  const topic = shorten(params.topic, 48);
  const seed = seedOf(params.topic, regen?.note ?? '', regen ? JSON.stringify(regen.previous.scenes) : '');
  const n = Math.min(8, Math.max(4, Math.round(params.duration_seconds / 6)));

  const v = bank.visuals;
  const fixed: [string, string, string][] = [];
  if (params.placement) fixed.push([...bank.placement(params.placement.product, topic, params.placement.description), v.placement(params.placement.product)]);
  if (regen) fixed.push([...bank.note(regen.note), v.note]);
  const bodyCount = Math.max(1, n - 2 - fixed.length);
  const body = Array.from({ length: bodyCount }, (_, i) => bank.points[(seed + i * 3) % bank.points.length]!(topic));
  const lines: [string, string, string][] = [[...bank.hook[tone](topic), v.hook(topic)], ...body, ...fixed, [...bank.cta(params.cta), v.cta]];
  const scenes: Omit<Scene, 'seconds'>[] = lines.map(([caption, voiceover, visual]) => ({
    caption,
    voiceover: params.voice === 'none' ? '' : voiceover,
    visual,
  }));
  const cta = bank.cta(params.cta)[0];
  const pack: PostingPack = {
    title: shorten(bank.title(topic, bodyCount + fixed.length), 100),
    description: shorten(bank.description(topic, cta), 300),
    hashtags: hashtags(params.topic, lang, params.placement?.product),
  };
  return { language: lang, scenes: allotSeconds(scenes, params.duration_seconds), pack };
}

export class EmbeddedWriter implements Writer {
  async write(req: WriteRequest): Promise<Script> {
    return writeScript(req);
  }
}
