"""The contract's shapes as typed dictionaries (PEP 589), for editors and type checkers: what the answers carry, as
/v1/openapi.json describes them. A test keeps their keys, and each field's docstring, equal to the document's. Answers
may gain fields (v1 grows by additions), so read them as dictionaries and ignore what you do not know. The request bodies
(CreateVideoRequest, QuickVideoRequest, ReviewRequest, ...) are typed the same way: a misspelled key or value is a type
error."""

from typing import Dict, List, Literal, NotRequired, Optional, Required, TypedDict, Union

Language = Literal["auto", "ru", "en"]
"""The language of the voiceover, the captions and the posting pack. `auto`: the language the topic (or the prompt) is
written in; `ru`: Russian; `en`: English.
"""

Tone = Literal["neutral", "energetic", "calm", "funny", "serious"]
"""The tone of the script, and the music's tempo and mode. `neutral`: plain and informative; `energetic`: upbeat and
fast; `calm`: slow and soothing; `funny`: light, with a joke; `serious`: sober and factual.
"""

Music = Literal["stock", "song", "none"]
"""The soundtrack under the voice. `stock`: background music, included in the base price; `song`: an original song with
a melody, a paid heavy extra (+70 doubloons); `none`: no music.
"""

Voice = Literal["standard", "clone", "none"]
"""The voiceover. `standard`: the service's synthetic voice, included; `clone`: the account holder's cloned voice, a
paid heavy extra (+100 doubloons), refused with 422 while the deployment has no voice-cloning provider; `none`: no
voiceover (captions and music only).
"""

Billing = Literal["auto", "doubloons"]
"""How the heavy extras (`music: song`, `voice: clone`, `ai_visual`) are paid for a user with a plan; without a plan
both pay in doubloons. `auto`: from the plan's monthly allowance of heavy videos while it lasts (then 409
`fair_use_exceeded`); `doubloons`: at their full price in doubloons, leaving the allowance alone.
"""

Channel = Literal["api", "bot"]
"""Where an order came from. Bot orders are rendered first (after 3 bot orders in a row, the oldest waiting API order).
`api`: this API, with an API key; `bot`: the operators' chat bot, for the same account and balance.
"""

TransactionKind = Literal["charge", "refund", "top_up", "trial", "plan_allowance"]
"""The kind of a ledger entry. `charge`: doubloons taken for an order; `refund`: what a failed or canceled order took,
given back (`reason`); `top_up`: doubloons added in the chat bot; `trial`: a charge whose base price a trial video
paid (its amount covers only the extras: 0 without any); `plan_allowance`: a charge whose heavy extras the plan's
monthly allowance paid.
"""

WebhookEventType = Literal["video.awaiting_review", "video.done", "video.error", "balance.low"]
"""An event delivered to the webhook: an order event (its body the order, as GET /videos/{id}) or an account event (its
own body). `video.awaiting_review`: director mode, the script waits for a decision; `video.done`: the video is ready;
`video.error`: the order failed or was canceled, and is refunded; `balance.low`: a charge left the balance below the
key’s threshold (POST /balance/alerts); its body is a BalanceLowEvent.
"""

ErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "insufficient_funds",
    "spend_limit_exceeded",
    "forbidden",
    "not_found",
    "fair_use_exceeded",
    "not_awaiting_review",
    "not_cancelable",
    "review_limit_exceeded",
    "regen_limit_reached",
    "quote_invalid",
    "max_cost_exceeded",
    "delivery_in_progress",
    "invalid_params",
    "rate_limited",
    "active_tasks_exceeded",
    "internal_error",
    "generator_unavailable",
    "service_unavailable",
]
"""A machine-readable error code, stable in v1, each with one HTTP status. Every operation lists the codes it can answer
with, and what they mean there.
"""

OrderStatus = Literal["queued", "running", "awaiting_review", "done", "error"]
"""Where an order stands. `queued`: accepted and paid, waiting for a render slot; `running`: being planned, written or
rendered (a director-mode order also waits for its slot in `running` after its review); `awaiting_review`: director
mode, the script waits for POST /videos/{id}/review; `done`: the video is ready (`result_url`, `metadata`); `error`:
failed, canceled or past its deadline, and refunded (`error`, `refund`). `queued` and `running` count as active tasks
(10 per key).
"""


