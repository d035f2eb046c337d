"""The same shop with the asyncio client: three quick orders at once (at most `max_concurrency` requests in flight),
each followed to its end, then the key's orders, ledger and assets read with `async for`. Run it:
`VIDEO_SERVICE_URL=http://localhost:3000/v1 VIDEO_SERVICE_KEY=vgk_... python3 integration_async.py`."""
from __future__ import annotations

import asyncio
import os
import sys

from video_client import ApiError, WaitTimeoutError
from video_client.aio import AsyncVideoClient
from video_client.models import Order, QuickVideoRequest


async def one(client: AsyncVideoClient, prompt: str) -> Order:
    request: QuickVideoRequest = {"prompt": prompt, "max_cost": 200}
    created = await client.create_quick(request, timeout=20, deadline=90)
    return await client.wait_for_video(created["id"], timeout=600)


async def run(url: str, key: str) -> int:
    async with AsyncVideoClient(url, key, max_retries=30, max_concurrency=4) as client:
        prompts = ["A 10 second video about tea", "A 10 second video about coffee", "A 10 second video about cocoa"]
        results = await asyncio.gather(*(one(client, p) for p in prompts), return_exceptions=True)
        failed = 0
        for prompt, result in zip(prompts, results):
            if isinstance(result, WaitTimeoutError):
                print(f"{prompt}: still {result.order['status']}")
            elif isinstance(result, ApiError):
                print(f"{prompt}: refused, {result.code}")
            elif isinstance(result, BaseException):
                raise result
            else:
                print(f"{prompt}: {result['status']} {result.get('result_url', '')}")
                failed += result["status"] != "done"
        async for order in client.list_videos(limit=50, status="done"):
            print(f"done: {order['id']}")
        spent = sum([-entry["amount"] async for entry in client.list_transactions(limit=50) if entry["kind"] == "charge"])
        print(f"charged {spent} doubloons in all")
        assets = [asset["id"] async for asset in client.list_assets()]
        print(f"{len(assets)} assets")
        return 1 if failed else 0


def main() -> int:
    return asyncio.run(run(os.environ.get("VIDEO_SERVICE_URL", "http://localhost:3000/v1"), os.environ["VIDEO_SERVICE_KEY"]))


if __name__ == "__main__":
    sys.exit(main())
