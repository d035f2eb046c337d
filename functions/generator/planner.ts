/**
 * The embedded planner: a master prompt (Russian or English) to the parameters of POST /videos. Deterministic: the
 * same prompt always gives the same parameters, and so the same price. It runs inside the creation request because
 * the price depends on the extras the prompt asks for.
 */
import { createVideoBody, type OrderParams } from '../contract/orders.ts';
import { detectLanguage } from '../core/language.ts';

const TONES: [OrderParams['tone'], RegExp][] = [
  ['funny', /\b(funny|humou?r|joke)|смешн|юмор|прикольн|шутк/i],
  ['energetic', /\b(energetic|dynamic|hype)|динамичн|энергичн|бодр/i],
  ['calm', /\b(calm|relax|soft)|спокойн|расслаб|умиротвор/i],
  ['serious', /\b(serious|formal|expert)|серь[её]зн|строг|экспертн/i],
];

/** Phrases that ask for something: matched, used, and cut out of the topic. */
const SONG = /\b(with (a |an )?(original )?song)\b|\bsong\b|с песн\S*|песн\S*/i;
const NO_MUSIC = /\bno music\b|\bwithout music\b|без музыки/i;
const VOICE_CLONE = /\b(in )?my (own )?voice\b|\bvoice clon\w*|мо(им|ем|ём) голос\S*|клон\S* голос\S*/i;
const NO_VOICE = /\bno voice-?over\b|\bwithout voice-?over\b|без озвучки|без голоса/i;
const AI_VISUAL = /\bai[- ]?(visuals?|images?|generated)\b|\bgenerated visuals?\b|ии[- ]?(визуал\S*|картинк\S*)|нейросет\S*/i;
const NO_CAPTIONS = /\bno captions\b|\bwithout captions\b|без субтитров|без подписей/i;
const DURATION = /(\d{1,3})\s*(s\b|sec\S*|seconds?|с(?=[\s,.;!?]|$)|сек\S*)|(\d{1,2})\s*(min\S*|мин\S*)/i;
const PLACEMENT =
  /(?:with my product|featuring my product|product placement(?: of)?|с (?:моим )?(?:продуктом|товаром)|реклам\S* (?:моего )?(?:продукта|товара)?)\s*[:-]?\s*["«]?([^,.;!?"»\n]{2,80})["»]?/i;
const CTA = /(?:call to action|cta|призыв(?: к действию)?)\s*[:-]\s*["«]?([^.;!?"»\n]{2,80})["»]?/i;

/** Words that ask for a video rather than say what it is about; cut from the topic. */
const FILLERS = [
  /\b(please\s+)?(make|create|generate|render|shoot)\b( me)?/gi,
  /\b(an?\s+)?(short|quick|vertical|tiktok|youtube)?\s*(video|clip|reel|short)s?\s*(about|on|of)?\b/gi,
  /(сделай(те)?|создай(те)?|сними(те)?|нужно|нужен)\s*/gi,
  /(коротк\S*\s+)?(видео|ролик\S*|видос\S*|клип\S*)\s*(про|о|об|на тему)?(?=\s|$)/gi,
  /^\s*(о|про)?\s*том,?\s*/i,
  /\b(funny|humorous|energetic|dynamic|calm|relaxing|serious|formal)\b/gi,
  /(смешн|весел|энергичн|динамичн|спокойн|серь[её]зн)\S*/gi,
];

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
  const duration = take(DURATION);
  const song = take(SONG);
  const noMusic = take(NO_MUSIC);
  const clone = take(VOICE_CLONE);
  const noVoice = take(NO_VOICE);
  const ai = take(AI_VISUAL);
  const noCaptions = take(NO_CAPTIONS);
  const tone = TONES.find(([, re]) => re.test(prompt))?.[0] ?? 'neutral';

  let seconds = 30;
  if (duration?.[1]) seconds = Number(duration[1]);
  else if (duration?.[3]) seconds = Number(duration[3]) * 60;

  let topic = rest;
  for (const re of FILLERS) topic = topic.replace(re, ' ');
  topic = topic
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/^[\s,.;:\-–—]+|[\s,;:\-–—]+$/g, '')
    .trim();
  if (!topic) topic = prompt.trim();
  topic = topic.charAt(0).toUpperCase() + topic.slice(1);
  return createVideoBody.parse({
    topic: topic.slice(0, 300),
    duration_seconds: clampDuration(seconds),
    language: detectLanguage(prompt),
    tone,
    ...(placement?.[1] ? { placement: { product: placement[1].trim().slice(0, 80) } } : {}),
    ...(cta?.[1] ? { cta: cta[1].trim().slice(0, 80) } : {}),
    captions: !noCaptions,
    music: song ? 'song' : noMusic ? 'none' : 'stock',
    voice: clone ? 'clone' : noVoice ? 'none' : 'standard',
    ai_visual: Boolean(ai),
  });
}
