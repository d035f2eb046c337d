"""A webhook receiver on the standard library (http.server), built on video_client.unwrap_event.

Run it: `VIDEO_WEBHOOK_SECRETS=whsec_... PORT=8080 python3 receiver.py` (during a secret rotation's overlap give both
secrets, the new one first, separated by a comma). It answers 204 to every correctly signed event, including the test
ping (POST /webhooks/{id}/test) and types this client does not know yet; 400 to a replay (a signed delivery whose
timestamp is more than 5 minutes away) and 401 to anything not signed with the secret. Handle events idempotently:
a delivery may come more than once (deduplicate on `event.id`).
"""
from __future__ import annotations

import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Sequence

from video_client import (
    BalanceEvent,
    OrderEvent,
    PingEvent,
    WebhookEvent,
    WebhookReplayError,
    WebhookVerificationError,
    unwrap_event,
)


def make_handler(secrets: Sequence[str], on_event: Callable[[WebhookEvent], None], tolerance: float = 300.0) -> type[BaseHTTPRequestHandler]:
    """A request handler class that checks each delivery with `secrets` (read at each request, so a list may change)
    and passes the events to `on_event`."""

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                event = unwrap_event(raw, self.headers, list(secrets), tolerance=tolerance)
            except WebhookReplayError as err:
                return self._answer(400, f"replay refused: {err}")
            except WebhookVerificationError as err:
                return self._answer(401, f"signature refused: {err}")
            on_event(event)
            self._answer(204, "")

        def _answer(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            pass

    return Receiver


def handle(event: WebhookEvent) -> None:
    """What a shop does with each event: tell the types apart with isinstance; each `body` is typed."""
    if isinstance(event, OrderEvent):
        order = event.body
        if event.type == "video.done":
            print(f"{order['id']} is ready: {order.get('result_url')}")
        elif event.type == "video.awaiting_review":
            print(f"{order['id']} waits for a review of its script")
        else:
            error = order.get("error")
            print(f"{order['id']} failed ({error['code'] if error else 'unknown'}); refunded {order.get('refund', {}).get('amount', 0)}")
    elif isinstance(event, BalanceEvent):
        print(f"balance low: {event.body['balance']} doubloons (alert below {event.body['threshold']})")
    elif isinstance(event, PingEvent):
        print(f"test ping from webhook {event.body['webhook_id']}")
    else:  # UnknownEvent: a type newer than this client; answered 2xx all the same
        print(f"ignored an event of a newer type: {event.type}")


def main() -> int:
    secrets = [s for s in os.environ.get("VIDEO_WEBHOOK_SECRETS", "").split(",") if s]
    if not secrets:
        print("set VIDEO_WEBHOOK_SECRETS to the webhook's secret (whsec_...)", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), make_handler(secrets, handle))
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/", file=sys.stderr)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
