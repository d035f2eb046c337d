"""The asyncio client: the same calls as VideoClient, awaited. Standard library only: each call runs the blocking
client in a worker thread (asyncio.to_thread), so the event loop never blocks and the retry, timeout and deadline
rules are the same ones; a cancelled task stops waiting at once (its request finishes in the thread)."""
from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Callable, Optional

from . import _FINAL, VideoClient, _q, retry_after_seconds
from .models import Order


class AsyncVideoClient:
    def __init__(self, base_url: str, api_key: str, **options: Any) -> None:
        self.sync = VideoClient(base_url, api_key, **options)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        call = getattr(self.sync, name)
        if name.startswith("_") or not callable(call) or name in ("list_videos", "list_transactions", "wait_for_video"):
            raise AttributeError(name)

        async def run(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(call, *args, **kwargs)

        return run

    async def list_videos(self, **query: Any) -> AsyncIterator[Order]:
        """Every order of the key matching the query, newest first, a page fetched at a time."""
        async for item in self._pages(self.sync.list_videos_page, query):
            yield item

    async def list_transactions(self, **query: Any) -> AsyncIterator[Any]:
        async for item in self._pages(self.sync.list_transactions_page, query):
            yield item

    async def wait_for_video(self, video_id: str, timeout: float = 900.0, interval: Optional[float] = None) -> Order:
        """As VideoClient.wait_for_video, sleeping with asyncio between polls."""
        end = time.monotonic() + timeout
        while True:
            order, headers = await asyncio.to_thread(self.sync._send, "GET", f"/videos/{_q(video_id)}")
            if order["status"] in _FINAL:
                return order
            if time.monotonic() >= end:
                raise TimeoutError(f"order {video_id} is still {order['status']} after {timeout} s")
            hint = retry_after_seconds(headers.get("Retry-After"))
            await asyncio.sleep(min(interval if interval is not None else hint if hint is not None else 2.0, max(0.0, end - time.monotonic())))

    @staticmethod
    async def _pages(fetch: Callable[..., Any], query: dict[str, Any]) -> AsyncIterator[Any]:
        cursor: Optional[str] = None
        while True:
            page = await asyncio.to_thread(fetch, **{**query, **({"starting_after": cursor} if cursor else {})})
            for item in page["data"]:
                yield item
            if not page.get("has_more") or not page.get("next_starting_after"):
                return
            cursor = page["next_starting_after"]
