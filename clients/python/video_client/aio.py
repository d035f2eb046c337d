"""The asyncio client: every call of VideoClient, awaited, with the same parameters and typed answers, and the lists as
async iterators (`async for`).

Standard library only, so each request runs the blocking client in a worker thread of the client's own pool of
`max_concurrency` threads (default 16): at most that many requests of this client are in flight at once, the rest
wait their turn, and the event loop never blocks. The retry, timeout and deadline rules are VideoClient's. A
cancelled task stops waiting at once (its request finishes in its thread). Close the client (`await client.close()`,
or `async with AsyncVideoClient(...) as client:`) to stop its threads.

tests/test_async_typed.py holds this class equal to VideoClient: the same public methods, each with the same
parameters, as coroutines (the lists as async generators).
"""
from __future__ import annotations

import asyncio
import functools
import time
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping, Optional, ParamSpec, TypeVar, Union

from . import _FINAL, VideoClient, WaitTimeoutError, _next_cursor, _poll_gap, _q  # pyright: ignore[reportPrivateUsage]
from .models import (
    Asset,
    AssetContentType,
    AssetCreated,
    AssetList,
    Balance,
    CreateVideoRequest,
    Created,
    DeliveryList,
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
    WebhookTestResult,
)

__all__ = ["AsyncVideoClient"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


async def _pages(fetch: Callable[[Optional[str]], Awaitable[Any]], first: Optional[str]) -> AsyncIterator[Any]:
    """Every item of a cursor-paged list from `first`, awaiting a page (`fetch(cursor)`) at a time."""
    cursor = first
    while True:
        page = await fetch(cursor)
        for item in page["data"]:
            yield item
        cursor = _next_cursor(page["has_more"], page.get("next_starting_after"))
        if cursor is None:
            return


class AsyncVideoClient:
    """VideoClient for asyncio. `max_concurrency` bounds the requests in flight (its own thread pool); the other
    settings are VideoClient's."""

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
        *,
        max_concurrency: int = 16,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency is at least 1")
        self.sync = VideoClient(base_url, api_key, max_retries, base_delay, timeout, deadline, max_retry_after, on_retry)
        self.max_concurrency = max_concurrency
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="video-client")
        self._owns_pool = True

    async def __aenter__(self) -> "AsyncVideoClient":
        return self

    async def __aexit__(self, kind: Optional[type[BaseException]], error: Optional[BaseException], trace: Optional[TracebackType]) -> None:
        await self.close()

    async def close(self) -> None:
        """Stops the client's threads once the requests in flight end; a copy from with_options leaves them to the
        client it was made from."""
        if not self._owns_pool:
            return
        await asyncio.get_running_loop().run_in_executor(None, functools.partial(self._pool.shutdown, wait=True))

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
    ) -> "AsyncVideoClient":
        """A copy with some settings changed, sharing this client's thread pool (and so its concurrency bound)."""
        copy = AsyncVideoClient.__new__(AsyncVideoClient)
        copy.sync = self.sync.with_options(
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            base_delay=base_delay,
            timeout=timeout,
            deadline=deadline,
            max_retry_after=max_retry_after,
            on_retry=on_retry,
        )
        copy.max_concurrency = self.max_concurrency
        copy._pool = self._pool
        copy._owns_pool = False
        return copy

    async def _run(self, call: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(call, *args, **kwargs))

    async def create_quick(
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
        return await self._run(
            self.sync.create_quick,
            prompt,
            idempotency_key,
            logo=logo,
            metadata=metadata,
            deadline_seconds=deadline_seconds,
            quote_id=quote_id,
            max_cost=max_cost,
            timeout=timeout,
            deadline=deadline,
        )

    async def create_video(self, params: CreateVideoRequest, idempotency_key: Optional[str] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Created:
        """Orders a video with every parameter given (CreateVideoRequest: `topic` and the optional fields)."""
        return await self._run(self.sync.create_video, params, idempotency_key, timeout=timeout, deadline=deadline)

    async def quote(self, request: QuoteRequest, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Quote:
        """The price of an order (the body of create_video or of create_quick) and a quote_id holding it 15 minutes."""
        return await self._run(self.sync.quote, request, timeout=timeout, deadline=deadline)

    async def get_video(self, video_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        return await self._run(self.sync.get_video, video_id, timeout=timeout, deadline=deadline)

    async def list_videos_page(
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
        return await self._run(
            self.sync.list_videos_page,
            limit=limit,
            starting_after=starting_after,
            status=status,
            created_gte=created_gte,
            created_lt=created_lt,
            metadata=metadata,
            timeout=timeout,
            deadline=deadline,
        )

    async def list_videos(
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
    ) -> AsyncIterator[Order]:
        """Every order of the key matching the query, newest first, a page fetched at a time (`async for`)."""
        async for order in _pages(lambda cursor_: self.list_videos_page(limit=limit, starting_after=cursor_, status=status, created_gte=created_gte, created_lt=created_lt, metadata=metadata, timeout=timeout, deadline=deadline), starting_after):
            yield order

    async def cancel(self, video_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        """Cancels an order whose render has not started: it ends in error `canceled`, fully refunded. Safe to repeat."""
        return await self._run(self.sync.cancel, video_id, timeout=timeout, deadline=deadline)

    async def review(self, video_id: str, decision: ReviewRequest, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Order:
        """Decides on the script of an order in `awaiting_review`: approve, edit (`text`) or regen (`note`)."""
        return await self._run(self.sync.review, video_id, decision, timeout=timeout, deadline=deadline)

    async def get_balance(self, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Balance:
        return await self._run(self.sync.get_balance, timeout=timeout, deadline=deadline)

    async def set_balance_alert(self, below: Optional[int], *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Balance:
        """Sets (or, with None, removes) the key's low-balance threshold; answers the balance."""
        return await self._run(self.sync.set_balance_alert, below, timeout=timeout, deadline=deadline)

    async def list_transactions_page(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> TransactionList:
        """One page of the ledger, newest first."""
        return await self._run(self.sync.list_transactions_page, limit=limit, starting_after=starting_after, timeout=timeout, deadline=deadline)

    async def list_transactions(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AsyncIterator[Transaction]:
        """Every ledger entry of the key, newest first, a page fetched at a time (`async for`)."""
        async for entry in _pages(lambda cursor_: self.list_transactions_page(limit=limit, starting_after=cursor_, timeout=timeout, deadline=deadline), starting_after):
            yield entry

    async def create_webhook(self, url: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookCreated:
        """Registers (or replaces) the key's webhook; the answer's `secret` is shown once: give it to unwrap_event."""
        return await self._run(self.sync.create_webhook, url, timeout=timeout, deadline=deadline)

    async def list_webhooks(self, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookList:
        return await self._run(self.sync.list_webhooks, timeout=timeout, deadline=deadline)

    async def delete_webhook(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> None:
        await self._run(self.sync.delete_webhook, webhook_id, timeout=timeout, deadline=deadline)

    async def list_deliveries(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> DeliveryList:
        return await self._run(self.sync.list_deliveries, webhook_id, timeout=timeout, deadline=deadline)

    async def rotate_webhook_secret(
        self, webhook_id: str, overlap_seconds: Optional[int] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> WebhookRotated:
        """A new secret; the previous one keeps signing beside it for `overlap_seconds` (default a day)."""
        return await self._run(self.sync.rotate_webhook_secret, webhook_id, overlap_seconds, timeout=timeout, deadline=deadline)

    async def test_webhook(self, webhook_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> WebhookTestResult:
        """One signed `webhook.test` delivery now; whether the receiver took it."""
        return await self._run(self.sync.test_webhook, webhook_id, timeout=timeout, deadline=deadline)

    async def resend_events(
        self,
        webhook_id: str,
        event_id: Optional[str] = None,
        since: Optional[str] = None,
        *,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> ResendResult:
        """Delivers again one event (`event_id`) or every event dropped since a time (`since`, ISO 8601)."""
        return await self._run(self.sync.resend_events, webhook_id, event_id, since, timeout=timeout, deadline=deadline)

    async def create_asset(self, content_type: AssetContentType, size_bytes: int, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> AssetCreated:
        """Declares a picture (PNG, JPEG or WebP, up to 10 MiB): the asset and the presigned URL to PUT its bytes to."""
        return await self._run(self.sync.create_asset, content_type, size_bytes, timeout=timeout, deadline=deadline)

    async def upload_asset(
        self, file: Union[str, bytes], content_type: Optional[AssetContentType] = None, *, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AssetCreated:
        """Uploads a picture (a path or its bytes), as VideoClient.upload_asset does."""
        return await self._run(self.sync.upload_asset, file, content_type, timeout=timeout, deadline=deadline)

    async def get_asset(self, asset_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> Asset:
        return await self._run(self.sync.get_asset, asset_id, timeout=timeout, deadline=deadline)

    async def list_assets_page(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AssetList:
        """One page of the key's assets, newest first."""
        return await self._run(self.sync.list_assets_page, limit=limit, starting_after=starting_after, timeout=timeout, deadline=deadline)

    async def list_assets(
        self, *, limit: Optional[int] = None, starting_after: Optional[str] = None, timeout: Optional[float] = None, deadline: Optional[float] = None
    ) -> AsyncIterator[Asset]:
        """Every asset of the key, newest first, a page fetched at a time (`async for`)."""
        async for asset in _pages(lambda cursor_: self.list_assets_page(limit=limit, starting_after=cursor_, timeout=timeout, deadline=deadline), starting_after):
            yield asset

    async def delete_asset(self, asset_id: str, *, timeout: Optional[float] = None, deadline: Optional[float] = None) -> None:
        """Deletes the asset and its bytes (orders made before keep their copies)."""
        await self._run(self.sync.delete_asset, asset_id, timeout=timeout, deadline=deadline)

    async def wait_for_video(
        self, video_id: str, timeout: float = 900.0, interval: Optional[float] = None, on_progress: Optional[Callable[[Order], None]] = None
    ) -> Order:
        """As VideoClient.wait_for_video (WaitTimeoutError with the last order), sleeping with asyncio between polls."""
        end = time.monotonic() + timeout
        while True:
            answer, headers = await self._run(self.sync._send, "GET", f"/videos/{_q(video_id)}")  # pyright: ignore[reportPrivateUsage]
            order: Order = answer
            if on_progress:
                on_progress(order)
            if order["status"] in _FINAL:
                return order
            if time.monotonic() >= end:
                raise WaitTimeoutError(f"order {video_id} is still {order['status']} after {timeout} s", order)
            await asyncio.sleep(min(_poll_gap(interval, headers), max(0.0, end - time.monotonic())))
