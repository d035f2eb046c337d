/**
 * What a customer's topic says, for the embedded writer: its subject, and the things it names in the order written
 * (an offer, a time, an audience, a question, steps or points). Rules for Russian and English kept as data, no model:
 * the writer makes each scene carry one of them, so that a video shows what was asked rather than a fixed bank of
 * tips. Everything is taken from the customer's own words; nothing is invented.
 */

export type ItemKind = 'offer' | 'time' | 'audience' | 'question' | 'point';

export interface ContentItem {
  kind: ItemKind;
  /** The customer's words for it, trimmed, with a capital first letter. */
  text: string;
}

export interface Content {
  /** What the video is about: the topic's first phrase, without an imperative in front ("Explain", "Расскажи"). */
  subject: string;
  /** The topic sells something (it names an offer, a time or an audience): a promotion rather than a how-to. */
  promo: boolean;
  /** The rest of what the topic names, in its order; none repeats the subject. */
  items: ContentItem[];
}

/** A request in front of what it asks for: cut, its object kept ("Explain how X works" is about "How X works"). */
const IMPERATIVE =
  /^(please\s+)?(explain|show|tell( me| us)?|describe|present|introduce|teach( me| us)?|promo(tion)?|advert\w*|ad)(\s+(for|of|about|on))?\s+|^(пожалуйста\s+)?(расскажи(те)?|объясни(те)?|покажи(те)?|опиши(те)?|представь(те)?|научи(те)?|реклама)\s+/i;

const KINDS: [ItemKind, RegExp][] = [
  // A discount, a price, something free or N for M: the customer's offer.
  [
    'offer',
    /\d+\s*%|%\s*\d+|скидк|акци|бесплатн|подар|дешевл|распродаж|\d+\s*(₽|руб|р\.|\$|€|usd|eur)|[$€]\s*\d|\bdiscount|\bsale\b|\boff\b|\bfree\b|\bdeal\b|\bprice|\bcoupon|\bpromo\s*code|\b\d+\s+for\s+\d+\b|\d+\s*\+\s*\d+|\d+\s+по\s+цене\s+\d+|half[- ]price|bogo/i,
  ],
  // When: mornings, weekends, a weekday, an hour.
  [
    'time',
    /^(по\s+)?(утрам|вечерам|выходным|будням|понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям)(?=[\s,.;!?]|$)|^(каждое|каждый|каждую)\s|^(утром|вечером|днём|днем|ночью)(?=[\s,.;!?]|$)|^(every|each|on)\s+(morning|evening|day|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|^(in the )?(mornings?|evenings?|weekends?)\b|^(until|till|before|after|from)\s+\d/i,
  ],
  // For whom.
  [
    'audience',
    /^(для|for)\s+(детей|новичков|начинающих|студентов|школьников|мам|родителей|пенсионеров|всей семьи|семьи|женщин|мужчин|beginners|kids|children|students|parents|families|moms|dads|seniors|women|men|everyone|busy)/i,
  ],
  // (\b knows only Latin letters: a Russian word ends at a space, a mark or the end.)
  ['question', /\?$|^(как|почему|зачем|что|когда|где|сколько|чем)(?=[\s,.;!?]|$)|^(how|why|what|when|where|which|who)\b/i],
];

/** A topic that advertises, whatever it names: "реклама", "promo", an opening, a shop's or a place's words. */
const PROMO =
  /реклам|промо|открыт|магазин|кафе|кофейн|пекарн|ресторан|салон|студи|клуб|отель|\bpromo|\bad\b|advert|opening|\bshop|\bstore|\bcafe|\bbakery|restaurant|salon|studio|\bhotel|\bgym\b/i;

/** Words that join two things of one phrase; a list of steps is split at them. */
const JOINS = /\s+(?:и|а также|and|then|plus)\s+/i;
/** A question's lead shared by the steps it joins: "как часто кормить и расчесывать" asks "как часто" of both. */
const SHARED_LEAD = /^(как часто|как правильно|как быстро|как|сколько раз|когда|почему|зачем|how often|how much|how to|how|when|why)\s+/i;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const trimmed = (s: string) => s.replace(/^[\s,.;:!\-–—]+|[\s,.;:!\-–—]+$/g, '').replace(/\s+/g, ' ');

function kindOf(text: string): ItemKind {
  return KINDS.find(([, re]) => re.test(text))?.[0] ?? 'point';
}

/**
 * A phrase as its items: steps joined by "и"/"and" apart (with a question's lead given to each), an offer or a time
 * at its end apart from what it is about ("скидка 20% на капучино по утрам": the offer, then "по утрам").
 */
function itemsOf(phrase: string): ContentItem[] {
  const lead = SHARED_LEAD.exec(phrase);
  const parts = phrase.split(JOINS).map(trimmed).filter(Boolean);
  // Only verbs or short phrases are steps: "солнечные панели и батареи" stays one thing.
  const steps = parts.length > 1 && parts.every((p) => p.split(' ').length <= 4) && lead ? parts : [phrase];
  return steps.map((step, i) => {
    const text = i > 0 && lead && !SHARED_LEAD.test(step) ? `${lead[0]}${step}` : step;
    return { kind: kindOf(text), text: capital(trimmed(text)) };
  });
}

/** The topic's subject and items. */
export function contentOf(topic: string): Content {
  const clean = topic.replace(IMPERATIVE, '').trim() || topic.trim();
  // Phrases: at punctuation that ends a thought (a comma, a semicolon, a colon, a dash, a full stop, a mark).
  const phrases = clean
    .split(/\s*[,;:.!?]\s+|\s+[—–-]\s+|[;!]\s*|\?\s*/)
    .map(trimmed)
    .filter(Boolean);
  const [first = clean, ...rest] = phrases;
  const items = rest.flatMap(itemsOf);
  // A time said at the end of an offer's phrase is kept with it (the offer's condition) and also said on its own.
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind !== 'offer') continue;
    const when = /\s((по\s+(утрам|вечерам|выходным|будням|пятницам|субботам|воскресеньям))|(every|on|in the)\s+\S+s?)$/i.exec(item.text);
    if (when && !items.some((o) => o.kind === 'time')) items.splice(i + 1, 0, { kind: 'time', text: capital(trimmed(when[0])) });
  }
  const promo = items.some((i) => i.kind !== 'point' && i.kind !== 'question') || PROMO.test(topic);
  return { subject: capital(trimmed(first)), promo, items };
}
