"""Issue 40, the webhook helpers: unwrap_event checks the Standard Webhooks signature (id, timestamp and body) within a
tolerance, takes rotated secrets, falls back to the body-only X-Service-Signature only when asked, and returns every
event the service sends as a typed union (a valid signature on an unexpected type is never the forged-signature error).
The unit tests sign deliveries as functions/core/webhook-signature.ts does; the last two take the service's own
webhook.test ping through receivers on 127.0.0.1 (key 9 of VIDEO_SERVICE_KEYS): one written as the README showed it
on main, and examples/receiver.py, which then refuses a capture replayed with its timestamps set to 2001."""
import base64
import calendar
import hashlib
import hmac
import io
import json
import os
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
import video_client as vc  # noqa: E402

NEW = "whsec_" + base64.b64encode(b"n" * 24).decode()
OLD = "whsec_" + base64.b64encode(b"o" * 24).decode()
NOW = 1_790_000_000
Y2001 = calendar.timegm((2001, 9, 9, 1, 46, 40, 0, 0, 0))
ORDER = {"id": "vid_01m8000000000000000000000a", "status": "done", "cost": 100, "result_url": "https://x/v.mp4"}
PING = {"type": "webhook.test", "webhook_id": "wh_1", "created_at": "2026-11-28T00:00:00.000Z", "livemode": True}
LOW = {"id": "01M8:balance.low:1", "object": "event", "type": "balance.low", "balance": 90, "threshold": 100, "order_id": ORDER["id"], "created_at": "2026-11-28T00:00:00.000Z", "livemode": True}


def signed(body: Any, event: str, secrets: list[str], timestamp: int = NOW, message_id: str = "evt_1") -> tuple[bytes, dict[str, str]]:
    """A delivery as the service signs it (functions/core/webhook-signature.ts): both schemes, one Standard Webhooks
    signature per secret in force."""
    raw = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
    standard = []
    for secret in secrets:
        part = secret[len("whsec_") :].replace("-", "+").replace("_", "/")
        key = base64.b64decode(part + "=" * (-len(part) % 4))  # Node reads the url alphabet too, as the service signs
        digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + raw, hashlib.sha256).digest()
        standard.append("v1," + base64.b64encode(digest).decode())
    headers = {
        "X-Service-Signature": hmac.new(secrets[0].encode(), raw, hashlib.sha256).hexdigest(),
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(standard),
        "X-Service-Event": event,
        "X-Service-Event-Id": message_id,
        "X-Service-Timestamp": str(timestamp),
    }
    if len(secrets) > 1:
        headers["X-Service-Signature-Previous"] = hmac.new(secrets[1].encode(), raw, hashlib.sha256).hexdigest()
    return raw, headers