class OrderParams(TypedDict):
    """The parameters the order runs with (for a quick order: what the planner chose from the prompt)."""

    topic: str
    """What the video is about, 1 to 300 characters (no control characters). The script is written from it, in its
    language when `language` is `auto`.
    """
    director_mode: bool
    """Script review: true stops the order at `awaiting_review` once its script is written, until POST
    /videos/{id}/review approves, edits or regenerates it (a key holds at most 20 such orders before their approval).
    Included in the price.
    """
    duration_seconds: int
    """Length of the video in seconds, 10 to 60. Included in the base price."""
    language: Language
    """The language of the video (see Language)."""
    tone: Tone
    """The tone of the script and the music (see Tone)."""
    captions: bool
    """Captions on every scene. Included in the base price."""
    music: Music
    """The soundtrack (see Music): `song` is a paid heavy extra (+70 doubloons)."""
    voice: Voice
    """The voiceover (see Voice): `clone` is a paid heavy extra (+100 doubloons), refused with 422 while no provider
    makes it.
    """
    ai_visual: bool
    """AI-generated pictures instead of the included ones: a paid heavy extra (+100 doubloons), refused with 422 while
    the deployment has no image generator.
    """
    placement: NotRequired[Dict[str, str]]
    """Product placement, a paid extra (+50 doubloons): the product is named in the script and shown on a badge in the
    video, with its own picture when `image` names one.
    """
    cta: NotRequired[str]
    """A call to action, at most 80 characters, shown on the last scene as a button and spoken. Included in the base
    price.
    """
    logo: NotRequired[str]
    """An asset of this key (POST /assets), drawn small in the top left corner of every scene: your logo. Checked at
    creation (422 naming `logo` when it is not a usable picture of this key). Included in the price.
    """


class Charge(TypedDict):
    """What the order took: doubloons, a trial video, the plan’s allowance of heavy videos."""

    amount: int
    """Doubloons taken (the order’s `cost`)."""
    trial: bool
    """A trial video paid the base price."""
    plan_allowance: bool
    """The plan's monthly allowance of heavy videos paid the heavy extras."""


class Refund(TypedDict):
    """In error: what was given back, and why."""

    amount: int
    """Doubloons given back: the whole charge (a trial video or the allowance taken is given back too). 0 in test mode
    (`livemode` false), which took nothing and gives nothing back: no transaction is written.
    """
    reason: str
    """Why: the order’s error code (`canceled`, `generation_failed`, ...)."""
    at: str
    """When it was given back."""


class ErrorInfo(TypedDict):
    """In error: why the order failed. A failed order is not an HTTP error: it reads normally and is refunded."""

    code: str
    """Machine-readable: `generation_failed`, `generator_unavailable`, `review_expired` (no review within 7 days),
    `internal_error`, `canceled` (POST /videos/{id}/cancel), `deadline_exceeded` (`deadline_seconds`) or
    `asset_unavailable` (an asset it names was deleted before the order’s copy of it was made).
    """
    message: str
    """For humans; the wording may change."""


class Metadata(TypedDict):
    """Done: the posting pack, ready to publish beside the video."""

    title: str
    """The post's title."""
    description: str
    """The post's text."""
    hashtags: List[str]
    """Hashtags for the post, each starting with `#`."""


