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
const cost = z
  .int()
  .check(
    z.gte(0),
    z.describe(
      'Doubloons (1 doubloon = 1 ruble): the base price (100) plus the paid extras, less what a trial video or the plan’s allowance pays. Never negative.',
    ),
  );
/** How an order id is described wherever one is shown. */
const orderId = z.string().check(z.describe("The order's id: `vid_` and 26 lower-case characters (a ULID, so ids sort by creation time). Otherwise opaque."));
const etaSeconds = z
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
const orderParams = z.omit(createVideoBody, { billing: true });

/**
 * A key of the client's metadata: 1 to 40 letters, digits, `_`, `.`, `:` and `-`, beginning with a letter or a digit
 * (no brackets: `metadata[KEY]` filters; no `__proto__`).
 */
const METADATA_KEY = /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,39}$/u;
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

/** A moment of an order's life, described where it is used. */
const at = (description: string) => timestamp.check(z.describe(description));

export const orderRecord = z
  .object({
    id: orderId,
    status: orderStatus.check(z.describe('Where the order stands (see OrderStatus); webhook events are sent on `awaiting_review`, `done` and `error`.')),
    cost: cost.check(z.describe('Doubloons charged at creation (as `charge.amount`).')),
    created_at: at('When the order was created.'),
    updated_at: at('When the order last changed.'),
    director_mode: z.boolean().check(z.describe('Whether the order stops for a script review (`params.director_mode`).')),
    trial: z.boolean().check(z.describe('True when a trial video paid for the order: the video carries the trial watermark (the service address and "(AI)").')),
    channel: channel.check(z.describe('Where the order came from (see Channel).')),
    livemode: z
      .boolean()
      .check(
        z.describe(
          'False for an order made with a test-mode key (`vgk_test_...`): it cost nothing, moved no money, and its video is a short clip marked TEST. True for every other order.',
        ),
      ),
    params: orderParams.check(z.describe('The parameters the order runs with (for a quick order: what the planner chose from the prompt).')),
    eta_seconds: z.optional(etaSeconds.check(z.describe('Queued or running: estimated seconds until done (see `Retry-After` for when to poll again).'))),
    progress: z.optional(
      z
        .int()
        .check(
          z.gte(0),
          z.lte(100),
          z.describe(
            'Running: how far the generation is, 0 to 100 (5 until it holds a render slot, 20 with its script written, up to 94 while rendering, 95 once rendered). An estimate; it only grows.',
          ),
        ),
    ),
    queue_position: z.optional(z.int().check(z.gte(1), z.describe("Queued: the order's place in the render queue, 1 for the next to start."))),
    started_at: z.optional(at('When the order started running.')),
    finished_at: z.optional(at('When the order ended, done or in error.')),
    script: z.optional(
      z
        .string()
        .check(
          z.describe(
            'Once written: the script as text, one block per scene (`Scene 1 (4.8s)`, then `Caption:`, `Voice:` and `Visual:` lines, and an `Image: <asset id>` line where the scene shows an asset of the key), blocks separated by a blank line. A review `edit` takes the same form: an `Image:` line naming an asset of this key puts that picture in the scene (checked at the review: 422 naming `text` when unusable).',
          ),
        ),
    ),
    result_url: z.optional(
      z
        .url()
        .check(
          z.describe(
            'Done: a signed link to the mp4, no key needed, valid 7 days (`expires_at`); every GET signs a fresh one. Files are kept 30 days from the order’s creation, then 404.',
          ),
        ),
    ),
    cover_url: z.optional(z.url().check(z.describe('Done: the cover image (JPEG), signed like `result_url`.'))),
    expires_at: z.optional(at('Done: when `result_url` and `cover_url` stop working (7 days on; every GET signs fresh ones).')),
    metadata: z.optional(
      z
        .object({
          title: z.string().check(z.describe("The post's title.")),
          description: z.string().check(z.describe("The post's text.")),
          hashtags: z.array(z.string()).check(z.describe('Hashtags for the post, each starting with `#`.')),
        })
        .check(z.describe('Done: the posting pack, ready to publish beside the video.')),
    ),
    error: z.optional(
      z
        .object({
          code: z
            .string()
            .check(
              z.describe(
                'Machine-readable: `generation_failed`, `generator_unavailable`, `review_expired` (no review within 7 days), `internal_error`, `canceled` (POST /videos/{id}/cancel), `deadline_exceeded` (`deadline_seconds`) or `asset_unavailable` (an asset it names was deleted before the order’s copy of it was made).',
              ),
            ),
          message: z.string().check(z.describe('For humans; the wording may change.')),
        })
        .check(z.describe('In error: why the order failed. A failed order is not an HTTP error: it reads normally and is refunded.')),
    ),
    deadline_at: z.optional(at('When the order is canceled and refunded unless its render has started (its creation’s `deadline_seconds`).')),
    client_metadata: z.optional(
      z.record(z.string(), z.string()).check(z.describe('The pairs the creation sent as `metadata`, as sent (absent when none were sent).')),
    ),
    charge: z
      .object({
        amount: cost.check(z.describe('Doubloons taken (the order’s `cost`).')),
        trial: z.boolean().check(z.describe('A trial video paid the base price.')),
        plan_allowance: z.boolean().check(z.describe("The plan's monthly allowance of heavy videos paid the heavy extras.")),
      })
      .check(z.describe('What the order took: doubloons, a trial video, the plan’s allowance of heavy videos.')),
    refund: z.optional(
      z
        .object({
          amount: cost.check(
            z.describe(
              'Doubloons given back: the whole charge (a trial video or the allowance taken is given back too). 0 in test mode (`livemode` false), which took nothing and gives nothing back: no transaction is written.',
            ),
          ),
          reason: z.string().check(z.describe('Why: the order’s error code (`canceled`, `generation_failed`, ...).')),
          at: at('When it was given back.'),
        })
        .check(
          z.describe(
            'In error: what was given back, and why. Every order in error has one, a test-mode order too (amount 0), so that refund handling can be exercised with a test key.',
          ),
        ),
    ),
  })
  .check(
    z.meta({
      description:
        'An order (a video task) as GET /videos/{id} answers it; the same JSON is the body of every webhook event. Optional fields appear in the statuses their descriptions name. v1 only adds fields: ignore those you do not know.',
      examples: [
        {
          id: 'vid_01m88sfkhke0327c8bwnnsgp83',
          status: 'done',
          cost: 170,
          created_at: '2026-11-25T07:24:51.123Z',
          updated_at: '2026-11-25T07:26:58.702Z',
          director_mode: false,
          trial: false,
          channel: 'api',
          livemode: true,
          params: {
            topic: 'Cats',
            director_mode: false,
            duration_seconds: 20,
            language: 'en',
            tone: 'funny',
            captions: true,
            music: 'song',
            voice: 'standard',
            ai_visual: false,
          },
          started_at: '2026-11-25T07:24:52.310Z',
          finished_at: '2026-11-25T07:26:58.702Z',
          script:
            'Scene 1 (4.8s)\nCaption: Cats, but honestly\nVoice: Cats. Yes, really. Stay with me.\nVisual: Cats, close-up\n\nScene 2 (5.7s)\nCaption: Cats: in practice\nVoice: Cats, in practice: try it once and see.\nVisual: Cats\n\nScene 3 (4.8s)\nCaption: Cats: why it matters\nVoice: Cats: here is why it matters.\nVisual: Cats\n\nScene 4 (4.7s)\nCaption: Follow for more\nVoice: Follow for more ideas like this.\nVisual: bell sound',
          result_url:
            'https://api.example.com/v1/files/vid_01m88sfkhke0327c8bwnnsgp83/video.mp4?expires=1796196662&sig=j7LSdIqhh9ApE7wLz8garEtRgf5X4WURnCJZQG6woE8',
          cover_url:
            'https://api.example.com/v1/files/vid_01m88sfkhke0327c8bwnnsgp83/cover.jpg?expires=1796196662&sig=iY4SZ-H_Zem6dxlo5imJi-WESt7qkDBZxaksSj6ky30',
          expires_at: '2026-12-02T07:31:02.000Z',
          metadata: {
            title: 'Cats: 2 things to know',
            description: 'Everything about cats in one short video. Follow for more.',
            hashtags: ['#cats', '#shorts', '#reels', '#tips'],
          },
          charge: { amount: 170, trial: false, plan_allowance: false },
        },
        {
          id: 'vid_01m88srrgk071f87z1hvc1cnx7',
          status: 'queued',
          cost: 0,
          created_at: '2026-11-25T07:30:01.123Z',
          updated_at: '2026-11-25T07:30:01.123Z',
          director_mode: false,
          trial: true,
          channel: 'api',
          livemode: true,
          params: {
            topic: 'Green tea',
            director_mode: false,
            duration_seconds: 30,
            language: 'auto',
            tone: 'neutral',
            captions: true,
            music: 'stock',
            voice: 'standard',
            ai_visual: false,
          },
          eta_seconds: 95,
          queue_position: 3,
          charge: { amount: 0, trial: true, plan_allowance: false },
        },
      ],
    }),
  );