class UnwrapEventTest(unittest.TestCase):
    def test_every_event_the_service_sends_comes_back_typed(self) -> None:
        raw, headers = signed(ORDER, "video.done", [NEW])
        order = vc.unwrap_event(raw, headers, NEW, now=NOW)
        self.assertIsInstance(order, vc.OrderEvent)
        self.assertEqual((order.type, order.id, order.body["id"], order.timestamp), ("video.done", "evt_1", ORDER["id"], NOW))
        raw, headers = signed(PING, "webhook.test", [NEW])
        ping = vc.unwrap_event(raw, headers, NEW, now=NOW)
        self.assertIsInstance(ping, vc.PingEvent)
        self.assertEqual((ping.type, ping.body["webhook_id"]), ("webhook.test", "wh_1"))
        raw, headers = signed(LOW, "balance.low", [NEW])
        low = vc.unwrap_event(raw, headers, NEW, now=NOW)
        self.assertIsInstance(low, vc.BalanceEvent)
        self.assertEqual((low.type, low.body["balance"]), ("balance.low", 90))
        # A type this client does not know, correctly signed: returned, not refused.
        raw, headers = signed({"type": "invoice.paid", "amount": 5}, "invoice.paid", [NEW])
        unknown = vc.unwrap_event(raw, headers, NEW, now=NOW)
        self.assertIsInstance(unknown, vc.UnknownEvent)
        self.assertEqual((unknown.type, unknown.body), ("invoice.paid", {"type": "invoice.paid", "amount": 5}))
        raw, headers = signed({**ORDER, "status": "running"}, "video.progress", [NEW])
        self.assertEqual(vc.unwrap_event(raw, headers, NEW, now=NOW).type, "video.progress")
        # Without X-Service-Event (a proxy dropped it), an order's event is named by its status.
        raw, headers = signed(ORDER, "video.done", [NEW])
        del headers["X-Service-Event"]
        self.assertEqual(vc.unwrap_event(raw, headers, NEW, now=NOW).type, "video.done")
        # The body's own (signed) type wins over the X-Service-Event header (unsigned).
        raw, headers = signed(PING, "video.done", [NEW])
        self.assertIsInstance(vc.unwrap_event(raw, headers, NEW, now=NOW), vc.PingEvent)

    def test_a_timestamp_outside_the_tolerance_is_refused_as_a_replay(self) -> None:
        raw, headers = signed(ORDER, "video.done", [NEW])
        self.assertEqual(vc.unwrap_event(raw, headers, NEW, now=NOW + 299).id, "evt_1")
        self.assertEqual(vc.unwrap_event(raw, headers, NEW, now=NOW - 299).id, "evt_1")
        for now in (NOW + 301, NOW - 301):
            with self.assertRaises(vc.WebhookReplayError) as caught:
                vc.unwrap_event(raw, headers, NEW, now=now)
            self.assertIn("replay", str(caught.exception))
            self.assertEqual(caught.exception.timestamp, NOW)
        with self.assertRaises(vc.WebhookReplayError):
            vc.unwrap_event(raw, headers, NEW, now=NOW + 11, tolerance=10)
        self.assertEqual(vc.unwrap_event(raw, headers, NEW, now=NOW + 3000, tolerance=3600).type, "video.done")
        # A delivery signed in 2001, checked against the clock (the default `now`).
        old_raw, old_headers = signed(ORDER, "video.done", [NEW], timestamp=Y2001)
        with self.assertRaises(vc.WebhookReplayError) as replay:
            vc.unwrap_event(old_raw, old_headers, NEW)
        self.assertGreater(replay.exception.skew, 700_000_000)
        # A current capture with both timestamp headers set to 2001: the signature covers the timestamp.
        moved = {**headers, "webhook-timestamp": str(Y2001), "X-Service-Timestamp": str(Y2001)}
        with self.assertRaises(vc.WebhookVerificationError) as forged:
            vc.unwrap_event(raw, moved, NEW, now=Y2001)
        self.assertNotIsInstance(forged.exception, vc.WebhookReplayError)

    def test_rotated_secrets_and_a_wrong_one(self) -> None:
        raw, headers = signed(ORDER, "video.done", [NEW, OLD])
        self.assertEqual(len(headers["webhook-signature"].split()), 2)
        for secrets in ([NEW], [OLD], [NEW, OLD], [OLD, NEW], (NEW,)):
            self.assertEqual(vc.unwrap_event(raw, headers, secrets, now=NOW).type, "video.done", secrets)
        # Signed with the previous secret only (the service before the receiver's update): either list order takes it.
        raw_old, headers_old = signed(ORDER, "video.done", [OLD])
        self.assertEqual(vc.unwrap_event(raw_old, headers_old, [NEW, OLD], now=NOW).type, "video.done")
        other = "whsec_" + base64.b64encode(b"x" * 24).decode()
        with self.assertRaises(vc.WebhookVerificationError) as caught:
            vc.unwrap_event(raw, headers, other, now=NOW)
        self.assertNotIsInstance(caught.exception, vc.WebhookReplayError)
        with self.assertRaises(vc.WebhookVerificationError):
            vc.unwrap_event(raw + b" ", headers, NEW, now=NOW)
        with self.assertRaises(ValueError):
            vc.unwrap_event(raw, headers, [], now=NOW)

    def test_the_body_only_signature_only_when_asked(self) -> None:
        raw, headers = signed(ORDER, "video.done", [NEW, OLD])
        body_only = {k: v for k, v in headers.items() if not k.startswith("webhook-")}
        with self.assertRaises(vc.WebhookVerificationError) as caught:
            vc.unwrap_event(raw, body_only, NEW, now=NOW)
        self.assertIn("allow_body_signature", str(caught.exception))
        for secret in (NEW, OLD):
            event = vc.unwrap_event(raw, body_only, secret, allow_body_signature=True)
            self.assertEqual((event.type, event.timestamp), ("video.done", None))
        with self.assertRaises(vc.WebhookVerificationError):
            vc.unwrap_event(raw + b" ", body_only, NEW, allow_body_signature=True)
        # With the Standard Webhooks headers present they decide: no fall back to the body-only signature.
        moved = {**headers, "webhook-timestamp": str(Y2001)}
        with self.assertRaises(vc.WebhookVerificationError):
            vc.unwrap_event(raw, moved, NEW, allow_body_signature=True)
        self.assertTrue(vc.verify_webhook(raw, headers["X-Service-Signature"], NEW))
        self.assertFalse(vc.verify_webhook(raw, headers["X-Service-Signature"], OLD))

    def test_unwrap_reads_order_events_and_never_calls_another_type_forged(self) -> None:
        raw, headers = signed(ORDER, "video.done", [NEW])
        self.assertEqual(vc.unwrap(raw, headers, NEW, now=NOW), ("video.done", "evt_1", ORDER))
        raw, headers = signed(PING, "webhook.test", [NEW])
        with self.assertRaises(vc.UnexpectedEventError) as caught:
            vc.unwrap(raw, headers, NEW, now=NOW)
        self.assertNotIsInstance(caught.exception, vc.WebhookVerificationError)
        self.assertIsInstance(caught.exception.event, vc.PingEvent)

    def test_a_changed_event_header_never_retypes_a_signed_body(self) -> None:
        # X-Service-Event is not signed: an order awaiting review stays that, whatever the header claims.
        pending = {**ORDER, "status": "awaiting_review"}
        for claimed in ("video.done", "balance.low", "webhook.test"):
            raw, headers = signed(pending, claimed, [NEW])
            event = vc.unwrap_event(raw, headers, NEW, now=NOW)
            self.assertIsInstance(event, vc.UnknownEvent, claimed)
            self.assertEqual(event.type, claimed)
        raw, headers = signed(pending, "video.awaiting_review", [NEW])
        self.assertIsInstance(vc.unwrap_event(raw, headers, NEW, now=NOW), vc.OrderEvent)

    def test_secrets_from_before_standard_webhooks_and_unreadable_ones(self) -> None:
        # Older webhooks' secrets are base64url: the service signs with them, so they verify; an unreadable or empty
        # secret in a list is skipped, never an exception that would answer 500.
        legacy = "whsec_" + base64.urlsafe_b64encode(b"a secret from before, with ~~~ and ??? in it").decode().rstrip("=")
        self.assertRegex(legacy, "[-_]")
        raw, headers = signed(ORDER, "video.done", [legacy])
        self.assertIsInstance(vc.unwrap_event(raw, headers, legacy, now=NOW), vc.OrderEvent)
        self.assertIsInstance(vc.unwrap_event(raw, headers, ["whsec_!!!", "whsec_", legacy], now=NOW), vc.OrderEvent)
        for unreadable in ("whsec_!!!", "whsec_"):
            with self.assertRaises(vc.WebhookVerificationError):
                vc.unwrap_event(raw, headers, unreadable, now=NOW)
        with self.assertRaises(ValueError):
            vc.unwrap_event(raw, headers, legacy, now=NOW, tolerance=float("nan"))


