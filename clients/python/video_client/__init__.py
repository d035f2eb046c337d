"""The official Python client of the video generation service (Python 3.11+, standard library only).

It retries what is safe to retry: GET, the creation routes with an Idempotency-Key made once per call and reused
across its retries, cancels; 429 and 503 on any route (the server did not act). It follows Retry-After (seconds or an
HTTP date, each wait capped, plus 0 to 10% jitter), and otherwise backs off exponentially with full jitter; every
attempt has a timeout and every call a deadline, both settable per call (`timeout=`, `deadline=`, keyword-only).
Every failure is one of the client's own classes: ApiError and its subclasses by status for answers (flagged `gave_up`
when a retryable answer was not retried), APIConnectionError and APITimeoutError when no answer came, WaitTimeoutError
(with the last order) when wait_for_video runs out of time. Request bodies and answers are typed (video_client.models).
`AsyncVideoClient` (video_client.aio) offers the same calls for asyncio. `unwrap_event` checks and reads webhook
deliveries (Standard Webhooks signature, replay window, rotated secrets) into a typed union of events.
"""
from __future__ import annotations

import base64
import binascii
import email.utils
import hashlib
import hmac
import http.client
import json
import math
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, Optional, Protocol, Sequence, Union, cast

from .models import (
    Asset,
    AssetContentType,
    AssetCreated,
    AssetList,
    Balance,
    BalanceLowEvent,
    CreateVideoRequest,
    Created,
    DeliveryList,
    ErrorCode,
    Order,
    OrderList,
    OrderStatus,
    Quote,
    QuickVideoRequest,
    QuoteRequest,
    ResendResult,
    ReviewRequest,
    Transaction,
    TransactionList,
    WebhookCreated,
    WebhookList,
    WebhookRotated,
    WebhookTestEvent,
    WebhookTestResult,
)

__version__ = "0.2.0"

__all__ = [
    "VideoClient",
    "VideoClientError",
    "ApiError",
    "AuthenticationError",
    "InsufficientFundsError",
    "NotFoundError",
    "PermissionDeniedError",
    "ConflictError",
    "InvalidParamsError",
    "RateLimitError",
    "UnexpectedResponseError",
    "APIConnectionError",
    "APITimeoutError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "WebhookReplayError",
    "UnexpectedEventError",
    "OrderEvent",
    "BalanceEvent",
    "PingEvent",
    "UnknownEvent",
    "WebhookEvent",
    "OrderEventType",
    "verify_webhook",
    "unwrap",
    "unwrap_event",
    "retry_after_seconds",
    "UploadError",
    "sniff_image_type",
    "__version__",
]

_FINAL = ("done", "error", "awaiting_review")


class VideoClientError(Exception):
    """The base of every error the client raises for a call (answers, connections, timeouts, waits)."""


class ApiError(VideoClientError):
    """An answer in the error envelope: `code` is the contract's error code (ErrorCode; v1 may add codes).

    `gave_up` is True when the answer was one the client retries (429, 503, a 5xx of a repeatable call) but it stopped:
    its Retry-After was longer than `max_retry_after`, the next wait would pass the call's deadline, or the retries ran
    out; `gave_up_reason` says which. `retry_after` (seconds) and `request_id` are the last answer's."""

    def __init__(self, status: int, code: str, message: str, request_id: Optional[str] = None, retry_after: Optional[float] = None):
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code: ErrorCode = cast(ErrorCode, code)
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after
        self.gave_up = False
        self.gave_up_reason: Optional[str] = None



class AuthenticationError(ApiError):
    """401: the key is missing, wrong or revoked."""


class InsufficientFundsError(ApiError):
    """402: the balance does not cover the order."""


class NotFoundError(ApiError):
    """404: no such thing (and 403, as PermissionDeniedError, a subclass: another key's)."""


class PermissionDeniedError(NotFoundError):
    """403 `forbidden`: the thing exists but is another key's. A NotFoundError too, as 403 was before 0.2."""


class ConflictError(ApiError):
    """409: the order (or quote, or event) is not in a state that allows this."""


class InvalidParamsError(ApiError):
    """422: a field is invalid; the message names it."""


class RateLimitError(ApiError):
    """429: a limit of the key (or, as UnexpectedResponseError, a gateway's throttling)."""