export type OrderRecord = z.infer<typeof orderRecord>;

const INTEGER_1_100 = 'must be an integer from 1 to 100';
const TIME = 'must be an ISO 8601 time, such as 2026-11-25T00:00:00Z';
/**
 * How many entries a page holds. Query values are strings: decimal digits only (Number() would also take `0x10`,
 * `1e1` or ` 5`), then the number is checked.
 */
export const pageLimit = z._default(
  z.pipe(
    z.string({ error: INTEGER_1_100 }).check(z.regex(/^[0-9]{1,3}$/, INTEGER_1_100)),
    z.coerce.number<string>().check(z.gte(1, INTEGER_1_100), z.lte(100, INTEGER_1_100)),
  ),
  20,
);
// Described as the integer it stands for (its digits-only pattern is how a query string spells one).
z.globalRegistry.add(pageLimit, {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  pattern: undefined,
  description: 'Entries on a page, 1 to 100 (20 by default)',
} as never);

/** A page of a listing (`what`: its entries), newest first, and the cursor of the next; `description` says which. */
export const pageOf = <T extends z.core.$ZodType>(items: T, what: string, description: string) =>
  z
    .object({
      data: z.array(items).check(z.describe(`The ${what} of this page, newest first.`)),
      has_more: z.boolean().check(z.describe(`More ${what} may follow: ask again with \`starting_after\` set to \`next_starting_after\`.`)),
      next_starting_after: z.optional(z.string().check(z.describe('The cursor of the next page, present when `has_more` is true.'))),
    })
    .check(z.describe(description));

