/**
 * Paid extras only on an explicit ask (issue 37), through the API on the local stack: POST /videos:quick of a prompt
 * that names a song, a voice, AI images or a product only as what the video is about costs the base price (the
 * creation's answer, the ledger, the balance), and an explicit ask is charged its extra. Then a spot check of 20
 * prompts outside the unit set (test/unit/extras-labelled.ts). Image and speech providers are configured (never
 * called: executions are held), so an asked AI visual or cloned voice is priced rather than refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PRICES, type Extra } from '../../functions/core/pricing.ts';
import { liveBalance, useStack } from '../support/stack.ts';

const t = useStack({
  LOCAL_SFN_HOLD: '1',
  GENERATOR_IMAGES_URL: 'http://127.0.0.1:9/v1',
  GENERATOR_SPEECH_URL: 'http://127.0.0.1:9/v1',
  GENERATOR_SPEECH_CLONE_VOICE: 'voice_test',
});

const BASE = DEFAULT_PRICES.base;
const priced = (extras: readonly Extra[]) => BASE + extras.reduce((sum, e) => sum + DEFAULT_PRICES[e], 0);
const BALANCE = 1000;

/** One quick order of a new user's: the creation's answer and the order as it reads back. */
async function quick(prompt: string) {
  const { apiKey } = await t.user({ balance: BALANCE });
  const res = await t.api('POST', '/videos:quick', { key: apiKey, body: { prompt } });
  assert.equal(res.status, 201, `${prompt}: ${res.text}`);
  const order = (await t.api('GET', `/videos/${res.body.id}`, { key: apiKey })).body;
  return { apiKey, cost: res.body.cost as number, order };
}

describe('POST /videos:quick charges a paid extra only when the prompt asks for it', () => {
  it('charges the base price for a song, a voice, AI images or a product that is only the subject, and keeps it in the topic', async () => {
    for (const [prompt, keeps] of [
      ['How to record my voice at home', 'voice'],
      ['История песни Yesterday', 'песни'],
      ['A video about AI images', 'AI images'],
      ['Как отличить сгенерированные нейросетью изображения от фотографий', 'изображения'],
      ['How product placement works in movies', 'product placement'],
      ['Что не так с моим голосом после простуды', 'голосом'],
    ] as const) {
      const { apiKey, cost, order } = await quick(prompt);
      assert.equal(cost, BASE, prompt);
      assert.equal(order.cost, BASE, prompt);
      assert.deepEqual(
        { music: order.params.music, voice: order.params.voice, ai_visual: order.params.ai_visual, placement: order.params.placement },
        { music: 'stock', voice: 'standard', ai_visual: false, placement: undefined },
        prompt,
      );
      assert.ok(order.params.topic.toLowerCase().includes(keeps.toLowerCase()), `${prompt}: the topic "${order.params.topic}" lost "${keeps}"`);
      assert.deepEqual((await t.api('GET', '/balance', { key: apiKey })).body, liveBalance({ balance: BALANCE - BASE, trial_videos_left: 0 }, BASE));
      const [entry] = (await t.api('GET', '/balance/transactions?limit=1', { key: apiKey })).body.data;
      assert.deepEqual(
        { kind: entry.kind, amount: entry.amount, balance_after: entry.balance_after, order_id: entry.order_id },
        {
          kind: 'charge',
          amount: -BASE,
          balance_after: BALANCE - BASE,
          order_id: order.id,
        },
      );
    }
  });

  it('charges an explicit ask its extra, also in a prompt whose subject names another', async () => {
    for (const [prompt, extras, keeps] of [
      ['How to record my voice at home, with a song', ['song'], 'voice'],
      ['The history of the song Yesterday, narrated in my voice', ['voice_clone'], 'song'],
      ['A video about AI images, illustrated with AI-generated visuals', ['ai_visual'], 'AI images'],
      ['Видео о нашей пекарне с оригинальной песней и моим голосом', ['song', 'voice_clone'], 'пекарне'],
    ] as const) {
      const { apiKey, cost, order } = await quick(prompt);
      assert.equal(cost, priced(extras), prompt);
      assert.ok(order.params.topic.toLowerCase().includes(keeps.toLowerCase()), `${prompt}: the topic "${order.params.topic}" lost "${keeps}"`);
      assert.equal((await t.api('GET', '/balance', { key: apiKey })).body.balance, BALANCE - cost, prompt);
    }
  });
});

/** The spot check: prompts written apart from the unit set, each with the extras it asks for (most ask for none). */
const SPOT_CHECK: [string, Extra[]][] = [
  ['How singers protect their voice on tour', []],
  ['Voice acting tips for beginners', []],
  ['Why do songs get stuck in your head?', []],
  ['The best AI image generators compared', []],
  ['Can you copyright AI-generated art?', []],
  ['Product placement in music videos: does it work?', []],
  ['A day in the life of a jingle composer', []],
  ['How to lose my fear of singing a song in public', []],
  ['Как ухаживать за голосом певцу', []],
  ['Самые известные песни о войне', []],
  ['Как ИИ-картинки меняют рекламу', []],
  ['Почему мой голос садится к вечеру', []],
  ['Как работает генерация изображений нейросетью', []],
  ['Конкурс песни Евровидение: история', []],
  ['Video about hiking boots with a song', ['song']],
  ['Our new menu, narrated in my voice', ['voice_clone']],
  ['Why songs make us cry, with AI-generated images', ['ai_visual']],
  ['Ролик про нашу йога-студию с песней', ['song']],
  ['Видео о ремонте обуви моим голосом', ['voice_clone']],
  ['Как нейросети пишут песни, с ИИ-картинками', ['ai_visual']],
];

describe('a spot check of the quick route: 20 prompts outside the unit set', () => {
  it('charges each the base price plus exactly the extras it asks for, none unrequested', async (t) => {
    assert.equal(SPOT_CHECK.length, 20);
    const rows: string[] = [];
    const wrong: string[] = [];
    for (const [prompt, extras] of SPOT_CHECK) {
      const { cost } = await quick(prompt);
      rows.push(`${cost} (base ${BASE}${extras.length ? ` + ${extras.join(' + ')}` : ''}): ${prompt}`);
      if (cost !== priced(extras)) wrong.push(`${prompt}: charged ${cost}, expected ${priced(extras)}`);
    }
    t.diagnostic(rows.join('\n'));
    assert.deepEqual(wrong, []);
  });
});