class Order(TypedDict):
    """An order (a video task) as GET /videos/{id} answers it; the same JSON is the body of every webhook event.
    Optional fields appear in the statuses their descriptions name. v1 only adds fields: ignore those you do not
    know.
    """

    id: str
    """The order's id: `vid_` and 26 lower-case characters (a ULID, so ids sort by creation time). Otherwise opaque."""
    status: OrderStatus
    """Where the order stands (see OrderStatus); webhook events are sent on `awaiting_review`, `done` and `error`."""
    cost: int
    """Doubloons charged at creation (as `charge.amount`)."""
    created_at: str
    """When the order was created."""
    updated_at: str
    """When the order last changed."""
    director_mode: bool
    """Whether the order stops for a script review (`params.director_mode`)."""
    trial: bool
    """True when a trial video paid for the order: the video carries the trial watermark (the service address and
    "(AI)").
    """
    channel: Channel
    """Where the order came from (see Channel)."""
    livemode: bool
    """False for an order made with a test-mode key (`vgk_test_...`): it cost nothing, moved no money, and its video is
    a short clip marked TEST. True for every other order.
    """
    params: OrderParams
    """The parameters the order runs with (for a quick order: what the planner chose from the prompt)."""
    charge: Charge
    """What the order took: doubloons, a trial video, the plan’s allowance of heavy videos."""
    eta_seconds: NotRequired[int]
    """Queued or running: estimated seconds until done (see `Retry-After` for when to poll again)."""
    progress: NotRequired[int]
    """Running: how far the generation is, 0 to 100 (5 until it holds a render slot, 20 with its script written, up to
    94 while rendering, 95 once rendered). An estimate; it only grows.
    """
    queue_position: NotRequired[int]
    """Queued: the order's place in the render queue, 1 for the next to start."""
    started_at: NotRequired[str]
    """When the order started running."""
    finished_at: NotRequired[str]
    """When the order ended, done or in error."""
    script: NotRequired[str]
    """Once written: the script as text, one block per scene (`Scene 1 (4.8s)`, then `Caption:`, `Voice:` and `Visual:`
    lines, and an `Image: <asset id>` line where the scene shows an asset of the key), blocks separated by a blank
    line. A review `edit` takes the same form: an `Image:` line naming an asset of this key puts that picture in the
    scene (checked at the review: 422 naming `text` when unusable).
    """
    result_url: NotRequired[str]
    """Done: a signed link to the mp4, no key needed, valid 7 days (`expires_at`); every GET signs a fresh one. Files
    are kept 30 days from the order’s creation, then 404.
    """
    cover_url: NotRequired[str]
    """Done: the cover image (JPEG), signed like `result_url`."""
    expires_at: NotRequired[str]
    """Done: when `result_url` and `cover_url` stop working (7 days on; every GET signs fresh ones)."""
    metadata: NotRequired[Metadata]
    """Done: the posting pack, ready to publish beside the video."""
    error: NotRequired[ErrorInfo]
    """In error: why the order failed. A failed order is not an HTTP error: it reads normally and is refunded."""
    deadline_at: NotRequired[str]
    """When the order is canceled and refunded unless its render has started (its creation’s `deadline_seconds`)."""
    client_metadata: NotRequired[Dict[str, str]]
    """The pairs the creation sent as `metadata`, as sent (absent when none were sent)."""
    refund: NotRequired[Refund]
    """In error: what was given back, and why. Every order in error has one, a test-mode order too (amount 0), so that
    refund handling can be exercised with a test key.
    """


class CreationResponse(TypedDict):
    """The answer of both creation routes: 201 for a new order, 200 with the original order for a repeated
    Idempotency-Key (nothing charged again).
    """

    id: str
    """The order's id: `vid_` and 26 lower-case characters (a ULID, so ids sort by creation time). Otherwise opaque."""
    status: OrderStatus
    """`queued`: every new order starts there (one whose asset was deleted between its check and the order’s copy of
    it is closed at once in error, `asset_unavailable`, refunded: its GET and `video.error` say so); a repeated
    Idempotency-Key answers the status as it is now.
    """
    cost: int
    """Doubloons charged at creation, all at once; refunded in full if the order ends in error."""
    eta_seconds: int
    """Estimated seconds until the order is done, from the render queue (the orders ahead of it and the measured render
    speed); it may drift at peak time.
    """


class Created(CreationResponse):
    """A creation's answer as the client returns it: the document's CreationResponse and whether it was a replay."""

    replayed: bool
    """True when it answered a repeated Idempotency-Key: no new order, nothing charged again (HTTP 200)."""


class Breakdown(TypedDict):
    """The price item by item."""

    base: int
    """The base price in doubloons; 0 when a trial video pays for the order."""
    extras: Dict[str, int]
    """Each paid extra's price in doubloons, by name (`placement`, `song`, `voice_clone`, `ai_visual`); 0 when the
    plan's allowance covers it.
    """
    trial: bool
    """A trial video would pay the base (the video would carry the trial watermark)."""
    plan_allowance: bool
    """The plan's monthly allowance of heavy videos would pay the heavy extras."""


class Quote(TypedDict):
    """What an order would cost this key now (200 of POST /videos:quote), item by item, and the quote that holds that
    price.
    """

    quote_id: str
    """Pass it as `quote_id` with the same request to be charged exactly `cost`: valid until `expires_at`, for one
    order.
    """
    cost: int
    """What the order would be charged now, in doubloons: `breakdown.base` plus the extras."""
    breakdown: Breakdown
    """The price item by item."""
    params: OrderParams
    """The parameters priced (for a prompt: what the planner chose, as the order would run)."""
    eta_seconds: int
    """Estimated seconds until done, were the order placed now."""
    expires_at: str
    """When the quote stops holding its price: 15 minutes after it was made."""


class Spend(TypedDict):
    """What the key spent this UTC month, and its monthly spend limit (additive)."""

    month: str
    """The UTC calendar month (`YYYY-MM`) the figures are for: the current one."""
    spent: int
    """Doubloons the key's orders were charged this month, less the refunds of this month's charges given back within
    it. Orders the chat bot placed are not counted.
    """
    limit: NotRequired[int]
    """The monthly spend limit the operator set for the key, if any: an order that would take `spent` past it is
    refused with 402 `spend_limit_exceeded`, nothing charged. It renews with each UTC month.
    """


