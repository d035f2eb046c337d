"""The official Python client of the video generation service (Python 3.11+, standard library only).

It retries what is safe to retry: GET, the creation routes with an Idempotency-Key made once per call and reused
across its retries, cancels; 429 and 503 on any route (the server did not act). It follows Retry-After (seconds or an
HTTP date, each wait capped), and otherwise backs off exponentially with full jitter; every attempt has a timeout and
every call a deadline. Errors are typed by status. `AsyncVideoClient` (video_client.aio) offers the same for asyncio.
"""
from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Union, cast

from .models import (
    Asset,
    AssetContentType,
    AssetCreated,
    AssetList,
    Balance,
    BalanceLowEvent,
    Created,
    DeliveryList,
    Order,
    OrderList,
    Quote,
    ResendResult,
    Transaction,
    TransactionList,
    WebhookCreated,
    WebhookList,
    WebhookRotated,
    WebhookTestResult,
)

__all__ = [
    "VideoClient",
    "ApiError",
    "AuthenticationError",
    "InsufficientFundsError",
    "NotFoundError",
    "ConflictError",
    "InvalidParamsError",
    "RateLimitError",
    "UnexpectedResponseError",
    "WebhookVerificationError",
    "verify_webhook",
    "unwrap",
    "unwrap_event",
    "retry_after_seconds",
    "UploadError",
    "sniff_image_type",
]

Json = dict[str, Any]
_FINAL = ("done", "error", "awaiting_review")


class ApiError(Exception):
    """An answer in the error envelope: `code` is the contract's error code."""

    def __init__(self, status: int, code: str, message: str, request_id: Optional[str] = None, retry_after: Optional[float] = None):
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after


class AuthenticationError(ApiError):
    """401: the key is missing, wrong or revoked."""


class InsufficientFundsError(ApiError):
    """402: the balance does not cover the order."""


class NotFoundError(ApiError):
    """404 and 403: no such thing, or another key's."""


class ConflictError(ApiError):
    """409: the order (or quote, or event) is not in a state that allows this."""


class InvalidParamsError(ApiError):
    """422: a field is invalid; the message names it."""


class RateLimitError(ApiError):
    """429: a limit of the key (or, as UnexpectedResponseError, a gateway's throttling)."""


class UnexpectedResponseError(ApiError):
    """An answer that is not the service's envelope (a proxy's or API Gateway's own): its status and the body's start."""


class UploadError(Exception):
    """The storage refused an asset's upload (its XML error code, such as SignatureDoesNotMatch or AccessDenied)."""

    def __init__(self, status: int, code: Optional[str]):
        super().__init__(f"The upload was refused: HTTP {status}" + (f" {code}" if code else ""))
        self.status = status
        self.code = code


def sniff_image_type(data: bytes) -> Optional[AssetContentType]:
    """The picture type of these bytes by their signature (PNG, JPEG, WebP), or None."""
    if data[:4] == b"\x89PNG":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


class WebhookVerificationError(Exception):
    """A webhook delivery whose signature does not match, or that is not an order event."""


_KINDS: dict[int, type[ApiError]] = {401: AuthenticationError, 402: InsufficientFundsError, 403: NotFoundError, 404: NotFoundError, 409: ConflictError, 422: InvalidParamsError, 429: RateLimitError}


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds of a Retry-After value: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, float(int(at - (now if now is not None else time.time()) + 0.999)))


def _error_of(status: int, headers: Mapping[str, str], text: str) -> ApiError:
    retry_after = retry_after_seconds(headers.get("Retry-After"))
    try:
        envelope = json.loads(text).get("error")
    except (ValueError, AttributeError):
        envelope = None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("code"), str):
        code = "rate_limited" if status == 429 else "service_unavailable" if status >= 500 else "bad_request"
        return UnexpectedResponseError(status, code, f"HTTP {status} without the error envelope: {text[:200]}", None, retry_after)
    kind = _KINDS.get(status, ApiError)
    return kind(status, envelope["code"], envelope.get("message", f"HTTP {status}"), envelope.get("request_id") or headers.get("X-Request-Id"), retry_after)


class _Deadline(Exception):
    pass


