"""The official Python client of the video generation service (standard library only).

It retries what is safe to retry: GET, and the creation routes with an Idempotency-Key made once per call and reused
across its retries; 429 and 503 on any route (the server did not act). It follows Retry-After, and otherwise backs off
exponentially with full jitter.
"""
from __future__ import annotations

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
from typing import Any, Callable, Optional, Union

__all__ = ["VideoClient", "ApiError", "verify_webhook"]

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


class VideoClient:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        max_retries: int = 4,
        base_delay: float = 0.5,
        timeout: float = 30.0,
        on_retry: Optional[Callable[[int, float, str], None]] = None,
    ) -> None:
        """`base_url` includes /v1, e.g. http://localhost:3000/v1. `on_retry(attempt, delay_seconds, reason)`."""
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.timeout = timeout
        self.on_retry = on_retry

    def create_quick(self, prompt: str, idempotency_key: Optional[str] = None) -> Json:
        return self._request("POST", "/videos:quick", {"prompt": prompt}, idempotency_key or str(uuid.uuid4()))

    def create_video(self, params: Json, idempotency_key: Optional[str] = None) -> Json:
        return self._request("POST", "/videos", params, idempotency_key or str(uuid.uuid4()))

    def get_video(self, video_id: str) -> Json:
        return self._request("GET", f"/videos/{urllib.parse.quote(video_id)}")

    def review(self, video_id: str, decision: Json) -> Json:
        return self._request("POST", f"/videos/{urllib.parse.quote(video_id)}/review", decision)

    def get_balance(self) -> Json:
        return self._request("GET", "/balance")

    def create_webhook(self, url: str) -> Json:
        return self._request("POST", "/webhooks", {"url": url})

    def list_webhooks(self) -> Json:
        return self._request("GET", "/webhooks")

    def delete_webhook(self, webhook_id: str) -> None:
        self._request("DELETE", f"/webhooks/{urllib.parse.quote(webhook_id)}")

    def list_deliveries(self, webhook_id: str) -> Json:
        return self._request("GET", f"/webhooks/{urllib.parse.quote(webhook_id)}/deliveries")

    def wait_for_video(self, video_id: str, timeout: float = 900.0, interval: float = 2.0, on_progress: Optional[Callable[[Json], None]] = None) -> Json:
        """Polls until the order is done, in error or awaiting review; raises TimeoutError when `timeout` passes first."""
        end = time.monotonic() + timeout
        while True:
            order = self.get_video(video_id)
            if on_progress:
                on_progress(order)
            if order["status"] in _FINAL:
                return order
            if time.monotonic() >= end:
                raise TimeoutError(f"order {video_id} is still {order['status']} after {timeout} s")
            time.sleep(min(interval, max(0.0, end - time.monotonic())))

    def _request(self, method: str, path: str, body: Optional[Json] = None, idempotency_key: Optional[str] = None) -> Any:
        headers = {"X-API-Key": self.api_key, "Accept": "application/json"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        repeatable = method == "GET" or idempotency_key is not None
        attempt = 0
        while True:
            req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    text = res.read().decode()
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as err:
                text = err.read().decode(errors="replace")
                retry_after = float(err.headers["Retry-After"]) if err.headers.get("Retry-After") else None
                try:
                    envelope = json.loads(text).get("error", {})
                except ValueError:
                    envelope = {}
                error = ApiError(err.code, envelope.get("code", "internal_error"), envelope.get("message", f"HTTP {err.code}"), envelope.get("request_id"), retry_after)
                retry = err.code in (429, 503) or (err.code >= 500 and repeatable)
                if not retry or attempt >= self.max_retries:
                    raise error from None
                self._wait(attempt, retry_after, f"{err.code} {error.code}")
            except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
                # No answer: the request may or may not have been acted on.
                if not repeatable or attempt >= self.max_retries:
                    raise
                self._wait(attempt, None, f"no answer ({err})")
            attempt += 1

    def _wait(self, attempt: int, retry_after: Optional[float], reason: str) -> None:
        delay = retry_after if retry_after is not None else random.uniform(0, self.base_delay * 2**attempt)
        if self.on_retry:
            self.on_retry(attempt + 1, delay, reason)
        time.sleep(delay)


def verify_webhook(raw_body: Union[bytes, str], signature: Optional[str], secret: str) -> bool:
    """Checks X-Service-Signature: the lowercase hex HMAC-SHA256 of the raw body bytes under the webhook secret.
    Call it on the bytes as received, before parsing them."""
    if not signature or not re.fullmatch(r"[0-9a-f]{64}", signature):
        return False
    body = raw_body.encode() if isinstance(raw_body, str) else raw_body
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)