class LowBalanceAlert(TypedDict):
    """The key’s low-balance alert (POST /balance/alerts, additive); absent when none is set."""

    below: int
    """The threshold: a charge that leaves the balance below it sends `balance.low` to the webhook."""
    sent: bool
    """`balance.low` was sent and is not sent again until a top-up lifts the balance to `below` or more (setting
    another threshold arms that one).
    """


class Balance(TypedDict):
    """The account's balance (GET /balance): doubloons, trial videos left and, for a user with a plan, the heavy videos
    left this month; what the key spent this month against its spend limit, and its low-balance alert.
    """

    balance: int
    """Doubloons on the account (1 doubloon = 1 ruble), topped up in the chat bot. An order that costs more is refused
    with 402 `insufficient_funds`.
    """
    trial_videos_left: int
    """Free trial videos left. Each pays an order's base price (its video carries the trial watermark); they are used
    first, automatically.
    """
    plan: NotRequired[str]
    """The user's plan, for a user with one: `creator` (20 heavy videos a month) or `studio` (100)."""
    heavy_videos_left: NotRequired[int]
    """For a user with a plan: the heavy videos (a song, a cloned voice, AI visuals) the plan's allowance still pays
    this month (UTC calendar month).
    """
    livemode: bool
    """False for a test-mode key (`vgk_test_...`): its account has no money (balance 0, no trial videos), and its
    orders cost nothing. True otherwise.
    """
    spend: Spend
    """What the key spent this UTC month, and its monthly spend limit (additive)."""
    low_balance_alert: NotRequired[LowBalanceAlert]
    """The key’s low-balance alert (POST /balance/alerts, additive); absent when none is set."""


class BalanceLowEvent(TypedDict):
    """The body of the `balance.low` webhook event (additive): not an order; `unwrap` returns it for that event."""

    id: str
    """The event’s id, as in the webhook-id and X-Service-Event-Id headers (the same on every attempt and resend)."""
    object: Literal["event"]
    """Always `event`: tells this body from an order’s, which has no `object`."""
    type: Literal["balance.low"]
    """Always `balance.low`, as in the X-Service-Event header."""
    balance: int
    """The balance right after the charge that crossed the threshold."""
    threshold: int
    """The alert’s threshold (`below`) then."""
    order_id: str
    """The order whose charge crossed it."""
    created_at: str
    """When the charge was made."""
    livemode: Literal[True]
    """Always true: only live charges move the balance (a test-mode order costs 0)."""


class Transaction(TypedDict):
    """One entry of the ledger: a change of the balance, or a trial video or plan allowance taken or given back."""

    id: str
    """The entry’s id (`txn_...`): ids sort in the order the entries were committed. Pass it as `starting_after`."""
    kind: TransactionKind
    """What the entry is (see TransactionKind)."""
    amount: int
    """Doubloons: negative for a charge, positive for a refund or a top-up (0 when a trial video or the allowance paid
    it all).
    """
    balance_after: int
    """The balance after this entry: the older entry’s `balance_after` plus this amount."""
    created_at: str
    """When the entry was committed."""
    order_id: NotRequired[str]
    """The order the entry is for (charges and refunds)."""
    reason: NotRequired[str]
    """A refund’s reason: the order’s error code (`canceled`, `generation_failed`, ...)."""


class WebhookCreated(TypedDict):
    """The webhook as registered (201 of POST /webhooks), with its signing secret."""

    id: str
    """The webhook's id (`wh_...`)."""
    url: str
    """Where events are delivered."""
    active: bool
    """Always true in v1: a webhook receives events until it is deleted."""
    created_at: str
    """When the webhook was first registered (a replacement keeps it)."""
    secret: str
    """The signing secret of every event from now on. It is `whsec_` and 24 random bytes in base64: X-Service-Signature
    is the hex HMAC-SHA256 of each raw body keyed by this whole string, and Standard Webhooks libraries take it as it
    is. Store it: no other answer shows it.
    """


class Webhook(TypedDict):
    """The key's webhook, or none: at most one, without its secret."""

    id: str
    """The webhook's id (`wh_...`)."""
    url: str
    """Where events are delivered."""
    active: bool
    """Always true in v1: a webhook receives events until it is deleted."""
    created_at: str
    """When the webhook was first registered (a replacement keeps it)."""


class WebhookList(TypedDict):
    """The webhooks of the key (GET /webhooks)."""

    data: List[Webhook]
    """The key's webhook, or none: at most one, without its secret."""


