"""The contract's shapes as typed dictionaries (PEP 589), for editors and type checkers: what the answers carry, as
/v1/openapi.json describes them. A test keeps their keys equal to the document's. Answers may gain fields (v1 grows
by additions), so read them as dictionaries and ignore what you do not know."""

from typing import Dict, List, Literal, NotRequired, TypedDict

OrderStatus = Literal["queued", "running", "awaiting_review", "done", "error"]


class OrderParams(TypedDict):
    topic: str
    director_mode: bool
    duration_seconds: int
    language: str
    tone: str
    captions: bool
    music: str
    voice: str
    ai_visual: bool
    placement: NotRequired[Dict[str, str]]
    cta: NotRequired[str]


class Charge(TypedDict):
    amount: int
    trial: bool
    plan_allowance: bool


class Refund(TypedDict):
    amount: int
    reason: str
    at: str


class ErrorInfo(TypedDict):
    code: str
    message: str


class Metadata(TypedDict):
    title: str
    description: str
    hashtags: List[str]


class Order(TypedDict):
    id: str
    status: OrderStatus
    cost: int
    created_at: str
    updated_at: str
    director_mode: bool
    trial: bool
    channel: Literal["api", "bot"]
    params: OrderParams
    charge: Charge
    eta_seconds: NotRequired[int]
    progress: NotRequired[int]
    queue_position: NotRequired[int]
    started_at: NotRequired[str]
    finished_at: NotRequired[str]
    script: NotRequired[str]
    result_url: NotRequired[str]
    cover_url: NotRequired[str]
    expires_at: NotRequired[str]
    metadata: NotRequired[Metadata]
    error: NotRequired[ErrorInfo]
    deadline_at: NotRequired[str]
    refund: NotRequired[Refund]


class CreationResponse(TypedDict):
    id: str
    status: OrderStatus
    cost: int
    eta_seconds: int


class Created(CreationResponse):
    """A creation's answer; `replayed` is True when it answered a repeated Idempotency-Key (no new order)."""

    replayed: bool


class Breakdown(TypedDict):
    base: int
    extras: Dict[str, int]
    trial: bool
    plan_allowance: bool


class Quote(TypedDict):
    quote_id: str
    cost: int
    breakdown: Breakdown
    params: OrderParams
    eta_seconds: int
    expires_at: str


class Balance(TypedDict):
    balance: int
    trial_videos_left: int
    plan: NotRequired[str]
    heavy_videos_left: NotRequired[int]


class Transaction(TypedDict):
    id: str
    kind: Literal["charge", "refund", "top_up", "trial", "plan_allowance"]
    amount: int
    balance_after: int
    created_at: str
    order_id: NotRequired[str]
    reason: NotRequired[str]


class WebhookRotated(TypedDict):
    id: str
    url: str
    active: bool
    created_at: str
    secret: str
    previous_secret_expires_at: NotRequired[str]


class WebhookTestResult(TypedDict):
    delivered: bool
    latency_ms: float
    http_status: NotRequired[int]
    error: NotRequired[str]


class ResendResult(TypedDict):
    resent: List[str]
    has_more: bool
