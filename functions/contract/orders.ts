/**
 * Request and response schemas of the order routes. They validate requests and generate the OpenAPI document, so a
 * field is described exactly once: its `z.describe`/`z.meta` description is what the document, the generated JS types
 * and the Python client's docstrings show. `.check()` returns a new schema, so a shared schema (`cost`, an enum) keeps
 * its own description and a field gives its own meaning beside it.
 */
import * as z from 'zod/mini';
import { explainedEnum, text, timestamp } from './zod.ts';

/** An order id: `vid_` and a lower-case ULID, whose first character is at most 7 (its time has 48 bits). */
export const ORDER_ID_RE = /^vid_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

/** An asset id (POST /assets): `ast_` and a lower-case ULID. */
export const ASSET_ID_RE = /^ast_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
/** An asset id where an order names one (`placement.image`, `logo`). */
const assetRef = (description: string) => z.string().check(z.regex(ASSET_ID_RE, 'must be an asset id (ast_...)'), z.describe(description));
const LOGO = z.optional(
  assetRef(
    'An asset of this key (POST /assets), drawn small in the top left corner of every scene: your logo. Checked at creation (422 naming `logo` when it is not a usable picture of this key). Included in the price.',
  ),
);

/** The enums of the contract, each one named in the OpenAPI document (functions/http/openapi.ts). */
export const language = explainedEnum('The language of the voiceover, the captions and the posting pack.', {
  auto: 'the language the topic (or the prompt) is written in',
  ru: 'Russian',
  en: 'English',
});
export const tone = explainedEnum("The tone of the script, and the music's tempo and mode.", {
  neutral: 'plain and informative',
  energetic: 'upbeat and fast',
  calm: 'slow and soothing',
  funny: 'light, with a joke',
  serious: 'sober and factual',
});
export const music = explainedEnum('The soundtrack under the voice.', {
  stock: 'background music, included in the base price',
  song: 'an original song with a melody, a paid heavy extra (+70 doubloons)',
  none: 'no music',
});
export const voice = explainedEnum('The voiceover.', {
  standard: "the service's synthetic voice, included",
  clone: "the account holder's cloned voice, a paid heavy extra (+100 doubloons), refused with 422 while the deployment has no voice-cloning provider",
  none: 'no voiceover (captions and music only)',
});
export const billing = explainedEnum(
  'How the heavy extras (`music: song`, `voice: clone`, `ai_visual`) are paid for a user with a plan; without a plan both pay in doubloons.',
  {
    auto: "from the plan's monthly allowance of heavy videos while it lasts (then 409 `fair_use_exceeded`)",
    doubloons: 'at their full price in doubloons, leaving the allowance alone',
  },
);
export const orderStatus = explainedEnum('Where an order stands; `queued` and `running` count as active tasks (10 per key).', {
  queued: 'accepted and paid, waiting for a render slot',
  running: 'being planned, written or rendered (a director-mode order also waits for its slot in `running` after its review)',
  awaiting_review: 'director mode, the script waits for POST /videos/{id}/review',
  done: 'the video is ready (`result_url`, `metadata`)',
  error: 'failed, canceled or past its deadline, and refunded (`error`, `refund`)',
});
export type OrderStatus = z.infer<typeof orderStatus>;
export const channel = explainedEnum('Where an order came from. Bot orders are rendered first (after 3 bot orders in a row, the oldest waiting API order).', {
  api: 'this API, with an API key',
  bot: "the operators' chat bot, for the same account and balance",
});
export const cost = z
  .int()
  .check(
    z.gte(0),
    z.describe(
      'Doubloons (1 doubloon = 1 ruble): the base price (100) plus the paid extras, less what a trial video or the plan’s allowance pays. Never negative.',
    ),
  );
/** How an order id is described wherever one is shown. */
export const orderId = z
  .string()
  .check(z.describe("The order's id: `vid_` and 26 lower-case characters (a ULID, so ids sort by creation time). Otherwise opaque."));