class UnexpectedResponseError(ApiError):
    """An answer that is not the service's envelope (a proxy's or API Gateway's own): its status and the body's start."""


class APIConnectionError(VideoClientError):
    """No answer came: the connection was refused, reset or dropped, the name did not resolve, TLS failed. The request
    may or may not have been acted on (the client retried it only when that was safe). `cause` is the underlying error."""

    def __init__(self, message: str, cause: Optional[BaseException] = None):
        super().__init__(message)
        self.cause = cause


class APITimeoutError(APIConnectionError, TimeoutError):
    """No answer within the attempt's `timeout`, or the call's `deadline` passed. A TimeoutError too."""


class WaitTimeoutError(VideoClientError, TimeoutError):
    """wait_for_video's `timeout` passed before the order ended: `order` is the last one read. A TimeoutError too."""

    def __init__(self, message: str, order: Order):
        super().__init__(message)
        self.order = order


class UploadError(VideoClientError):
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


_KINDS: dict[int, type[ApiError]] = {
    401: AuthenticationError,
    402: InsufficientFundsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: InvalidParamsError,
    429: RateLimitError,
}


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


def _gave_up(error: ApiError, reason: str) -> ApiError:
    error.gave_up = True
    error.gave_up_reason = reason
    return error


def _error_of(status: int, retry_after_header: Optional[str], request_id_header: Optional[str], text: str) -> ApiError:
    retry_after = retry_after_seconds(retry_after_header)
    envelope: Any
    try:
        envelope = json.loads(text).get("error")
    except (ValueError, AttributeError):
        envelope = None
    if not isinstance(envelope, dict) or not isinstance(cast(Mapping[str, Any], envelope).get("code"), str):
        code = "rate_limited" if status == 429 else "service_unavailable" if status >= 500 else "bad_request"
        return UnexpectedResponseError(status, code, f"HTTP {status} without the error envelope: {text[:200]}", request_id_header, retry_after)
    found = cast(Mapping[str, Any], envelope)
    kind = _KINDS.get(status, ApiError)
    return kind(status, found["code"], str(found.get("message", f"HTTP {status}")), found.get("request_id") or request_id_header, retry_after)


def _body_of(err: urllib.error.HTTPError) -> str:
    """An error answer's body; empty when it was cut off (a timeout or a reset while reading it): its status tells."""
    try:
        return err.read().decode(errors="replace")
    except (http.client.HTTPException, OSError):
        return ""


def _no_answer(method: str, path: str, err: BaseException, timeout: float) -> APIConnectionError:
    """The client's own error for a request that got no answer."""
    reason: object = err.reason if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, TimeoutError):
        return APITimeoutError(f"{method} {path}: no answer within {timeout:g} s", err)
    return APIConnectionError(f"{method} {path}: no answer: {reason}", err)