def serve(handler: type) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hook"


def post(url: str, raw: bytes, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, data=raw, headers={k: v for k, v in headers.items() if k.lower() not in ("content-length", "host", "connection")}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status
    except urllib.error.HTTPError as err:
        return err.code


class ReceiverTest(unittest.TestCase):
    """The service's own test ping, through receivers built on the helper."""

    def setUp(self) -> None:
        self.base = os.environ["VIDEO_SERVICE_URL"]
        self.key = json.loads(os.environ["VIDEO_SERVICE_KEYS"])[9]

    def test_a_receiver_written_as_the_readme_showed_answers_the_test_ping(self) -> None:
        secret: dict[str, str] = {}
        answered: list[int] = []

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                try:
                    vc.unwrap_event(raw, dict(self.headers.items()), secret["value"])
                    status = 204
                except vc.WebhookVerificationError:
                    status = 401
                answered.append(status)
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        server, url = serve(Receiver)
        try:
            client = vc.VideoClient(self.base, self.key)
            hook = client.create_webhook(url)
            secret["value"] = hook["secret"]
            result = client.test_webhook(hook["id"])
            self.assertEqual(answered, [204])
            self.assertEqual((result["delivered"], result.get("http_status")), (True, 204))
        finally:
            server.shutdown()
            server.server_close()

    def test_the_example_receiver_takes_pings_across_a_rotation_and_refuses_a_2001_replay(self) -> None:
        from receiver import make_handler  # examples/receiver.py

        secrets: list[str] = []
        events: list[Any] = []
        captured: list[tuple[bytes, dict[str, str]]] = []

        class Recording(make_handler(secrets, events.append)):  # type: ignore[misc]
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                captured.append((raw, {k.lower(): v for k, v in self.headers.items()}))
                self.rfile = io.BytesIO(raw)
                super().do_POST()

        server, url = serve(Recording)
        try:
            client = vc.VideoClient(self.base, self.key)
            hook = client.create_webhook(url)
            secrets.append(hook["secret"])
            first = client.test_webhook(hook["id"])
            self.assertEqual((first["delivered"], first.get("http_status")), (True, 204))
            ping: Optional[Any] = events[0]
            self.assertIsInstance(ping, vc.PingEvent)
            self.assertEqual((ping.type, ping.body["webhook_id"], ping.body["type"]), ("webhook.test", hook["id"], "webhook.test"))
            self.assertLessEqual(abs(ping.timestamp - time.time()), 60)
            # Rotated: the receiver still holds only the old secret, then only the new one; both take the ping.
            rotated = client.rotate_webhook_secret(hook["id"], overlap_seconds=600)
            self.assertTrue(client.test_webhook(hook["id"])["delivered"])
            secrets[:] = [rotated["secret"]]
            self.assertTrue(client.test_webhook(hook["id"])["delivered"])
            self.assertEqual([type(e).__name__ for e in events], ["PingEvent"] * 3)
            raw, headers = captured[0]
            self.assertEqual(len(captured[1][1]["webhook-signature"].split()), 2, "two signatures during the overlap")
            secrets[:] = [hook["secret"]]
            # The capture again as it came: still within 5 minutes, so taken (deduplicate on the event id).
            self.assertEqual(post(url, raw, headers), 204)
            # Both timestamp headers set to 2001 on the capture: the signature no longer matches.
            moved = {**headers, "webhook-timestamp": str(Y2001), "x-service-timestamp": str(Y2001)}
            self.assertEqual(post(url, raw, moved), 401)
            # Signed for 2001 with the real secret (a capture from then): refused as a replay.
            old_raw, old_headers = signed(json.loads(raw), "webhook.test", [hook["secret"]], timestamp=Y2001, message_id=headers["webhook-id"])
            self.assertEqual(post(url, old_raw, old_headers), 400)
            self.assertEqual(len(events), 4, "the refused ones reached no handler")
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