export const etaSeconds = z
  .int()
  .check(
    z.gte(0),
    z.describe(
      'Estimated seconds until the order is done, from the render queue (the orders ahead of it and the measured render speed); it may drift at peak time.',
    ),
  );

/** Body of POST /videos. Every field but topic is optional with the documented default. */
export const createVideoBody = z.strictObject({
  topic: text(300).check(
    z.describe(
      'What the video is about, 1 to 300 characters (no control characters). The script is written from it, in its language when `language` is `auto`.',
    ),
  ),
  director_mode: z._default(
    z
      .boolean()
      .check(
        z.describe(
          'Script review: true stops the order at `awaiting_review` once its script is written, until POST /videos/{id}/review approves, edits or regenerates it (a key holds at most 20 such orders before their approval). Included in the price.',
        ),
      ),
    false,
  ),
  duration_seconds: z._default(z.int().check(z.gte(10), z.lte(60), z.describe('Length of the video in seconds, 10 to 60. Included in the base price.')), 30),
  language: z._default(language.check(z.describe('The language of the video (see Language).')), 'auto'),
  tone: z._default(tone.check(z.describe('The tone of the script and the music (see Tone).')), 'neutral'),
  placement: z.optional(
    z
      .strictObject({
        product: text(80).check(z.describe("The product's name, shown and spoken, 1 to 80 characters.")),
        description: z.optional(text(300).check(z.describe('What to say about the product, at most 300 characters.'))),
        image: z.optional(
          assetRef(
            "A picture of the product: an asset of this key (POST /assets), shown in the placement scene's picture region instead of a stock picture. Checked at creation (422 naming `placement.image` when it is not a usable picture of this key); no extra charge.",
          ),
        ),
      })
      .check(
        z.describe(
          'Product placement, a paid extra (+50 doubloons): the product is named in the script and shown on a badge in the video, with its own picture when `image` names one.',
        ),
      ),
  ),
  cta: z.optional(
    text(80).check(z.describe('A call to action, at most 80 characters, shown on the last scene as a button and spoken. Included in the base price.')),
  ),
  captions: z._default(z.boolean().check(z.describe('Captions on every scene. Included in the base price.')), true),
  music: z._default(music.check(z.describe('The soundtrack (see Music): `song` is a paid heavy extra (+70 doubloons).')), 'stock'),
  voice: z._default(
    voice.check(z.describe('The voiceover (see Voice): `clone` is a paid heavy extra (+100 doubloons), refused with 422 while no provider makes it.')),
    'standard',
  ),
  ai_visual: z._default(
    z
      .boolean()
      .check(
        z.describe(
          'AI-generated pictures instead of the included ones: a paid heavy extra (+100 doubloons), refused with 422 while the deployment has no image generator.',
        ),
      ),
    false,
  ),
  logo: LOGO,
  billing: z._default(
    billing.check(
      z.describe(
        "How heavy extras are paid (see Billing): `doubloons` pays their full price instead of the plan's allowance, and so avoids 409 `fair_use_exceeded`.",
      ),
    ),
    'auto',
  ),
});
export type OrderParams = z.output<typeof createVideoBody>;

/** The parameters an order runs with, as answers show them (billing is how it was paid, not a parameter). */
export const orderParams = z.omit(createVideoBody, { billing: true });

/**
 * A key of the client's metadata: 1 to 40 letters, digits, `_`, `.`, `:` and `-`, beginning with a letter or a digit
 * (no brackets: `metadata[KEY]` filters; no `__proto__`).
 */
export const METADATA_KEY = /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,39}$/u;
export const METADATA_MAX_PAIRS = 20;

/**
 * The client's own pairs on an order (additive): stored as sent, answered as `client_metadata` (the order's
 * `metadata` is the spec's posting pack), in every webhook body, and filterable with `metadata[KEY]=VALUE`.
 */