DeliveryOutcome = Literal["delivered", "pending", "dropped", "no_webhook"]
"""What came of a delivery attempt."""


class Delivery(TypedDict):
    """One delivery attempt."""

    event_id: str
    """The event’s id, the same for each of its attempts (X-Service-Event-Id, webhook-id)."""
    event: str
    """The event’s type."""
    order_id: NotRequired[str]
    """The order the event is about (an order event’s; absent for `balance.low`)."""
    attempt: int
    """Which attempt this was: 1 to 5, then one more per resend."""
    at: str
    """When the attempt was made."""
    url: str
    """Where it was sent: the webhook’s url then."""
    latency_ms: float
    """Milliseconds from sending to the answer or the failure."""
    outcome: DeliveryOutcome
    """What came of the attempt. `delivered`: the receiver took it (2xx within 5 s); `pending`: it failed, and another
    attempt follows (30 s after the first, the gap doubling); `dropped`: it failed and was the last (resend it with
    POST /webhooks/{id}/resend); `no_webhook`: the key had no webhook.
    """
    http_status: NotRequired[int]
    """The receiver's HTTP status, when it answered."""
    error: NotRequired[str]
    """When no answer came: the kind of failure (`connection refused`, `timed out: no answer within 5 s`, a TLS error,
    ...), never an address.
    """


class DeliveryList(TypedDict):
    """The latest 50 delivery attempts of the key's webhook, newest first (GET /webhooks/{id}/deliveries, additive)."""

    data: List[Delivery]
    """The attempts, newest first."""


class OrderList(TypedDict):
    """A page of the key’s orders (GET /videos), newest first, each as GET /videos/{id} answers it."""

    data: List[Order]
    """The orders of this page, newest first."""
    has_more: bool
    """More orders may follow: ask again with `starting_after` set to `next_starting_after`."""
    next_starting_after: NotRequired[str]
    """The cursor of the next page, present when `has_more` is true."""


class TransactionList(TypedDict):
    """A page of the key’s ledger (GET /balance/transactions, additive), newest first."""

    data: List[Transaction]
    """The entries of this page, newest first."""
    has_more: bool
    """More entries may follow: ask again with `starting_after` set to `next_starting_after`."""
    next_starting_after: NotRequired[str]
    """The cursor of the next page, present when `has_more` is true."""


class WebhookRotated(TypedDict):
    """The webhook with its new secret (200 of the rotation), and until when the previous secret still signs."""

    id: str
    """The webhook's id (`wh_...`)."""
    url: str
    """Where events are delivered."""
    active: bool
    """Always true in v1: a webhook receives events until it is deleted."""
    created_at: str
    """When the webhook was first registered (a replacement keeps it)."""
    secret: str
    """The new signing secret. It is `whsec_` and 24 random bytes in base64: X-Service-Signature is the hex HMAC-SHA256
    of each raw body keyed by this whole string, and Standard Webhooks libraries take it as it is. Store it: no other
    answer shows it.
    """
    previous_secret_expires_at: NotRequired[str]
    """Until when the previous secret still signs beside the new one (X-Service-Signature-Previous, a second
    `webhook-signature` entry); absent when `overlap_seconds` was 0.
    """


class WebhookTestResult(TypedDict):
    """The one attempt made now (200 of POST /webhooks/{id}/test, additive); it is not retried."""

    delivered: bool
    """Whether the receiver answered 2xx within 5 seconds."""
    latency_ms: float
    """Milliseconds from sending to the answer or the failure."""
    http_status: NotRequired[int]
    """The receiver's HTTP status, when it answered."""
    error: NotRequired[str]
    """When no answer came: the kind of failure (`connection refused`, `timed out: no answer within 5 s`, a TLS error,
    ...), never an address.
    """


class ResendResult(TypedDict):
    """The events being sent again (202 of a resend)."""

    resent: List[str]
    """The ids of the events sent again, one attempt each."""
    has_more: bool
    """More dropped events remain (a call sends at most 100, or what the hour’s resend budget has left): call again."""


AssetContentType = Literal["image/png", "image/jpeg", "image/webp"]
"""The picture's media type, as it will be uploaded: `image/png`, `image/jpeg` or `image/webp` (still, not animated)."""


