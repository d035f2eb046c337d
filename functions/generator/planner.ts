/**
 * The embedded planner: a master prompt (Russian or English) to the parameters of POST /videos. Deterministic: the
 * same prompt always gives the same parameters, and so the same price. It runs inside the creation request because
 * the price depends on the extras the prompt asks for.
 */
import { createVideoBody, type OrderParams } from '../contract/orders.ts';
import { detectLanguage } from '../core/language.ts';

const TONES: [OrderParams['tone'], RegExp][] = [
  ['funny', /\b(funny|humou?r\w*|jokes?|hilarious|playful|witty|silly|fun)\b|смешн|юмор|прикольн|шутк|весел|весёл|забавн/i],
  ['energetic', /\b(energetic|dynamic|hype|upbeat|exciting|fast-paced|punchy|motivational|motivating)\b|динамичн|энергичн|бодр|драйв|мотивир|зажигательн/i],
  ['calm', /\b(calm|relax\w*|soft|soothing|chill|peaceful|gentle|cozy)\b|спокойн|расслаб|умиротвор|медитативн|нежн/i],
  ['serious', /\b(serious|formal|expert|professional|business)\b|серь[её]зн|строг|экспертн|делов|официальн/i],
];

/** Phrases that ask for something: matched, used, and cut out of the topic. */
const NO_SONG = /\bno song\b|\bwithout (a )?song\b|без песни/i;
const SONG = /\b(with (a |an )?(original )?(song|jingle))\b|\b(song|jingle)\b|с песн\S*|песн\S*/i;
const NO_MUSIC = /\bno music\b|\bwithout music\b|без музыки/i;
const VOICE_CLONE = /\b(in )?my (own )?voice\b|\bclone my voice\b|\bvoice clon\w*|(и |озвучь |озвучка )?мо(им|ем|ём) голос\S*|клон\S* голос\S*/i;
const NO_VOICE = /\b(no|without) (voice-?over|narration|narrator|voice)\b|без озвучки|без голоса|без диктора/i;
const AI_VISUAL =
  /\bai[- ]?(generated\s+)?(visuals?|images?|pictures?|art)\b|\bgenerated (visuals?|images?)\b|ии[- ]?(визуал\S*|картинк\S*|изображен\S*)|нейросетев\S*\s+(картинк|изображен|визуал)\S*|сгенерированн\S*\s+нейросетью(\s+(картинк|изображен)\S*)?|(картинк|изображен)\S*\s+от\s+нейросет\S*/i;
