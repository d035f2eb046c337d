"""A shop's integration with the synchronous client: price an order, place it, review its script, follow it to done,
and handle every failure by its type. Run it: `VIDEO_SERVICE_URL=http://localhost:3000/v1 VIDEO_SERVICE_KEY=vgk_...
python3 integration.py`."""
from __future__ import annotations

import os
import sys

from video_client import (
    APIConnectionError,
    APITimeoutError,
    ApiError,
    InsufficientFundsError,
    RateLimitError,
    VideoClient,
    WaitTimeoutError,
)
from video_client.models import CreateVideoRequest, Order, ReviewRequest


def order_video(client: VideoClient, topic: str) -> Order:
    """One director-mode order at its quoted price, approved once its script is written, followed to its end."""
    request: CreateVideoRequest = {"topic": topic, "duration_seconds": 10, "tone": "calm", "director_mode": True, "metadata": {"shop_order": "A-1001"}}
    quote = client.quote(request)
    print(f"{topic!r} costs {quote['cost']} doubloons (base {quote['breakdown']['base']})")
    request["quote_id"] = quote["quote_id"]  # charged exactly the quoted cost
    created = client.create_video(request, idempotency_key="shop-A-1001")
    order = client.wait_for_video(created["id"], timeout=300)
    if order["status"] == "awaiting_review":
        decision: ReviewRequest = {"action": "approve"}
        client.review(order["id"], decision)
        order = client.wait_for_video(order["id"], timeout=600)
    return order


def main() -> int:
    client = VideoClient(os.environ.get("VIDEO_SERVICE_URL", "http://localhost:3000/v1"), os.environ["VIDEO_SERVICE_KEY"], deadline=60)
    try:
        order = order_video(client, "Green tea, three cups a day")
    except InsufficientFundsError as err:
        print(f"top up first: {err.message} (request {err.request_id})", file=sys.stderr)
        return 1
    except RateLimitError as err:
        print(f"busy: {err.code}, retry in {err.retry_after} s (gave up: {err.gave_up_reason})", file=sys.stderr)
        return 1
    except ApiError as err:
        print(f"refused: HTTP {err.status} {err.code}: {err.message}", file=sys.stderr)
        return 1
    except WaitTimeoutError as err:
        print(f"still {err.order['status']} after the wait: check again later", file=sys.stderr)
        return 1
    except APITimeoutError:
        print("the service did not answer in time", file=sys.stderr)
        return 1
    except APIConnectionError as err:
        print(f"the service could not be reached: {err}", file=sys.stderr)
        return 1
    print(f"{order['id']}: {order['status']} {order.get('result_url', '')}")
    for done in client.list_videos(status="done", metadata={"shop_order": "A-1001"}, limit=20, timeout=10):
        print(f"done: {done['id']} {done['params']['topic']}")
    return 0 if order["status"] == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