class Asset(TypedDict):
    """An asset: a picture of the key’s own, kept 30 days (GET /assets/{id}, the items of GET /assets)."""

    id: str
    """The asset’s id: `ast_` and 26 lower-case characters. Name it in an order (`placement.image`, `logo`)."""
    kind: Literal["image"]
    """Always `image` in v1."""
    content_type: AssetContentType
    """The media type the upload was declared with (see AssetContentType)."""
    size_bytes: int
    """The length the upload was declared with, in bytes."""
    status: Literal["unchecked", "ready", "refused"]
    """Where the asset stands. Its upload is checked when an order first names it. `unchecked`: no order has named it
    yet (uploaded or not: the check happens at first use); `ready`: checked: its bytes are the declared type, at most
    4096 x 4096 pixels; orders may name it; `refused`: checked and found unusable (`refusal` says why); an order
    naming it is refused with 422.
    """
    width: NotRequired[int]
    """Ready: the picture’s width in pixels, read from its header."""
    height: NotRequired[int]
    """Ready: the picture’s height in pixels."""
    refusal: NotRequired[str]
    """Refused: why, for humans."""
    created_at: str
    """When the asset was created (POST /assets)."""
    expires_at: str
    """When the asset and its bytes are deleted: 30 days after its creation. Orders made before keep their copy."""


class AssetUpload(TypedDict):
    """Where and how to upload the bytes, once, within 15 minutes."""

    method: Literal["PUT"]
    """Always `PUT`."""
    url: str
    """The presigned storage URL to PUT the bytes to (`curl -T file -H "Content-Type: ..." -H "If-None-Match: *" URL`).
    No API key.
    """
    headers: Dict[str, str]
    """The headers the PUT must carry, exactly: `Content-Type` and `Content-Length` as declared, and
    `If-None-Match: *`. The signature binds them: another type or length, or no If-None-Match, is refused (403
    SignatureDoesNotMatch). The URL only creates: a second PUT, or one after the asset’s DELETE, is refused with 412
    PreconditionFailed.
    """
    expires_at: str
    """When the URL stops working: 15 minutes after the asset was created."""


class AssetCreated(Asset):
    """The asset just created (201 of POST /assets) and the presigned URL its bytes go to."""

    upload: AssetUpload
    """Where and how to upload the bytes, once, within 15 minutes."""


class AssetList(TypedDict):
    """A page of the key’s assets (GET /assets), newest first; expired ones are gone."""

    data: List[Asset]
    """The assets of this page, newest first."""
    has_more: bool
    """More assets may follow: ask again with `starting_after` set to `next_starting_after`."""
    next_starting_after: NotRequired[str]
    """The cursor of the next page, present when `has_more` is true."""


class Placement(TypedDict):
    """Product placement, a paid extra (+50 doubloons): the product is named in the script and shown on a badge in the
    video, with its own picture when `image` names one.
    """

    product: str
    """The product's name, shown and spoken, 1 to 80 characters."""
    description: NotRequired[str]
    """What to say about the product, at most 300 characters."""
    image: NotRequired[str]
    """A picture of the product: an asset of this key (POST /assets), shown in the placement scene's picture region
    instead of a stock picture. Checked at creation (422 naming `placement.image` when it is not a usable picture of
    this key); no extra charge.
    """

