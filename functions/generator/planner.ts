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
const NO_MUSIC = /\bno music\b|\bwithout music\b|без музыки/i;
const NO_VOICE = /\b(no|without) (voice-?over|narration|narrator|voice)\b|без озвучки|без голоса|без диктора/i;

/*
 * Paid extras: only an ask makes one ("with a song", "in my voice", "с ИИ-картинками", "добавь песню"), never the
 * noun alone, which is as often what the video is about ("How to record my voice at home", "История песни
 * Yesterday", "A video about AI images"): customers pay for what they asked for. An ask is a word that asks (with,
 * use, add, с, добавь, the instrumental "моим голосом") or an item of its own between commas. Where unsure, no extra:
 * a missed ask costs nothing and POST /videos sets it; a wrong one charges for what nobody asked for.
 */
/** Where take() cut a phrase out: a clause boundary for the asks after it; a space again in the topic. */
const CUT = '¦';
/** The start of a clause: after a mark, a dash or a cut phrase, an "and" allowed ("with a song and AI visuals"). */
const CLAUSE = `(?<=(?:[,.;!?+(${CUT}]|\\s[-–—])\\s*)(?:(?:and|&|plus|и)\\s+)?`;
/** The end of a clause: the phrase is an item of its own ("Gardening video, AI visuals, 30 s"). */
const END = `(?=\\s*(?:[,.;!?)${CUT}\\-–—]|$))`;
/** "with", but not where it is the topic's own ("experiments with AI images", "making money with AI art"). */
const WITH = '(?<!\\b(?:wrong|money|problems?|troubles?|issues?|experiment\\w*|play\\w*|work\\w*|deal\\w*|done)\\s)\\bwith';
/** "с", but not after a verb or a noun whose "с" it is ("выступить с песней", "эксперименты с картинками"). */
const S = '(?<!(?:^|\\s)(?:\\S*(?<!ос|ес)(?:ть|ться)|\\S*(?:чь|йти)|проблем\\S*|эксперимент\\S*|работ\\S*)\\s)(?<=^|\\s)со?';
/** English verbs that ask: an imperative ("use", not "how to use") or a phrase's own "using". */
const USE =
  '(?<!\\bto\\s)\\b(?:use|add|include)|(?<!\\b(?:for|of|about|on|by|to|stop|keep|start|when|while|without|after|before)\\s)\\b(?:using|including|plus|featuring)';
/** Words between an ask and its noun: "with an original song", "use some AI images", "с весёлой песней". */
const EN_WORDS = '(?:(?:a|an|the|some|my|our|own|original|custom|catchy|short|fun|upbeat|cheerful|happy|little|simple|background|new)\\s+){0,3}';
const RU_WORDS = '(?:\\S+(?:ой|ей|ую|юю|ая|яя|ые|ие|ыми|ими)\\s+){0,2}';
/**
 * A question or a how-to is the topic itself: an ask inside its clause is its words ("How to record a song with my
 * voice", "Как выступить с песней"); one after a comma asks ("How to record my voice at home, with a song").
 */
const QUESTION =
  'how|why|what|when|where|which|who|whose|does|did|is|are|should|как|почему|зачем|что|чем|когда|где|как[а-яё]+|сколько|правда ли|можно ли|стоит ли';
const IN_QUESTION = new RegExp(`(?:^|[,.;!?:—${CUT}])\\s*(?:${QUESTION})(?![a-zа-яё])[^,.;!?:—${CUT}]*$`, 'i');
const ask = (...alternatives: string[]) => new RegExp(alternatives.join('|'), 'gi');