export const clientMetadata = z
  .record(
    z.string().check(z.regex(METADATA_KEY, 'keys must be 1 to 40 letters, digits, _ . : or -, beginning with a letter or a digit')),
    z.string().check(z.maxLength(500, 'values must be at most 500 characters')),
  )
  .check(
    z.refine((pairs) => Object.keys(pairs).length <= METADATA_MAX_PAIRS, `must have at most ${METADATA_MAX_PAIRS} pairs`),
    z.describe(
      'Your own key-value strings for the order, up to 20 pairs (keys 1 to 40 letters, digits, `_`, `.`, `:` or `-`, beginning with a letter or a digit; values up to 500 characters), such as your record id. Stored as sent and answered as `client_metadata` on the order and in every webhook body; `GET /videos?metadata[KEY]=VALUE` finds the orders with that pair. No effect on the video or its price; a repeated Idempotency-Key must send the same pairs.',
    ),
  );

/** What an order may add to its parameters: none is a parameter of the video, none changes its price. */
const orderOptions = {
  metadata: z.optional(clientMetadata),
  deadline_seconds: z.optional(
    z
      .int()
      .check(
        z.gte(60),
        z.lte(7 * 24 * 3600),
        z.describe(
          'Seconds from creation, 60 to 604800 (7 days), within which the render must start: an order whose render has not started by then is canceled and fully refunded (`error.code` `deadline_exceeded`, up to a minute late). Shown as `deadline_at`.',
        ),
      ),
  ),
  quote_id: z.optional(
    z
      .string()
      .check(
        z.regex(/^quo_[0-9a-hjkmnp-tv-z]{26}$/, 'must be a quote id (quo_...)'),
        z.describe(
          'A quote of POST /videos:quote for this same request: the order is charged exactly its `cost`. Valid 15 minutes and for one order; otherwise 409 `quote_invalid`.',
        ),
      ),
  ),
  max_cost: z.optional(
    z
      .int()
      .check(
        z.gte(0),
        z.describe('The most the order may cost, in doubloons: one that would cost more is refused with 409 `max_cost_exceeded`, before any charge.'),
      ),
  ),
};

/** The prices of the paid extras, said once for both creation routes. */
const PRICES_NOTE =
  'The price is the base (100 doubloons) plus the paid extras: `placement` +50, `music: song` +70, `voice: clone` +100, `ai_visual` +100 (the default prices; POST /videos:quote gives this deployment’s for this key). A trial video pays the base; a plan’s monthly allowance pays the heavy extras.';

export const createVideoRequest = z.extend(createVideoBody, orderOptions).check(
  z.meta({
    description: `Body of POST /videos: the video's parameters (every field but \`topic\` optional, with its default) and the order's options (\`deadline_seconds\`, \`quote_id\`, \`max_cost\`). ${PRICES_NOTE}`,
    examples: [
      { topic: 'Green tea', duration_seconds: 15, director_mode: true },
      {
        topic: 'Morning routine for busy people',
        duration_seconds: 45,
        language: 'en',
        tone: 'energetic',
        placement: { product: 'Sunrise Coffee', description: 'Cold brew in a can, no sugar' },
        cta: 'Try it this week',
        music: 'song',
        deadline_seconds: 3600,
        max_cost: 250,
        metadata: { crm_id: 'lead-4711', campaign: 'spring' },
      },
    ],
  }),
);

export const quickVideoBody = z
  .strictObject({
    prompt: text(1000).check(
      z.describe(
        'What you want, in one line of free text, Russian or English, 1 to 1000 characters: the topic, and in words the length, tone, language and extras ("Funny 20 second video about cats with a song").',
      ),
    ),
    logo: LOGO,
    ...orderOptions,
  })
  .check(
    z.meta({
      description: `Body of POST /videos:quick: a one-line prompt, which the planner turns into the order's parameters (the order shows them under \`params\`), and the order's options. Extras the prompt asks for are priced as on POST /videos. ${PRICES_NOTE}`,
      examples: [
        { prompt: 'Funny 20 second video about cats with a song' },
        { prompt: 'Видео про зелёный чай на 15 секунд, спокойно', max_cost: 100, metadata: { crm_id: 'lead-4712' } },
      ],
    }),
  );