class VideoClient:
    """The service's API, one method per operation. Every method takes `timeout` (seconds per attempt) and `deadline`
    (seconds for the call with its retries) as keyword-only arguments, overriding the client's for that call."""

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
        per call with its retries; `max_retry_after`: the longest Retry-After waited (a longer one raises the error,
        flagged `gave_up`). `on_retry(attempt, delay_seconds, reason)` is called before each retry."""
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.timeout = timeout
        self.deadline = deadline
        self.max_retry_after = max_retry_after
        self.on_retry = on_retry

    def with_options(
        self,
        *,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        max_retries: Optional[int] = None,
        base_delay: Optional[float] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
        max_retry_after: Optional[float] = None,
        on_retry: Optional[Callable[[int, float, str], None]] = None,
    ) -> "VideoClient":
        """A copy of this client with some settings changed (those given), e.g.
        `client.with_options(timeout=5, deadline=10).get_video(id)`."""
        return VideoClient(
            base_url if base_url is not None else self.base_url,
            api_key if api_key is not None else self.api_key,
            max_retries=max_retries if max_retries is not None else self.max_retries,
            base_delay=base_delay if base_delay is not None else self.base_delay,
            timeout=timeout if timeout is not None else self.timeout,
            deadline=deadline if deadline is not None else self.deadline,
            max_retry_after=max_retry_after if max_retry_after is not None else self.max_retry_after,
            on_retry=on_retry if on_retry is not None else self.on_retry,
        )

    def create_quick(
        self,
        prompt: Union[str, QuickVideoRequest],
        idempotency_key: Optional[str] = None,
        *,
        logo: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        deadline_seconds: Optional[int] = None,
        quote_id: Optional[str] = None,
        max_cost: Optional[int] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> Created:
        """Orders from a one-line prompt (or a whole QuickVideoRequest); the options are the request's fields."""
        body: dict[str, object] = {"prompt": prompt} if isinstance(prompt, str) else dict(prompt)
        options = {"logo": logo, "metadata": metadata, "deadline_seconds": deadline_seconds, "quote_id": quote_id, "max_cost": max_cost}
        body.update({k: v for k, v in options.items() if v is not None})
        return self._created("POST", "/videos:quick", body, idempotency_key or str(uuid.uuid4()), timeout, deadline)

    def create_video(self, params: CreateVideoRequest, idempotency_key: Optional[str] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Created:
        """Orders a video with every parameter given (CreateVideoRequest: `topic` and the optional fields)."""
        return self._created("POST", "/videos", params, idempotency_key or str(uuid.uuid4()), timeout, deadline)

    def quote(self, request: QuoteRequest, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Quote:
        """The price of an order (the body of create_video or of create_quick) and a quote_id holding it 15 minutes."""
        return cast(Quote, self._request("POST", "/videos:quote", request, timeout=timeout, deadline=deadline))

    def get_video(self, video_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        return cast(Order, self._request("GET", f"/videos/{_q(video_id)}", timeout=timeout, deadline=deadline))

    def list_videos_page(
        self,
        *,
        limit: Optional[int] = None,
        starting_after: Optional[str] = None,
        status: Optional[OrderStatus] = None,
        created_gte: Optional[str] = None,
        created_lt: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> OrderList:
        """One page of the key's orders, newest first. `metadata`: one pair, e.g. {"crm": "42"}; the times ISO 8601."""
        query = {"limit": limit, "starting_after": starting_after, "status": status, "created_gte": created_gte, "created_lt": created_lt, "metadata": metadata}
        return cast(OrderList, self._request("GET", "/videos" + _query(query), timeout=timeout, deadline=deadline))

    def list_videos(
        self,
        *,
        limit: Optional[int] = None,
        status: Optional[OrderStatus] = None,
        created_gte: Optional[str] = None,
        created_lt: Optional[str] = None,
        metadata: Optional[Mapping[str, str]] = None,
        starting_after: Optional[str] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> Iterator[Order]:
        """Every order of the key matching the query, newest first, following the cursor (`limit` is the page size)."""
        yield from _pages(lambda cursor_: self.list_videos_page(limit=limit, starting_after=cursor_, status=status, created_gte=created_gte, created_lt=created_lt, metadata=metadata, timeout=timeout, deadline=deadline), starting_after)

    def cancel(self, video_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        """Cancels an order whose render has not started: it ends in error `canceled`, fully refunded. Safe to repeat."""
        return cast(Order, self._request("POST", f"/videos/{_q(video_id)}/cancel", repeatable=True, timeout=timeout, deadline=deadline))

    def review(self, video_id: str, decision: ReviewRequest, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        """Decides on the script of an order in `awaiting_review`: {"action": "approve"}, {"action": "edit", "text":
        ...} or {"action": "regen", "note": ...}."""
        return cast(Order, self._request("POST", f"/videos/{_q(video_id)}/review", decision, timeout=timeout, deadline=deadline))

    def get_balance(self, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Balance:
        return cast(Balance, self._request("GET", "/balance", timeout=timeout, deadline=deadline))

    def set_balance_alert(self, below: Optional[int], *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Balance:
        """Sets the key's low-balance threshold (and arms it): the next charge that leaves the balance below `below`
        sends one `balance.low` event to the webhook; None removes it. Answers the balance as get_balance does."""
        return cast(Balance, self._request("POST", "/balance/alerts", {"below": below}, repeatable=True, timeout=timeout, deadline=deadline))

    def list_transactions_page(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> TransactionList:
        """One page of the ledger, newest first."""
        query = {"limit": limit, "starting_after": starting_after}
        return cast(TransactionList, self._request("GET", "/balance/transactions" + _query(query), timeout=timeout, deadline=deadline))

    def list_transactions(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> Iterator[Transaction]:
        """Every ledger entry of the key, newest first, following the cursor."""
        yield from _pages(lambda cursor_: self.list_transactions_page(limit=limit, starting_after=cursor_, timeout=timeout, deadline=deadline), starting_after)

    def create_webhook(self, url: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookCreated:
        """Registers (or replaces) the key's webhook; the answer's `secret` is shown once: give it to unwrap_event."""
        return cast(WebhookCreated, self._request("POST", "/webhooks", {"url": url}, timeout=timeout, deadline=deadline))

    def list_webhooks(self, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookList:
        return cast(WebhookList, self._request("GET", "/webhooks", timeout=timeout, deadline=deadline))

    def delete_webhook(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> None:
        self._request("DELETE", f"/webhooks/{_q(webhook_id)}", timeout=timeout, deadline=deadline)

    def list_deliveries(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> DeliveryList:
        return cast(DeliveryList, self._request("GET", f"/webhooks/{_q(webhook_id)}/deliveries", timeout=timeout, deadline=deadline))

    def rotate_webhook_secret(
        self, webhook_id: str, overlap_seconds: Optional[int] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> WebhookRotated:
        """A new secret; the previous one keeps signing beside it for `overlap_seconds` (default a day): give
        unwrap_event both secrets meanwhile."""
        body = {} if overlap_seconds is None else {"overlap_seconds": overlap_seconds}
        return cast(WebhookRotated, self._request("POST", f"/webhooks/{_q(webhook_id)}/rotate", body, timeout=timeout, deadline=deadline))

    def test_webhook(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookTestResult:
        """One signed `webhook.test` delivery now; whether the receiver took it (unwrap_event reads it as a PingEvent)."""
        return cast(WebhookTestResult, self._request("POST", f"/webhooks/{_q(webhook_id)}/test", timeout=timeout, deadline=deadline))

    def resend_events(
        self,
        webhook_id: str,
        event_id: Optional[str] = None,
        since: Optional[str] = None,
        *,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> ResendResult:
        """Delivers again one event (`event_id`) or every event dropped since a time (`since`, ISO 8601)."""
        if (event_id is None) == (since is None):
            raise ValueError("give event_id or since")
        body: dict[str, object] = {"event_id": event_id} if event_id is not None else {"since": since}
        return cast(ResendResult, self._request("POST", f"/webhooks/{_q(webhook_id)}/resend", body, timeout=timeout, deadline=deadline))

    def create_asset(self, content_type: AssetContentType, size_bytes: int, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> AssetCreated:
        """Declares a picture (PNG, JPEG or WebP, up to 10 MiB): the asset and the presigned URL to PUT its bytes to."""
        body = {"kind": "image", "content_type": content_type, "size_bytes": size_bytes}
        return cast(AssetCreated, self._request("POST", "/assets", body, timeout=timeout, deadline=deadline))

    def upload_asset(
        self, file: Union[str, bytes], content_type: Optional[AssetContentType] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AssetCreated:
        """Uploads a picture (a path or its bytes): POST /assets, then the PUT of the bytes to its presigned URL (no key;
        the declared type and exact length only, with every header the answer lists). The type is read from the bytes
        unless given. Name the answer's `id` in an order (`placement.image`, `logo`). Raises UploadError when the
        storage refuses the PUT, APIConnectionError when it does not answer."""
        if isinstance(file, str):
            with open(file, "rb") as f:
                file = f.read()
        kind = content_type or sniff_image_type(file)
        if kind is None:
            raise ValueError("not a PNG, JPEG or WebP picture: pass its content_type if it is one")
        asset = self.create_asset(kind, len(file), timeout=timeout, deadline=deadline)
        upload = asset["upload"]
        # The headers the URL was signed with: Content-Type, Content-Length, If-None-Match (it only creates).
        req = urllib.request.Request(upload["url"], data=file, headers=dict(upload["headers"]), method=upload["method"])
        limit = (timeout if timeout is not None else self.timeout) * 4
        try:
            with urllib.request.urlopen(req, timeout=limit) as res:
                res.read()
        except urllib.error.HTTPError as err:
            code = re.search(r"<Code>([^<]+)</Code>", _body_of(err))
            raise UploadError(err.code, code.group(1) if code else None) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            raise _no_answer("PUT", "(the asset's upload URL)", err, limit) from err
        return asset

    def get_asset(self, asset_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Asset:
        return cast(Asset, self._request("GET", f"/assets/{_q(asset_id)}", timeout=timeout, deadline=deadline))

    def list_assets_page(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AssetList:
        """One page of the key's assets, newest first."""
        query = {"limit": limit, "starting_after": starting_after}
        return cast(AssetList, self._request("GET", "/assets" + _query(query), timeout=timeout, deadline=deadline))

    def list_assets(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> Iterator[Asset]:
        """Every asset of the key, newest first, following the cursor."""
        yield from _pages(lambda cursor_: self.list_assets_page(limit=limit, starting_after=cursor_, timeout=timeout, deadline=deadline), starting_after)

    def delete_asset(self, asset_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> None:
        """Deletes the asset and its bytes (orders made before keep their copies)."""
        self._request("DELETE", f"/assets/{_q(asset_id)}", timeout=timeout, deadline=deadline)

    def wait_for_video(
        self, video_id: str, timeout: float = 900.0, interval: Optional[float] = None, on_progress: Optional[Callable[[Order], None]] = None
    ) -> Order:
        """Polls until the order is done, in error or awaiting review, waiting the server's Retry-After hint (or
        `interval`) between polls; raises WaitTimeoutError (a TimeoutError, with the last order read as `order`) when
        `timeout` (seconds for the whole wait) passes first."""
        end = time.monotonic() + timeout
        while True:
            answer, headers = self._send("GET", f"/videos/{_q(video_id)}")
            order = cast(Order, answer)
            if on_progress:
                on_progress(order)
            if order["status"] in _FINAL:
                return order
            if time.monotonic() >= end:
                raise WaitTimeoutError(f"order {video_id} is still {order['status']} after {timeout} s", order)
            time.sleep(min(_poll_gap(interval, headers), max(0.0, end - time.monotonic())))

    def _created(self, method: str, path: str, body: Mapping[str, Any], idempotency_key: str, timeout: Optional[float], deadline: Optional[float]) -> Created:
        answer, headers = self._send(method, path, body, idempotency_key, timeout=timeout, deadline=deadline)
        return cast(Created, {**answer, "replayed": headers.get("Idempotent-Replayed") == "true"})

    def _request(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        repeatable: bool = False,
        *,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> Any:
        return self._send(method, path, body, idempotency_key, repeatable, timeout=timeout, deadline=deadline)[0]

    def _send(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        repeatable: bool = False,
        *,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> tuple[Any, Mapping[str, str]]:
        headers = {"X-API-Key": self.api_key, "Accept": "application/json", "User-Agent": f"video-client-python/{__version__}"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        elif method == "POST":
            data = b""
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        repeatable = repeatable or method == "GET" or idempotency_key is not None
        per_attempt = self.timeout if timeout is None else timeout
        allowed = self.deadline if deadline is None else deadline
        end = time.monotonic() + allowed
        attempt = 0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise APITimeoutError(f"{method} {path}: no answer within the call's deadline of {allowed:g} s")
            req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            limit = min(per_attempt, left)
            try:
                with urllib.request.urlopen(req, timeout=limit) as res:
                    text = res.read().decode(errors="replace")
                    try:
                        return (json.loads(text) if text else None), res.headers
                    except ValueError:
                        # A success that is not JSON: a proxy's or a captive portal's page, not the service.
                        raise UnexpectedResponseError(res.status, "internal_error", f"HTTP {res.status} not JSON: {text[:200]}", res.headers.get("X-Request-Id")) from None
            except urllib.error.HTTPError as err:
                error = _error_of(err.code, err.headers.get("Retry-After"), err.headers.get("X-Request-Id"), _body_of(err))
                if not (err.code in (429, 503) or (err.code >= 500 and repeatable)):
                    raise error from None
                if error.retry_after is not None and error.retry_after > self.max_retry_after:
                    raise _gave_up(error, f"its Retry-After ({error.retry_after:g} s) is longer than max_retry_after ({self.max_retry_after:g} s)") from None
                if attempt >= self.max_retries:
                    raise _gave_up(error, f"no retries left after {attempt + 1} attempts") from None
                delay = self._delay(attempt, error.retry_after)
                if time.monotonic() + delay >= end:
                    raise _gave_up(error, f"the wait of {delay:.1f} s would pass the call's deadline of {allowed:g} s") from None
                self._sleep(attempt, delay, f"{err.code} {error.code}")
            except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
                # No answer: the request may or may not have been acted on.
                failure = _no_answer(method, path, err, limit)
                if not repeatable or attempt >= self.max_retries:
                    raise failure from err
                delay = self._delay(attempt, None)
                if time.monotonic() + delay >= end:
                    raise failure from err
                self._sleep(attempt, delay, f"no answer ({err})")
            attempt += 1

    def _delay(self, attempt: int, retry_after: Optional[float]) -> float:
        """Retry-After plus 0 to 10% (so clients told the same second do not return together), or full jitter."""
        if retry_after is not None:
            return retry_after * (1 + random.uniform(0, 0.1))
        return random.uniform(0, self.base_delay * 2**attempt)

    def _sleep(self, attempt: int, delay: float, reason: str) -> None:
        if self.on_retry:
            self.on_retry(attempt + 1, delay, reason)
        time.sleep(delay)


def _poll_gap(interval: Optional[float], headers: Mapping[str, str]) -> float:
    if interval is not None:
        return interval
    hint = retry_after_seconds(headers.get("Retry-After"))
    return hint if hint is not None else 2.0


def _next_cursor(has_more: bool, cursor: Optional[str]) -> Optional[str]:
    return cursor if has_more and cursor else None


def _pages(fetch: Callable[[Optional[str]], Any], first: Optional[str]) -> Iterator[Any]:
    """Every item of a cursor-paged list from `first`, fetched a page (`fetch(cursor)`) at a time."""
    cursor = first
    while True:
        page = fetch(cursor)
        yield from page["data"]
        cursor = _next_cursor(page["has_more"], page.get("next_starting_after"))
        if cursor is None:
            return


def _q(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def _query(query: Mapping[str, object]) -> str:
    """A query string; a dict member as name[KEY]=VALUE (the API's deepObject style)."""
    present: dict[str, str] = {}
    for k, v in query.items():
        if isinstance(v, Mapping):
            present.update({f"{k}[{sub}]": str(s) for sub, s in cast(Mapping[str, object], v).items()})
        elif v is not None:
            present[k] = str(v)
    return "?" + urllib.parse.urlencode(present) if present else ""


# --- Webhooks -------------------------------------------------------------------------------------------------------


class HeadersLike(Protocol):
    """Anything with items() of (name, value): a dict, http.server's self.headers, a framework's headers."""

    def items(self) -> Iterable[tuple[str, Any]]: ...


OrderEventType = Literal["video.awaiting_review", "video.done", "video.error"]
"""The order events: their body is the order, as GET /videos/{id} answers it."""
_ORDER_EVENTS: tuple[OrderEventType, ...] = ("video.awaiting_review", "video.done", "video.error")


@dataclass(frozen=True)
class OrderEvent:
    """`video.awaiting_review`, `video.done` or `video.error`: `body` is the order. `id` is the event id (webhook-id:
    the same on every attempt and resend; deduplicate on it); `timestamp` the attempt's webhook-timestamp (unix s)."""

    type: OrderEventType
    id: str
    body: Order
    timestamp: Optional[int] = None


@dataclass(frozen=True)
class BalanceEvent:
    """`balance.low`: a charge left the balance below the key's threshold; `body` is the BalanceLowEvent."""

    type: Literal["balance.low"]
    id: str
    body: BalanceLowEvent
    timestamp: Optional[int] = None


@dataclass(frozen=True)
class PingEvent:
    """`webhook.test`: the delivery POST /webhooks/{id}/test (VideoClient.test_webhook) sends; answer it 2xx."""

    type: Literal["webhook.test"]
    id: str
    body: WebhookTestEvent
    timestamp: Optional[int] = None


@dataclass(frozen=True)
class UnknownEvent:
    """An event this version of the client does not know (v1 may add some), correctly signed: `body` is its parsed JSON
    (or its text when it is not JSON). Answer it 2xx so it is not retried, and ignore it or log it."""

    type: str
    id: str
    body: object
    timestamp: Optional[int] = None


WebhookEvent = Union[OrderEvent, BalanceEvent, PingEvent, UnknownEvent]
"""What unwrap_event returns: tell them apart with isinstance (or `match`), then read `body`, which is typed."""


class WebhookVerificationError(Exception):
    """A delivery that is not signed with this secret (forged, altered, or the secret is wrong), or that lacks the
    Standard Webhooks headers when the body-only signature was not allowed. Answer it 400 or 401."""


class WebhookReplayError(WebhookVerificationError):
    """A correctly signed delivery whose webhook-timestamp is further from now than the tolerance: a replayed capture
    (or this host's clock is off). `timestamp` is the delivery's (unix seconds), `skew` its distance from now."""

    def __init__(self, message: str, timestamp: int, skew: float):
        super().__init__(message)
        self.timestamp = timestamp
        self.skew = skew


class UnexpectedEventError(Exception):
    """unwrap (the order-only helper) got a correctly signed event that is not an order event: `event` is it, verified.
    Not a WebhookVerificationError: answer it 2xx (or read every event with unwrap_event)."""

    def __init__(self, event: WebhookEvent):
        super().__init__(f"not an order event: {event.type} (read every event with unwrap_event)")
        self.event = event


def _header(headers: HeadersLike, name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name.lower():
            if isinstance(value, (list, tuple)):
                items = cast(Sequence[object], value)
                return str(items[0]) if items else None
            return str(value)
    return None


def _standard_key(secret: str) -> Optional[bytes]:
    """The HMAC key of a secret: its base64 after `whsec_` (standard, or url-safe as older webhooks' secrets are);
    None when it is not base64 or empty, so that one unreadable secret of a list never fails the others."""
    part = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    part = part.replace("-", "+").replace("_", "/")
    try:
        key = base64.b64decode(part + "=" * (-len(part) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return key or None


def _standard_signature_ok(body: bytes, message_id: str, timestamp: str, header: str, secrets: Sequence[str]) -> bool:
    given = [part[3:] for part in header.split() if part.startswith("v1,")]
    signed = f"{message_id}.{timestamp}.".encode() + body
    for secret in secrets:
        key = _standard_key(secret)
        if key is None:
            continue
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected.encode(), g.encode()) for g in given):
            return True
    return False


def unwrap_event(
    raw_body: Union[bytes, str],
    headers: HeadersLike,
    secret: Union[str, Sequence[str]],
    *,
    tolerance: float = 300.0,
    now: Optional[float] = None,
    allow_body_signature: bool = False,
) -> WebhookEvent:
    """A webhook delivery checked and read, on the raw bytes as received, before parsing.

    The Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 of
    "<id>.<timestamp>.<body>" under the secret) must match one of `secret` (a list during a rotation's overlap: the
    new secret and the previous one; the header carries one signature per secret in force), and the timestamp must be
    within `tolerance` seconds of `now` (default: the clock) either way: otherwise WebhookReplayError. Without those
    headers (a proxy that drops them), `allow_body_signature=True` accepts X-Service-Signature (or its Previous) alone:
    it signs the body only, so it cannot refuse a replay. Anything else raises WebhookVerificationError.

    Every correctly signed event is returned, never refused for its type: OrderEvent, BalanceEvent, PingEvent
    (webhook.test), or UnknownEvent for a type this client does not know. `headers` as any mapping gives them (case
    does not matter)."""
    body = raw_body.encode() if isinstance(raw_body, str) else raw_body
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise ValueError("no webhook secret given")
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance is a number of seconds, 0 or more: {tolerance}")
    message_id, stamp, signature = (_header(headers, n) for n in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    timestamp: Optional[int] = None
    if message_id and stamp and signature:
        if not _standard_signature_ok(body, message_id, stamp, signature, secrets):
            raise WebhookVerificationError("the webhook signature does not match this secret")
        if not re.fullmatch(r"\d{1,12}", stamp):
            raise WebhookVerificationError(f"unreadable webhook-timestamp: {stamp[:40]!r}")
        timestamp = int(stamp)
        skew = (now if now is not None else time.time()) - timestamp
        if abs(skew) > tolerance:
            when = "old" if skew > 0 else "ahead"
            raise WebhookReplayError(
                f"refused as a replay: the delivery is signed for {timestamp} (unix s), {abs(skew):.0f} s {when}, outside the tolerance of {tolerance:g} s", timestamp, skew
            )
    elif allow_body_signature and message_id is None and stamp is None and signature is None:
        # None of the Standard headers came (a proxy dropped them): only then the body-only signature, which signs no time.
        pair = [_header(headers, "X-Service-Signature"), _header(headers, "X-Service-Signature-Previous")]
        if not any(verify_webhook(body, s, k) for s in pair for k in secrets):
            raise WebhookVerificationError("the webhook signature does not match this secret")
    else:
        raise WebhookVerificationError(
            "no Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature headers); "
            "pass allow_body_signature=True to accept X-Service-Signature alone, without replay protection"
        )
    return _event_of(body, headers, message_id, timestamp)


def _event_of(body: bytes, headers: HeadersLike, message_id: Optional[str], timestamp: Optional[int]) -> WebhookEvent:
    text = body.decode("utf-8", errors="replace")
    data: object
    try:
        data = json.loads(text)
    except ValueError:
        data = text
    is_object = isinstance(data, dict)
    fields: Mapping[str, object] = cast(Mapping[str, object], data) if is_object else {}
    # The body's own `type` is signed; X-Service-Event is not, so the body's wins (order bodies have none).
    declared = fields.get("type")
    kind = declared if isinstance(declared, str) else _header(headers, "X-Service-Event") or ""
    status = fields.get("status")
    if not kind and declared is None and isinstance(status, str) and f"video.{status}" in _ORDER_EVENTS:
        kind = f"video.{status}"  # no X-Service-Event (a proxy dropped it): an order's event is named by its status
    fallback_id = fields.get("id")
    event_id = message_id or _header(headers, "X-Service-Event-Id") or (fallback_id if isinstance(fallback_id, str) else "")
    # X-Service-Event is not signed: an order event is one only when the signed order's status is the one it names,
    # and balance.low and webhook.test only when the signed body's own `type` says so.
    if is_object and declared is None and isinstance(status, str):
        for known in _ORDER_EVENTS:
            if kind == known and known == f"video.{status}":
                return OrderEvent(known, event_id, cast(Order, data), timestamp)
    if kind == "balance.low" and declared == kind:
        return BalanceEvent("balance.low", event_id, cast(BalanceLowEvent, data), timestamp)
    if kind == "webhook.test" and declared == kind:
        return PingEvent("webhook.test", event_id, cast(WebhookTestEvent, data), timestamp)
    return UnknownEvent(kind, event_id, data, timestamp)


def unwrap(
    raw_body: Union[bytes, str],
    headers: HeadersLike,
    secret: Union[str, Sequence[str]],
    *,
    tolerance: float = 300.0,
    now: Optional[float] = None,
    allow_body_signature: bool = False,
) -> tuple[str, str, Order]:
    """An order event checked as unwrap_event checks it: (event, event id, the typed order). A correctly signed event
    of another type raises UnexpectedEventError (carrying it), not WebhookVerificationError; prefer unwrap_event, which
    returns every event."""
    event = unwrap_event(raw_body, headers, secret, tolerance=tolerance, now=now, allow_body_signature=allow_body_signature)
    if not isinstance(event, OrderEvent):
        raise UnexpectedEventError(event)
    return event.type, event.id, event.body


def verify_webhook(raw_body: Union[bytes, str], signature: Optional[str], secret: str) -> bool:
    """Checks X-Service-Signature: the lowercase hex HMAC-SHA256 of the raw body bytes under the webhook secret.
    Call it on the bytes as received, before parsing them. It signs the body only: a captured delivery verifies
    forever, so prefer unwrap_event, which checks the timestamped Standard Webhooks signature."""
    if not signature or not re.fullmatch(r"[0-9a-f]{64}", signature):
        return False
    body = raw_body.encode() if isinstance(raw_body, str) else raw_body
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