const SONG_NOUN = '(?:song|jingle)\\b';
/** One song: "с песнями и танцами" is what a party has. */
const RU_SONG_NOUN = '(?:песн(?:ей|ею|ю|я)|песенк(?:ой|ою|у|а))(?![а-яё])';
const SONG = ask(
  `(?:${WITH}|${USE}|\\bset to)\\s+${EN_WORDS}${SONG_NOUN}(?:\\s+(?:at the end|in the background))?`,
  `${CLAUSE}${EN_WORDS}${SONG_NOUN}(?:\\s+(?:at the end|in the background))?${END}`,
  `${S}\\s+${RU_WORDS}${RU_SONG_NOUN}`,
  `(?<=^|\\s)(?:добавь|включи|вставь)(?:те)?\\s+(?:\\S+\\s+){0,2}?${RU_WORDS}${RU_SONG_NOUN}`,
  `${CLAUSE}${RU_WORDS}${RU_SONG_NOUN}(?:\\s+(?:в конце|на фоне))?${END}`,
);
/** "in my voice", its verb with it ("narrated in my voice", "озвучь моим голосом"). */
const EN_NARRATED = '(?:(?:narrated|voiced|read|spoken|dubbed|narrate it|voice it|read it)\\s+)?';
const RU_NARRATED = '(?:(?:озвуч|прочит|начит)[а-яё]*\\s+)?';
/** What is in a voice ("the confidence in my voice") is a subject, not a way to speak. */
const IN_VOICE = '(?<!\\b(?:confidence|emotions?|pride|power|strength|fear|anxiety|tension|shak\\w*|trembl\\w*|crack\\w*|changes?|pain|hoarseness)\\s)\\bin';
const MY_VOICE = 'my (?:own |real )?(?:cloned )?voice(?: clone)?\\b';
const VOICE_CLONE = ask(
  `${EN_NARRATED}${IN_VOICE} (?:${MY_VOICE}|a clone of my voice\\b)`,
  `${EN_NARRATED}(?:${WITH}|${USE})\\s+(?:${MY_VOICE}|(?:a |the )?(?:clone of my voice|voice clon(?:e|ing))\\b)`,
  `\\b(?:narrated|voiced|read|dubbed) by me\\b`,
  `(?:^|${CLAUSE}|\\bplease\\s+)clone my (?:own )?voice\\b`,
  // The instrumental asks by itself ("видео моим голосом"); after "с" only where "с" asks ("что не так с моим голосом").
  `${RU_NARRATED}(?<!(?:^|\\s)со?\\s)(?<=^|\\s)моим\\s+(?:[а-яё]+ым\\s+)?голосом`,
  `${RU_NARRATED}${S}\\s+(?:моим\\s+(?:[а-яё]+ым\\s+)?голосом|клоном\\s+(?:моего\\s+)?голоса)`,
  `(?<=^|\\s)с?клонируй(?:те)?\\s+мой\\s+голос`,
);
const AI_NOUN =
  '(?:ai|a\\.i\\.)[- ]?(?:generated[- ]|made[- ])?(?:visuals?|images?|imagery|pictures?|art|artwork|illustrations?|graphics)\\b' +
  '|generated (?:visuals?|images?|pictures?|illustrations?)\\b' +
  '|(?:visuals?|images?|pictures?|illustrations?|art) (?:generated|made|drawn|created) (?:by|with) (?:an? )?(?:ai|neural network)\\b';
const RU_AI_NOUN =
  '(?:ии|ai)[- ]?(?:визуал|картин|изображени|иллюстраци|арт|графи)[а-яё]*' +
  '|нейросетев[а-яё]*\\s+(?:картин|изображени|визуал|иллюстраци|арт|графи)[а-яё]*' +
  '|(?:сгенерированн|нарисованн|созданн)[а-яё]*\\s+(?:нейросетью|нейросетями|ии)(?:\\s+(?:картин|изображени|иллюстраци)[а-яё]*)?' +
  '|(?:картин|изображени|иллюстраци|визуал)[а-яё]*,?\\s+(?:от\\s+нейросет[а-яё]*|(?:сгенерированн|нарисованн|созданн)[а-яё]*\\s+(?:нейросетью|нейросетями|ии))';
const AI_VISUAL = ask(
  `(?:${WITH}|${USE})\\s+${EN_WORDS}(?:${AI_NOUN})`,
  `${CLAUSE}${EN_WORDS}(?:${AI_NOUN})${END}`,
  `${S}\\s+(?:${RU_AI_NOUN})`,
  `(?<=^|\\s)(?:используй|добавь|возьми|сгенерируй)(?:те)?\\s+(?:${RU_AI_NOUN})`,
  `${CLAUSE}(?:${RU_AI_NOUN})${END}`,
);
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
/** A product to show, named after the ask ("featuring my product X", "с моим товаром «X»"); "реклама товара" is a subject. */
const PLACEMENT = new RegExp(
  `(?:(?:${WITH}|\\bfeaturing|\\bshowing|\\bshow)\\s+my product|\\bproduct placement\\s*[:-]|${S}\\s+моим\\s+(?:продуктом|товаром)|реклам\\S*\\s+моего\\s+(?:продукта|товара)|покажи(?:те)?\\s+мой\\s+(?:продукт|товар))` +
    '\\s*[:-]?\\s*["«]?([^,.;!?"»\\n]{2,80})["»]?',
  'gi',
);
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
  const cut = (m: RegExpExecArray) => {
    rest = `${rest.slice(0, m.index)} ${CUT} ${rest.slice(m.index + m[0].length)}`;
    return m;
  };
  const take = (re: RegExp): RegExpExecArray | null => {
    const m = re.exec(rest);
    return m && cut(m);
  };
  /** A paid extra's first ask outside a question's clause. */
  const takeAsk = (re: RegExp): RegExpExecArray | null => {
    for (const m of rest.matchAll(re)) if (!IN_QUESTION.test(rest.slice(0, m.index))) return cut(m);
    return null;
  };

  const placement = takeAsk(PLACEMENT);
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
  const song = take(NO_SONG) ? null : takeAsk(SONG);
  const noMusic = take(NO_MUSIC);
  const clone = takeAsk(VOICE_CLONE);
  const noVoice = take(NO_VOICE);
  const ai = takeAsk(AI_VISUAL);
  const noCaptions = take(NO_CAPTIONS);
  const tone = TONES.find(([, re]) => re.test(prompt))?.[0] ?? 'neutral';

  let topic = rest.replaceAll(CUT, ' ');
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