export const quoteRequest = z.union([quickVideoBody, createVideoRequest]).check(
  z.meta({
    description:
      'Body of POST /videos:quote: the body of POST /videos or of POST /videos:quick, as the order would be placed (the shape it is nearer to decides which). Nothing is charged.',
    examples: [{ topic: 'Green tea', music: 'song' }, { prompt: 'Funny 20 second video about cats with a song' }],
  }),
);

export const quoteResponse = z
  .object({
    quote_id: z
      .string()
      .check(z.describe('Pass it as `quote_id` with the same request to be charged exactly `cost`: valid until `expires_at`, for one order.')),
    cost: cost.check(z.describe('What the order would be charged now, in doubloons: `breakdown.base` plus the extras.')),
    breakdown: z
      .object({
        base: z.int().check(z.gte(0), z.describe('The base price in doubloons; 0 when a trial video pays for the order.')),
        extras: z
          .record(z.string(), z.int().check(z.gte(0)))
          .check(
            z.describe(
              "Each paid extra's price in doubloons, by name (`placement`, `song`, `voice_clone`, `ai_visual`); 0 when the plan's allowance covers it.",
            ),
          ),
        trial: z.boolean().check(z.describe('A trial video would pay the base (the video would carry the trial watermark).')),
        plan_allowance: z.boolean().check(z.describe("The plan's monthly allowance of heavy videos would pay the heavy extras.")),
      })
      .check(z.describe('The price item by item.')),
    params: orderParams.check(z.describe('The parameters priced (for a prompt: what the planner chose, as the order would run).')),
    eta_seconds: etaSeconds.check(z.describe('Estimated seconds until done, were the order placed now.')),
    expires_at: timestamp.check(z.describe('When the quote stops holding its price: 15 minutes after it was made.')),
  })
  .check(
    z.meta({
      description: 'What an order would cost this key now (200 of POST /videos:quote), item by item, and the quote that holds that price.',
      examples: [
        {
          quote_id: 'quo_01m88sdrykmmkkdgyfr9yzsa5f',
          cost: 170,
          breakdown: { base: 100, extras: { song: 70 }, trial: false, plan_allowance: false },
          params: {
            topic: 'Green tea',
            director_mode: false,
            duration_seconds: 30,
            language: 'auto',
            tone: 'neutral',
            captions: true,
            music: 'song',
            voice: 'standard',
            ai_visual: false,
          },
          eta_seconds: 140,
          expires_at: '2026-11-25T07:38:51.123Z',
        },
      ],
    }),
  );
export type QuoteResponse = z.infer<typeof quoteResponse>;

export const creationResponse = z
  .object({
    id: orderId,
    status: orderStatus.check(
      z.describe(
        '`queued`: every new order starts there (one whose asset was deleted between its check and the order’s copy of it is closed at once in error, `asset_unavailable`, refunded: its GET and `video.error` say so); a repeated Idempotency-Key answers the status as it is now.',
      ),
    ),
    cost: cost.check(z.describe('Doubloons charged at creation, all at once; refunded in full if the order ends in error.')),
    eta_seconds: etaSeconds,
  })
  .check(
    z.meta({
      description:
        'The answer of both creation routes: 201 for a new order, 200 with the original order for a repeated Idempotency-Key (nothing charged again).',
      examples: [{ id: 'vid_01m88sfkhke0327c8bwnnsgp83', status: 'queued', cost: 170, eta_seconds: 95 }],
    }),
  );
export type CreationResponse = z.infer<typeof creationResponse>;
