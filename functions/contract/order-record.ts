/** The order as every answer shows it (GET /videos/{id}, the lists, the webhooks' events). */
import * as z from 'zod/mini';
import { timestamp } from './zod.ts';
import { channel, cost, etaSeconds, orderId, orderParams, orderStatus } from './orders.ts';

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