class CreateVideoRequest(TypedDict, total=False):
    """Body of POST /videos: the video's parameters (every field but `topic` optional, with its default) and the order's
    options (`deadline_seconds`, `quote_id`, `max_cost`). The price is the base (100 doubloons) plus the paid extras:
    `placement` +50, `music: song` +70, `voice: clone` +100, `ai_visual` +100 (the default prices; POST /videos:quote
    gives this deployment’s for this key). A trial video pays the base; a plan’s monthly allowance pays the heavy
    extras.
    """

    topic: Required[str]
    """What the video is about, 1 to 300 characters (no control characters). The script is written from it, in its
    language when `language` is `auto`.
    """
    director_mode: bool
    """Script review: true stops the order at `awaiting_review` once its script is written, until POST
    /videos/{id}/review approves, edits or regenerates it (a key holds at most 20 such orders before their approval).
    Included in the price.
    """
    duration_seconds: int
    """Length of the video in seconds, 10 to 60. Included in the base price."""
    language: Language
    """The language of the video (see Language)."""
    tone: Tone
    """The tone of the script and the music (see Tone)."""
    placement: Placement
    """Product placement, a paid extra (+50 doubloons): the product is named in the script and shown on a badge in the
    video, with its own picture when `image` names one.
    """
    cta: str
    """A call to action, at most 80 characters, shown on the last scene as a button and spoken. Included in the base
    price.
    """
    captions: bool
    """Captions on every scene. Included in the base price."""
    music: Music
    """The soundtrack (see Music): `song` is a paid heavy extra (+70 doubloons)."""
    voice: Voice
    """The voiceover (see Voice): `clone` is a paid heavy extra (+100 doubloons), refused with 422 while no provider
    makes it.
    """
    ai_visual: bool
    """AI-generated pictures instead of the included ones: a paid heavy extra (+100 doubloons), refused with 422 while
    the deployment has no image generator.
    """
    logo: str
    """An asset of this key (POST /assets), drawn small in the top left corner of every scene: your logo. Checked at
    creation (422 naming `logo` when it is not a usable picture of this key). Included in the price.
    """
    billing: Billing
    """How heavy extras are paid (see Billing): `doubloons` pays their full price instead of the plan's allowance, and
    so avoids 409 `fair_use_exceeded`.
    """
    metadata: Dict[str, str]
    """Your own key-value strings for the order, up to 20 pairs (keys 1 to 40 letters, digits, `_`, `.`, `:` or `-`,
    beginning with a letter or a digit; values up to 500 characters), such as your record id. Stored as sent and
    answered as `client_metadata` on the order and in every webhook body; `GET /videos?metadata[KEY]=VALUE` finds the
    orders with that pair. No effect on the video or its price; a repeated Idempotency-Key must send the same pairs.
    """
    deadline_seconds: int
    """Seconds from creation, 60 to 604800 (7 days), within which the render must start: an order whose render has not
    started by then is canceled and fully refunded (`error.code` `deadline_exceeded`, up to a minute late). Shown as
    `deadline_at`.
    """
    quote_id: str
    """A quote of POST /videos:quote for this same request: the order is charged exactly its `cost`. Valid 15 minutes
    and for one order; otherwise 409 `quote_invalid`.
    """
    max_cost: int
    """The most the order may cost, in doubloons: one that would cost more is refused with 409 `max_cost_exceeded`,
    before any charge.
    """

class QuickVideoRequest(TypedDict, total=False):
    """Body of POST /videos:quick: a one-line prompt, which the planner turns into the order's parameters (the order
    shows them under `params`), and the order's options. Extras the prompt asks for are priced as on POST /videos.
    The price is the base (100 doubloons) plus the paid extras: `placement` +50, `music: song` +70, `voice: clone`
    +100, `ai_visual` +100 (the default prices; POST /videos:quote gives this deployment’s for this key). A trial
    video pays the base; a plan’s monthly allowance pays the heavy extras.
    """

    prompt: Required[str]
    """What you want, in one line of free text, Russian or English, 1 to 1000 characters: the topic, and in words the
    length, tone, language and extras ("Funny 20 second video about cats with a song").
    """
    logo: str
    """An asset of this key (POST /assets), drawn small in the top left corner of every scene: your logo. Checked at
    creation (422 naming `logo` when it is not a usable picture of this key). Included in the price.
    """
    metadata: Dict[str, str]
    """Your own key-value strings for the order, up to 20 pairs (keys 1 to 40 letters, digits, `_`, `.`, `:` or `-`,
    beginning with a letter or a digit; values up to 500 characters), such as your record id. Stored as sent and
    answered as `client_metadata` on the order and in every webhook body; `GET /videos?metadata[KEY]=VALUE` finds the
    orders with that pair. No effect on the video or its price; a repeated Idempotency-Key must send the same pairs.
    """
    deadline_seconds: int
    """Seconds from creation, 60 to 604800 (7 days), within which the render must start: an order whose render has not
    started by then is canceled and fully refunded (`error.code` `deadline_exceeded`, up to a minute late). Shown as
    `deadline_at`.
    """
    quote_id: str
    """A quote of POST /videos:quote for this same request: the order is charged exactly its `cost`. Valid 15 minutes
    and for one order; otherwise 409 `quote_invalid`.
    """
    max_cost: int
    """The most the order may cost, in doubloons: one that would cost more is refused with 409 `max_cost_exceeded`,
    before any charge.
    """

class ReviewApprove(TypedDict):
    """Approve the script as it is: the order goes on to rendering."""

    action: Literal["approve"]
    """`approve`: Approve the script as it is: the order goes on to rendering."""

class ReviewEdit(TypedDict):
    """Replace the script with the client's own text: the order goes on to rendering with it."""

    action: Literal["edit"]
    """`edit`: Replace the script with the client's own text: the order goes on to rendering with it."""
    text: str
    """The whole script, in the form of the order's `script` field (per scene a block of `Caption:`, `Voice:` and
    `Visual:` lines, and optionally `Image: <asset id>` for the scene's picture, an asset of this key; blocks
    separated by a blank line), 1 to 5000 characters; refused with 422 naming `text` when it cannot be read as a
    script, a scene's voice is too long to be spoken in the scene's time (the scene and the limit are named), or an
    `Image:` names no usable asset of this key.
    """