export const listOrdersQuery = z
  .strictObject({
    limit: pageLimit,
    starting_after: z.optional(
      z
        .string()
        .check(
          z.regex(ORDER_ID_RE, 'must be an order id (vid_...)'),
          z.describe('The cursor: the orders created before this one (its `next_starting_after`, or the last id of a page).'),
        ),
    ),
    status: z.optional(orderStatus.check(z.describe('Only orders in this status'))),
    created_gte: z.optional(z.iso.datetime({ offset: true, error: TIME }).check(z.describe('Only orders created at or after this time (ISO 8601)'))),
    created_lt: z.optional(z.iso.datetime({ offset: true, error: TIME }).check(z.describe('Only orders created before this time (ISO 8601)'))),
    metadata: z.optional(
      z
        .record(
          z.string().check(z.regex(METADATA_KEY, 'keys must be 1 to 40 letters, digits, _ . : or -, beginning with a letter or a digit')),
          z.string().check(z.maxLength(500)),
        )
        .check(
          z.refine((pairs) => Object.keys(pairs).length === 1, 'must name one pair, as metadata[KEY]=VALUE'),
          z.describe('Only orders whose `client_metadata` has this pair: `metadata[KEY]=VALUE`, one pair.'),
        ),
    ),
  })
  .check(z.describe('The query of GET /videos (additive): the key’s orders, newest first.'));
export type ListOrdersQuery = z.output<typeof listOrdersQuery>;

export const orderList = pageOf(orderRecord, 'orders', 'A page of the key’s orders (GET /videos), newest first, each as GET /videos/{id} answers it.');