class VideoClient:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        max_retries: int = 4,
        base_delay: float = 0.5,
        timeout: float = 30.0,
        deadline: float = 120.0,
        max_retry_after: float = 60.0,
        on_retry: Optional[Callable[[int, float, str], None]] = None,
    ) -> None:
        """`base_url` includes /v1, e.g. http://localhost:3000/v1. `timeout`: seconds per attempt; `deadline`: seconds
        per call with its retries; `max_retry_after`: the longest Retry-After waited (a longer one raises the error).
        `on_retry(attempt, delay_seconds, reason)` is called before each retry."""
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.timeout = timeout
        self.deadline = deadline
        self.max_retry_after = max_retry_after
        self.on_retry = on_retry

    def with_options(self, **overrides: Any) -> "VideoClient":
        """A copy of this client with some settings changed for the calls made through it, e.g.
        `client.with_options(timeout=5, deadline=10).get_video(id)`."""
        settings = {k: getattr(self, k) for k in ("base_url", "api_key", "max_retries", "base_delay", "timeout", "deadline", "max_retry_after", "on_retry")}
        unknown = set(overrides) - set(settings)
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        return VideoClient(**{**settings, **overrides})

    def create_quick(self, prompt: Union[str, Json], idempotency_key: Optional[str] = None, **options: Any) -> Created:
        """Orders from a one-line prompt; options: quote_id, max_cost, deadline_seconds, metadata (a dict of strings)."""
        body = {"prompt": prompt, **options} if isinstance(prompt, str) else {**prompt, **options}
        return self._created("POST", "/videos:quick", body, idempotency_key or str(uuid.uuid4()))

    def create_video(self, params: Json, idempotency_key: Optional[str] = None) -> Created:
        return self._created("POST", "/videos", params, idempotency_key or str(uuid.uuid4()))

    def quote(self, request: Json) -> Quote:
        """The price of an order (the body of create_video or of create_quick) and a quote_id holding it 15 minutes."""
        return cast(Quote, self._request("POST", "/videos:quote", request))

    def get_video(self, video_id: str) -> Order:
        return cast(Order, self._request("GET", f"/videos/{_q(video_id)}"))

    def list_videos_page(self, **query: Any) -> OrderList:
        """One page: limit, starting_after, status, created_gte, created_lt, metadata (one pair, a dict)."""
        return cast(OrderList, self._request("GET", "/videos" + _query(query)))

    def list_videos(self, **query: Any) -> Iterator[Order]:
        """Every order of the key matching the query, newest first, following the cursor."""
        yield from _pages(self.list_videos_page, query)

    def cancel(self, video_id: str) -> Order:
        """Cancels a queued or awaiting_review order: it ends in error `canceled`, fully refunded. Safe to repeat."""
        return cast(Order, self._request("POST", f"/videos/{_q(video_id)}/cancel", repeatable=True))

    def review(self, video_id: str, decision: Json) -> Order:
        return cast(Order, self._request("POST", f"/videos/{_q(video_id)}/review", decision))

    def get_balance(self) -> Balance:
        return cast(Balance, self._request("GET", "/balance"))

    def set_balance_alert(self, below: Optional[int]) -> Balance:
        """Sets the key's low-balance threshold (and arms it): the next charge that leaves the balance below `below`
        sends one `balance.low` event to the webhook; None removes it. Answers the balance as get_balance does."""
        return cast(Balance, self._request("POST", "/balance/alerts", {"below": below}, repeatable=True))

    def list_transactions_page(self, **query: Any) -> TransactionList:
        """One page of the ledger: limit, starting_after."""
        return cast(TransactionList, self._request("GET", "/balance/transactions" + _query(query)))

    def list_transactions(self, **query: Any) -> Iterator[Transaction]:
        """Every ledger entry of the key, newest first, following the cursor."""
        yield from _pages(self.list_transactions_page, query)

    def create_webhook(self, url: str) -> WebhookCreated:
        return cast(WebhookCreated, self._request("POST", "/webhooks", {"url": url}))

    def list_webhooks(self) -> WebhookList:
        return cast(WebhookList, self._request("GET", "/webhooks"))

    def delete_webhook(self, webhook_id: str) -> None:
        self._request("DELETE", f"/webhooks/{_q(webhook_id)}")

    def list_deliveries(self, webhook_id: str) -> DeliveryList:
        return cast(DeliveryList, self._request("GET", f"/webhooks/{_q(webhook_id)}/deliveries"))

    def rotate_webhook_secret(self, webhook_id: str, overlap_seconds: Optional[int] = None) -> WebhookRotated:
        body = {} if overlap_seconds is None else {"overlap_seconds": overlap_seconds}
        return cast(WebhookRotated, self._request("POST", f"/webhooks/{_q(webhook_id)}/rotate", body))

    def test_webhook(self, webhook_id: str) -> WebhookTestResult:
        return cast(WebhookTestResult, self._request("POST", f"/webhooks/{_q(webhook_id)}/test"))

    def resend_events(self, webhook_id: str, event_id: Optional[str] = None, since: Optional[str] = None) -> ResendResult:
        """Delivers again one event (`event_id`) or every event dropped since a time (`since`, ISO 8601)."""
        if (event_id is None) == (since is None):
            raise ValueError("give event_id or since")
        body = {"event_id": event_id} if event_id is not None else {"since": since}
        return cast(ResendResult, self._request("POST", f"/webhooks/{_q(webhook_id)}/resend", body))

    def create_asset(self, content_type: AssetContentType, size_bytes: int) -> AssetCreated:
        """Declares a picture (PNG, JPEG or WebP, up to 10 MiB): the asset and the presigned URL to PUT its bytes to."""
        return cast(AssetCreated, self._request("POST", "/assets", {"kind": "image", "content_type": content_type, "size_bytes": size_bytes}))

    def upload_asset(self, file: Union[str, bytes], content_type: Optional[AssetContentType] = None) -> AssetCreated:
        """Uploads a picture (a path or its bytes): POST /assets, then the PUT of the bytes to its presigned URL (no key;
        the declared type and exact length only, with every header the answer lists). The type is read from the bytes
        unless given. Name the answer's `id` in an order (`placement.image`, `logo`). Raises UploadError when the
        storage refuses the PUT."""
        if isinstance(file, str):
            with open(file, "rb") as f:
                file = f.read()
        kind = content_type or sniff_image_type(file)
        if kind is None:
            raise ValueError("not a PNG, JPEG or WebP picture: pass its content_type if it is one")
        asset = self.create_asset(kind, len(file))
        upload = asset["upload"]
        # The headers the URL was signed with: Content-Type, Content-Length, If-None-Match (it only creates).
        req = urllib.request.Request(upload["url"], data=file, headers=dict(upload["headers"]), method=upload["method"])
        try:
            with urllib.request.urlopen(req, timeout=self.timeout * 4) as res:
                res.read()
        except urllib.error.HTTPError as err:
            code = re.search(r"<Code>([^<]+)</Code>", err.read().decode(errors="replace"))
            raise UploadError(err.code, code.group(1) if code else None) from None
        return asset

    def get_asset(self, asset_id: str) -> Asset:
        return cast(Asset, self._request("GET", f"/assets/{_q(asset_id)}"))

    def list_assets_page(self, **query: Any) -> AssetList:
        """One page of the key's assets, newest first: limit, starting_after."""
        return cast(AssetList, self._request("GET", "/assets" + _query(query)))

    def list_assets(self, **query: Any) -> Iterator[Asset]:
        """Every asset of the key, newest first, following the cursor."""
        yield from _pages(self.list_assets_page, query)

    def delete_asset(self, asset_id: str) -> None:
        """Deletes the asset and its bytes (orders made before keep their copies)."""
        self._request("DELETE", f"/assets/{_q(asset_id)}")

    def wait_for_video(self, video_id: str, timeout: float = 900.0, interval: Optional[float] = None, on_progress: Optional[Callable[[Order], None]] = None) -> Order:
        """Polls until the order is done, in error or awaiting review, waiting the server's Retry-After hint (or
        `interval`) between polls; raises TimeoutError when `timeout` passes first."""
        end = time.monotonic() + timeout
        while True:
            order, headers = self._send("GET", f"/videos/{_q(video_id)}")
            if on_progress:
                on_progress(order)
            if order["status"] in _FINAL:
                return cast(Order, order)
            if time.monotonic() >= end:
                raise TimeoutError(f"order {video_id} is still {order['status']} after {timeout} s")
            hint = retry_after_seconds(headers.get("Retry-After"))
            gap = interval if interval is not None else hint if hint is not None else 2.0
            time.sleep(min(gap, max(0.0, end - time.monotonic())))

    def _created(self, method: str, path: str, body: Json, idempotency_key: str) -> Created:
        answer, headers = self._send(method, path, body, idempotency_key)
        return cast(Created, {**answer, "replayed": headers.get("Idempotent-Replayed") == "true"})

    def _request(self, method: str, path: str, body: Optional[Json] = None, idempotency_key: Optional[str] = None, repeatable: bool = False) -> Any:
        return self._send(method, path, body, idempotency_key, repeatable)[0]

    def _send(self, method: str, path: str, body: Optional[Json] = None, idempotency_key: Optional[str] = None, repeatable: bool = False) -> tuple[Any, Mapping[str, str]]:
        headers = {"X-API-Key": self.api_key, "Accept": "application/json"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        elif method == "POST":
            data = b""
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        repeatable = repeatable or method == "GET" or idempotency_key is not None
        deadline = time.monotonic() + self.deadline
        attempt = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{method} {path}: no answer within the call's deadline of {self.deadline} s")
            req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=min(self.timeout, left)) as res:
                    text = res.read().decode()
                    return (json.loads(text) if text else None), res.headers
            except urllib.error.HTTPError as err:
                error = _error_of(err.code, err.headers, err.read().decode(errors="replace"))
                retry = err.code in (429, 503) or (err.code >= 500 and repeatable)
                too_long = error.retry_after is not None and error.retry_after > self.max_retry_after
                if not retry or too_long or attempt >= self.max_retries:
                    raise error from None
                self._wait(attempt, error.retry_after, f"{err.code} {error.code}", deadline)
            except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
                # No answer: the request may or may not have been acted on.
                if not repeatable or attempt >= self.max_retries:
                    raise
                self._wait(attempt, None, f"no answer ({err})", deadline)
            attempt += 1

    def _wait(self, attempt: int, retry_after: Optional[float], reason: str, deadline: float) -> None:
        delay = retry_after if retry_after is not None else random.uniform(0, self.base_delay * 2**attempt)
        if time.monotonic() + delay >= deadline:
            raise TimeoutError(f"gave up: the wait after {reason} would pass the call's deadline")
        if self.on_retry:
            self.on_retry(attempt + 1, delay, reason)
        time.sleep(delay)