const NO_CAPTIONS = /\b(no|without) (captions|subtitles)\b|без субтитров|без подписей/i;
/** An explicit language for the video, whatever the prompt is written in. */
const LANGUAGE: ['ru' | 'en', RegExp][] = [
  ['en', /\bin english\b|\benglish language\b|на английском( языке)?|английск\S* язык\S*/i],
  ['ru', /\bin russian\b|\brussian language\b|на русском( языке)?|русск\S* язык\S*|по-русски/i],
];
/** Durations as people write them: "20 секунд", "20-секундное", "полминуты", "half a minute", "a minute", "1 мин". */
const NUMBER_WORDS: Record<string, number> = {
  десять: 10,
  десяти: 10,
  пятнадцать: 15,
  пятнадцати: 15,
  двадцать: 20,
  двадцати: 20,
  тридцать: 30,
  тридцати: 30,
  сорок: 40,
  сорока: 40,
  пятьдесят: 50,
  пятидесяти: 50,
  шестьдесят: 60,
  шестидесяти: 60,
  ten: 10,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
};
const NUMBER = `(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})`;
/** The preposition a duration comes with ("in 20 seconds", "за 20 секунд"): cut with it, so none is left behind. */
const LEAD = '(?:(?:\\b(?:in|for|within|of)|(?:^|(?<=\\s))(?:за|на|в))\\s+)?';
const DURATIONS: [RegExp, (m: RegExpExecArray) => number][] = [
  [/полторы минуты|\b(one and a half minutes|a minute and a half)\b/i, () => 90],
  [/полминуты|пол минуты|\bhalf (a |of a )?minute\b|\bhalf-minute\b/i, () => 30],
  [new RegExp(`${LEAD}${NUMBER}\\s*-?\\s*(s\\b|sec\\S*|seconds?\\b|с(?=[\\s,.;!?]|$)|сек\\S*)`, 'i'), (m) => count(m[1]!)],
  [/(пятнадцати|двадцати|тридцати|сорока|десяти)секундн\S*/i, (m) => count(m[1]!)],
  [new RegExp(`${LEAD}${NUMBER}\\s*-?\\s*(min\\S*|minutes?\\b|мин\\S*)`, 'i'), (m) => count(m[1]!) * 60],
  // (\b knows only Latin letters: Russian words end at a space, a mark or the end.)
  [/\b(a|one) minute\b|(на |за |в )?(одну )?минут[уа](?=[\s,.;!?]|$)/i, () => 60],
];
const count = (n: string) => NUMBER_WORDS[n.toLowerCase()] ?? Number(n);
/** The longest length a prompt may ask of its video (then clamped to 60 s); a longer one is the topic's. */
const MAX_ASKED_SECONDS = 300;
const PLACEMENT =
  /(?:with my product|featuring my product|product placement(?: of)?|с (?:моим )?(?:продуктом|товаром)|реклам\S* (?:моего )?(?:продукта|товара))\s*[:-]?\s*["«]?([^,.;!?"»\n]{2,80})["»]?/i;
const CTA = /(?:call to action|cta|призыв(?: к действию)?)\s*[:-]\s*["«]?([^.;!?"»\n]{2,80})["»]?/i;

/** Words that ask for a video rather than say what it is about; cut from the topic. */
const FILLERS = [
  /\bmake it (fun|funny)\b/gi,
  /\b(please\s+)?(make|create|generate|render|shoot)\b( me)?/gi,
  /\b(an?\s+)?(short|quick|vertical|tiktok|youtube|promo|promotional|advertising|ad)?\s*(video|clip|reel|short)s?\s*(about|on|of|for)?\b/gi,
  /(сделай(те)?|создай(те)?|сними(те)?|нужно|нужен)\s*/gi,
  // With the adjective that says what kind of video it is ("рекламный ролик", "короткое видео"); a preposition after
  // it stays for now (obliqueFree, below, decides).
  /((коротк|рекламн|промо|вертикальн)\S*\s+)?(видео|ролик\S*|видос\S*|клип\S*)(?=\s|$)/gi,
  /^\s*(о|про)?\s*том,?\s*/i,
  // A tone word, with the word that names it a tone ("calm tone", "in a funny style", "в спокойном тоне").
  /(\bin\s+an?\s+)?\b(funny|humorous|hilarious|playful|witty|silly|energetic|dynamic|hype|upbeat|exciting|fast-paced|punchy|motivational|motivating|calm|relaxing|soothing|chill|peaceful|gentle|cozy|serious|formal|professional)\b(\s+(tone|style|mood|way|vibe)\b)?/gi,
  /((^|(?<=\s))в\s+)?(смешн|весел|весёл|забавн|прикольн|энергичн|динамичн|бодр|драйвов|мотивирующ|зажигательн|спокойн|расслабляющ|умиротворяющ|медитативн|серь[её]зн|строг|делов|официальн)\S*(\s+(тоне|тон|стиле|стиль|ключе|настроении|настроение|духе)(?=[\s,.;!?]|$))?/gi,
];

/**
 * Whether a preposition in front of the topic can go: "про" before a word that reads as a nominative ("про утренний
 * кофе" is about "Утренний кофе"), never "о"/"об", whose word is always in another case ("о весне").
 */
function obliqueFree(prep: string, word: string): boolean {
  if (prep.toLowerCase() !== 'про') return false;
  // The accusative's own endings: a feminine -у/-ю ("йогу", "утреннюю"), an animate plural -ов/-ев/-ей ("котов").
  return !/(у|ю|ов|ев|ей)$/i.test(word.replace(/[,.;:!?]+$/, ''));
}

function clampDuration(seconds: number): number {
  return Math.min(60, Math.max(10, Math.round(seconds)));
}

export function planFromPrompt(prompt: string): OrderParams {
  let rest = prompt.trim();
  const take = (re: RegExp): RegExpExecArray | null => {
    const m = re.exec(rest);
    if (m) rest = `${rest.slice(0, m.index)} ${rest.slice(m.index + m[0].length)}`;
    return m;
  };

  const placement = take(PLACEMENT);
  const cta = take(CTA);
  let seconds = 30;
  for (const [re, value] of DURATIONS) {
    const m = re.exec(rest);
    // Past five minutes it is not the video's length but something the topic says ("замена масла за 30 минут").
    if (!m || value(m) > MAX_ASKED_SECONDS) continue;
    take(re);
    seconds = value(m);
    break;
  }
  const language = LANGUAGE.find(([, re]) => take(re))?.[0] ?? detectLanguage(prompt);
  const song = take(NO_SONG) ? null : take(SONG);
  const noMusic = take(NO_MUSIC);
  const clone = take(VOICE_CLONE);
  const noVoice = take(NO_VOICE);
  const ai = take(AI_VISUAL);
  const noCaptions = take(NO_CAPTIONS);
  const tone = TONES.find(([, re]) => re.test(prompt))?.[0] ?? 'neutral';

  let topic = rest;
  for (const re of FILLERS) topic = topic.replace(re, ' ');
  topic = topic
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/([,;:])(\s*[,;:])+/g, '$1')
    // Connectors the cut phrases left behind ("office with and", "видео с и").
    .replace(/(^|\s)(with|and|or|in|и|с|или)(?=\s+(with|and|or|и|с|или)(\s|$))/gi, '$1')
    .replace(/(\s+(with|and|or|in|without|и|с|или|без|на|в))+\s*$/i, '')
    .replace(/^[\s,.;:\-–—]+|[\s,;:\-–—]+$/g, '')
    .trim();
  // Prepositions and articles left in front by a cut phrase ("с про космос", "a office life"); "о", "об" and "про" stay
  // before a word whose form is not the nominative's, so the topic reads as written ("Про котов", "О весне").
  topic = topic.replace(/^((с|a|an)\s+|на\s+(?!тему))+/i, '');
  topic = topic.replace(/^(про|о|об)\s+(\S+)/i, (m, _prep: string, word: string) => (obliqueFree(_prep, word) ? word : m));
  if (!topic) topic = prompt.trim();
  topic = topic.charAt(0).toUpperCase() + topic.slice(1);
  return createVideoBody.parse({
    topic: topic.slice(0, 300),
    duration_seconds: clampDuration(seconds),
    language,
    tone,
    ...(placement?.[1] ? { placement: { product: placement[1].trim().slice(0, 80) } } : {}),
    ...(cta?.[1] ? { cta: cta[1].trim().slice(0, 80) } : {}),
    captions: !noCaptions,
    music: song ? 'song' : noMusic ? 'none' : 'stock',
    voice: clone ? 'clone' : noVoice ? 'none' : 'standard',
    ai_visual: Boolean(ai),
  });
}
