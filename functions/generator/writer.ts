/**
 * The embedded writer: parameters (and, on regen, a note) to a script of 4 to 8 scenes and a posting pack.
 * Deterministic: the same parameters give the same script; a regen note changes it along the note.
 */
import { createHash } from 'node:crypto';
import type { OrderParams } from '../contract/orders.ts';
import { detectLanguage } from '../core/language.ts';
import type { PostingPack, Scene, Script, WriteRequest, Writer } from '../core/generator.ts';
import { allotSeconds, shorten } from '../core/script-text.ts';
import { contentOf, type ItemKind } from './content.ts';

type Lang = 'ru' | 'en';
type Tone = OrderParams['tone'];

interface Bank {
  hook: Record<Tone, (t: string) => [caption: string, voice: string]>;
  /** A scene for each thing the topic names (content.ts), by its kind: caption and voice from the customer's words. */
  items: Record<ItemKind, (text: string) => [string, string]>;
  /**
   * Scenes about the subject itself, for a topic that names fewer things than the video has scenes: each carries the
   * subject's words (a colon, not an inflection, joins them, so that a Russian subject keeps its case). Picked by seed.
   */
  angles: ((s: string) => [string, string])[];
  /** The same, for a topic that sells something (content.ts `promo`): an invitation rather than advice. */
  promoAngles: ((s: string) => [string, string])[];
  /** The one scene that says nothing of the topic, for a topic that has nothing more to say. */
  filler: [string, string, string];
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
      neutral: (t) => [t, `Here is what to know: ${lower(t)}.`],
      energetic: (t) => [`${t}!`, `Ready? ${t}, fast!`],
      calm: (t) => [t, `Slow down. Let's talk: ${lower(t)}.`],
      funny: (t) => [`${t}, but honestly`, `${t}. Yes, really. Stay with me.`],
      serious: (t) => [t, `${t}: the facts that matter.`],
    },
    items: {
      offer: (x) => [x, `${x}. Don't miss it.`],
      time: (x) => [x, `Only ${lower(x)}.`],
      audience: (x) => [x, `Made ${lower(x)}.`],
      question: (x) => [asked(x), `${asked(x)} Here is the answer.`],
      point: (x) => [x, `${x}.`],
    },
    angles: [
      (t) => [`${t}: the basics`, `${t}, the basics: start small and keep it simple.`],
      (t) => [`${t}: one tip`, `${t}, one tip: a little every day beats a lot once.`],
      (t) => [`${t}: common mistakes`, `${t}, the common mistake: rushing it.`],
      (t) => [`${t}: in practice`, `${t}, in practice: try it once and see.`],
      (t) => [`${t}: why it matters`, `${t}: here is why it matters.`],
      (t) => [`${t}: what to know`, `${t}: what to know, in one line.`],
    ],
    promoAngles: [
      (t) => [`${t}: come and see`, `${t}: come and see for yourself.`],
      (t) => [`${t}: made for you`, `${t}: made for you, every day.`],
      (t) => [`${t}: worth a visit`, `${t}: worth a visit, and worth telling friends.`],
      (t) => [`${t}: see you soon`, `${t}: see you soon.`],
    ],
    filler: ['Share the idea', 'Tell a friend who needs this.', 'light bulb, idea'],
    placement: (p, _t, d) => [p, d ? `${p}: ${d}` : `${p} makes it easier.`],
    cta: (c) => [c ?? 'Follow for more', c ? `${c}.` : 'Follow for more ideas like this.'],
    note: (n) => [shorten(n, 60), `${n.replace(/[.!?]*$/, '')}.`],
    visuals: { hook: (t) => `${t}, close-up`, placement: (p) => `${p}, shopping bags`, note: 'memo, note', cta: 'bell sound' },
    title: (t, n) => `${t}: ${n} things to know`,
    description: (t, c) => `Everything about ${lower(t)} in one short video. ${c}.`,
    tags: ['#shorts', '#reels', '#tips'],
  },
  ru: {
    hook: {
      neutral: (t) => [t, `Вот что важно знать: ${lower(t)}.`],
      energetic: (t) => [`${t}!`, `Готовы? ${t} — быстро!`],
      calm: (t) => [t, `Без спешки. Поговорим: ${lower(t)}.`],
      funny: (t) => [`${t}, если честно`, `${t}. Да, серьёзно. Смотрите дальше.`],
      serious: (t) => [t, `${t}: только главное.`],
    },
    items: {
      offer: (x) => [x, `${x}. Успейте!`],
      time: (x) => [x, `Только ${lower(x)}.`],
      audience: (x) => [x, `Специально ${lower(x)}.`],
      question: (x) => [asked(x), `${asked(x)} Сейчас расскажем.`],
      point: (x) => [x, `${x}.`],
    },
    angles: [
      (t) => [`${t}: главное`, `${t}: главное — начать с малого.`],
      (t) => [`${t}: один совет`, `${t}: один совет — понемногу, но каждый день.`],
      (t) => [`${t}: частые ошибки`, `${t}: главная ошибка — спешка.`],
      (t) => [`${t}: на практике`, `${t}: попробуйте один раз и сравните.`],
      (t) => [`${t}: почему это важно`, `${t}: это меняет ваш день.`],
      (t) => [`${t}: коротко`, `${t}: всё самое важное за минуту.`],
    ],
    promoAngles: [
      (t) => [`${t}: ждём вас`, `${t}: ждём вас в гости.`],
      (t) => [`${t}: попробуйте сами`, `${t}: попробуйте сами и расскажите друзьям.`],
      (t) => [`${t}: для вас`, `${t}: всё для вас, каждый день.`],
      (t) => [`${t}: до встречи`, `${t}: до скорой встречи.`],
    ],
    filler: ['Поделитесь', 'Отправьте другу, которому это нужно.', 'лампочка, идея'],
    placement: (p, _t, d) => [p, d ? `${p}: ${d}` : `${p} поможет в этом.`],
    cta: (c) => [c ?? 'Подписывайтесь', c ? `${c}.` : 'Подписывайтесь, будет ещё.'],
    note: (n) => [shorten(n, 60), `${n.replace(/[.!?]*$/, '')}.`],
    visuals: { hook: (t) => `${t}, крупный план`, placement: (p) => `${p}, покупки`, note: 'заметка, блокнот', cta: 'колокольчик' },
    title: (t, n) => `${t}: ${n} главных мысли`,
    description: (t, c) => `${t}: всё главное в одном коротком видео. ${c}.`,
    tags: ['#shorts', '#reels', '#советы'],
  },
};