class ReviewRegen(TypedDict):
    """Have the script rewritten along a note; it comes back for review."""

    action: Literal["regen"]
    """`regen`: Have the script rewritten along a note; it comes back for review."""
    note: str
    """What to change, 1 to 1000 characters. The script is rewritten along it and the order comes back to
    `awaiting_review` (at most 3 rewrites per order; then 409 `regen_limit_reached`).
    """

class CreateWebhookRequest(TypedDict):
    """Body of POST /webhooks: the one webhook of the key, registered or replaced (a new secret either way)."""

    url: str
    """Where events are POSTed: a public HTTPS address, at most 2048 characters, without credentials or a fragment;
    every address its host resolves to must be public, and its certificate must verify.
    """

class RotateWebhookRequest(TypedDict):
    """Body of POST /webhooks/{id}/rotate (additive; may be left out): how long the old secret keeps signing beside the
    new one.
    """

    overlap_seconds: NotRequired[int]
    """Seconds the previous secret keeps signing beside the new one, 0 to 604800 (7 days); 0 stops it at once."""

class ResendEventRequest(TypedDict):
    """One event to send again (a ResendRequest branch)."""

    event_id: str
    """One event to send again, by its id as X-Service-Event-Id and webhook-id carry it (`<order id>:done`, `<order
    id>:error`, `<order id>:awaiting_review:<round>`, or a `balance.low` event’s id): delivered, dropped or never
    sent for want of a webhook.
    """

class ResendSinceRequest(TypedDict):
    """Every event dropped since a time (a ResendRequest branch)."""

    since: str
    """Send again every event whose delivery was dropped since this time (attempts are kept 30 days), at most 100 a
    call.
    """

class BalanceAlertRequest(TypedDict):
    """Body of POST /balance/alerts (additive): the low-balance threshold of the key. Setting it (again) arms the alert:
    the next charge that leaves the balance below it sends `balance.low` once, and it is sent again only after a
    top-up lifts the balance to the threshold or more.
    """

    below: Optional[int]
    """The threshold in doubloons, 1 to 1000000000; `null` removes the alert."""

class CreateAssetRequest(TypedDict):
    """Body of POST /assets (additive): the picture about to be uploaded. The answer is the asset and a presigned URL to
    PUT its bytes to.
    """

    kind: Literal["image"]
    """What the asset is: `image`, the one kind in v1."""
    content_type: AssetContentType
    """The media type of the upload: `image/png`, `image/jpeg` or `image/webp`; its bytes must be that type."""
    size_bytes: int
    """The exact length of the upload in bytes, 1 to 10485760 (10 MiB): the upload URL accepts that length only."""

class WebhookTestEvent(TypedDict):
    """The body of the `webhook.test` event POST /webhooks/{id}/test sends, signed as every event is."""

    type: Literal["webhook.test"]
    """Always `webhook.test`: not an order event."""
    webhook_id: str
    """The webhook's id (`wh_...`)."""
    created_at: str
    """When the test was sent."""
    livemode: bool
    """False when the webhook is a test-mode key's (`vgk_test_...`)."""

class ErrorDetail(TypedDict):
    """The failure: its code, a message, and the request id."""

    code: ErrorCode
    """What went wrong, for programs: branch on this, not on the message."""
    message: str
    """What went wrong, for humans; its wording may change. A 422 names the field first (`placement.product: is
    required`).
    """
    request_id: NotRequired[str]
    """The request’s id, as its X-Request-Id header: quote it when asking about a failure (additive)."""

class ErrorResponse(TypedDict):
    """The body of every error the service answers: `{error: {code, message, request_id}}`."""

    error: ErrorDetail
    """The failure: its code, a message, and the request id."""


ReviewRequest = Union[ReviewApprove, ReviewEdit, ReviewRegen]
"""Body of POST /videos/{id}/review: the decision on the script of an order in `awaiting_review`, one branch per
`action`. Each decision makes the order `running` again, which takes one of the key’s active tasks.
"""

QuoteRequest = Union[QuickVideoRequest, CreateVideoRequest]
"""Body of POST /videos:quote: the body of POST /videos or of POST /videos:quick, as the order would be placed (the
shape it is nearer to decides which). Nothing is charged.
"""

ResendRequest = Union[ResendEventRequest, ResendSinceRequest]
"""Body of POST /webhooks/{id}/resend (additive): one event, or every event dropped since a time. Each gets one
attempt.
"""