def _pages(fetch: Callable[..., Any], query: Mapping[str, Any]) -> Iterator[Any]:
    """Every item of a cursor-paged list, fetched a page at a time."""
    cursor: Optional[str] = None
    while True:
        page = fetch(**{**query, **({"starting_after": cursor} if cursor else {})})
        yield from page["data"]
        if not page.get("has_more") or not page.get("next_starting_after"):
            return
        cursor = page["next_starting_after"]


def _q(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def _query(query: Mapping[str, Any]) -> str:
    """A query string; a dict member as name[KEY]=VALUE (the API's deepObject style)."""
    present: Dict[str, str] = {}
    for k, v in query.items():
        if isinstance(v, Mapping):
            present.update({f"{k}[{sub}]": str(s) for sub, s in v.items()})
        elif v is not None:
            present[k] = str(v)
    return "?" + urllib.parse.urlencode(present) if present else ""


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value[0] if isinstance(value, (list, tuple)) else str(value)
    return None


def unwrap(raw_body: Union[bytes, str], headers: Mapping[str, Any], secret: str) -> tuple[str, str, Order]:
    """A webhook delivery checked and read: (event, event id, the typed order). The signature is verified on the raw
    bytes (X-Service-Signature, or its Previous during a secret rotation's overlap) before parsing; raises
    WebhookVerificationError otherwise. `headers` as any mapping gives them (case does not matter)."""
    event, event_id, body = unwrap_event(raw_body, headers, secret)
    if event == "balance.low":
        raise WebhookVerificationError("not an order event: balance.low (read it with unwrap_event)")
    return event, event_id, cast(Order, body)


def unwrap_event(raw_body: Union[bytes, str], headers: Mapping[str, Any], secret: str) -> tuple[str, str, Union[Order, BalanceLowEvent]]:
    """Any webhook event checked and read as unwrap does: (event, event id, body); an order event's body is the
    order, balance.low's a BalanceLowEvent."""
    signatures = [_header(headers, "X-Service-Signature"), _header(headers, "X-Service-Signature-Previous")]
    if not any(verify_webhook(raw_body, s, secret) for s in signatures):
        raise WebhookVerificationError("the webhook signature does not match this secret")
    event = _header(headers, "X-Service-Event") or ""
    if not event.startswith("video.") and event != "balance.low":
        raise WebhookVerificationError(f"not an order event nor balance.low: {event or 'no X-Service-Event'}")
    text = raw_body.decode() if isinstance(raw_body, bytes) else raw_body
    return event, _header(headers, "X-Service-Event-Id") or "", json.loads(text)


def verify_webhook(raw_body: Union[bytes, str], signature: Optional[str], secret: str) -> bool:
    """Checks X-Service-Signature: the lowercase hex HMAC-SHA256 of the raw body bytes under the webhook secret.
    Call it on the bytes as received, before parsing them."""
    if not signature or not re.fullmatch(r"[0-9a-f]{64}", signature):
        return False
    body = raw_body.encode() if isinstance(raw_body, str) else raw_body
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