/** A phrase inside a sentence: its first letter lowered unless the word is a name or an acronym (two capitals). */
const lower = (s: string) =>
  /^\p{Lu}\p{Ll}/u.test(s) && (!/^\p{Lu}\p{Ll}*\s+\p{Lu}/u.test(s) || FUNCTION_WORD.test(s)) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
/** A first word that is never a name ("On Fridays", "По утрам"), whatever follows it. */
const FUNCTION_WORD = /^(on|in|at|every|each|for|the|a|an|by|до|по|в|на|для|каждый|каждое|каждую)\s/i;
/** A question as asked: with its question mark. */
const asked = (s: string) => (/[?!.]$/.test(s) ? s : `${s}?`);

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

/** The subject as one tag when it is a short name ("Green tea" -> #greentea), then the content's longest words. */
function hashtags(subject: string, named: string[], lang: Lang, product?: string): string[] {
  const name = subject.replace(/^(про|о|об|для|на тему|about|for|how|why)\s+/i, '');
  const compact = name.split(/\s+/).length <= 3 ? name.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase() : '';
  const words = [subject, ...named]
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 3 && !STOPWORDS.has(w))
    .sort((a, b) => b.length - a.length)
    .slice(0, 3);
  const tags = [
    ...(compact.length > 2 && compact.length <= 24 ? [`#${compact}`] : []),
    ...words.map((w) => `#${w}`),
    ...(product ? [`#${product.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase()}`] : []),
    ...BANKS[lang].tags,
  ];
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

/** The most scenes a video of `seconds` holds: one every 3.5 seconds, 4 to 8. */
const maxScenes = (seconds: number) => Math.min(8, Math.max(4, Math.floor(seconds / 3.5)));

export function writeScript(req: WriteRequest): Script {
  const { params, regen } = req;
  const lang = languageOf(params);
  const bank = BANKS[lang];
  const tone = (regen && toneFromNote(regen.note)) || params.tone;
  const content = contentOf(params.topic);
  const subject = shorten(content.subject, 48);
  const seed = seedOf(params.topic, regen?.note ?? '', regen ? JSON.stringify(regen.previous.scenes) : '');

  const v = bank.visuals;
  const fixed: [string, string, string][] = [];
  if (params.placement) fixed.push([...bank.placement(params.placement.product, subject, params.placement.description), v.placement(params.placement.product)]);
  if (regen) fixed.push([...bank.note(regen.note), v.note]);
  // One scene a thing the topic names, as many as the video holds; the subject's angles fill a video of more scenes.
  const base = Math.min(8, Math.max(4, Math.round(params.duration_seconds / 6)));
  const n = Math.min(maxScenes(params.duration_seconds), Math.max(base, 2 + fixed.length + content.items.length));
  const bodyCount = Math.max(1, n - 2 - fixed.length);
  const body: [string, string, string][] = content.items.slice(0, bodyCount).map((item) => {
    const text = shorten(item.text, 60);
    return [...bank.items[item.kind](text), item.text];
  });
  // A subject of one word or two can fill the rest with angles; past its angles, one filler and no more.
  const angles = content.promo ? bank.promoAngles : bank.angles;
  for (let i = 0; body.length < bodyCount; i++) {
    const angle = i < angles.length ? angles[(seed + i) % angles.length]!(subject) : undefined;
    if (angle) body.push([...angle, subject]);
    else body.push(bank.filler);
  }
  // The tone beyond the hook: an energetic video says its points with an exclamation mark.
  if (tone === 'energetic') for (const line of body) line[1] = line[1].replace(/\.$/, '!');
  const lines: [string, string, string][] = [[...bank.hook[tone](subject), v.hook(subject)], ...body, ...fixed, [...bank.cta(params.cta), v.cta]];
  const scenes: Omit<Scene, 'seconds'>[] = lines.map(([caption, voiceover, visual]) => ({
    caption,
    voiceover: params.voice === 'none' ? '' : voiceover,
    visual,
  }));
  const cta = bank.cta(params.cta)[0];
  const named = content.items.map((item) => item.text);
  const pack: PostingPack = {
    title: shorten(named.length ? `${subject}: ${lower(named[0]!)}` : bank.title(subject, bodyCount + fixed.length), 100),
    description: shorten(named.length ? `${subject}. ${named.join('. ')}. ${cta}.` : bank.description(subject, cta), 300),
    hashtags: hashtags(subject, named, lang, params.placement?.product),
  };
  return { language: lang, scenes: allotSeconds(scenes, params.duration_seconds), pack };
}

export class EmbeddedWriter implements Writer {
  async write(req: WriteRequest): Promise<Script> {
    return writeScript(req);
  }
}
