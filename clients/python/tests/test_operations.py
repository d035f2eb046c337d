"""The Python client's newer calls against the local service (quote then create at the quoted price, cancel, the
list and ledger iterators, webhook rotate/test/resend and unwrap), the asyncio client to a done order, the typed
models against the served OpenAPI document, and the transport against loopback servers that misbehave as proxies
and gateways do (a hanging attempt, a dated Retry-After, one past its cap, an answer outside the envelope, the
call's deadline), and assets (upload, read, list, delete, named in an order; the command line's `assets`). Keys 3 to
7 of VIDEO_SERVICE_KEYS are this file's."""
import ast
import struct
import tempfile
import zlib
import asyncio
import email.utils
import inspect
import json
import os
import subprocess
import sys
import threading
import time
import typing
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from video_client import (  # noqa: E402
    ConflictError,
    UploadError,
    sniff_image_type,
    NotFoundError,
    ApiError,
    BalanceEvent,
    RateLimitError,
    UnexpectedEventError,
    UnexpectedResponseError,
    VideoClient,
    WebhookVerificationError,
    retry_after_seconds,
    unwrap,
    unwrap_event,
)
from video_client import models  # noqa: E402
from video_client.aio import AsyncVideoClient  # noqa: E402

BASE = os.environ["VIDEO_SERVICE_URL"]
KEYS = json.loads(os.environ["VIDEO_SERVICE_KEYS"])


def serve(handler: type) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def receiver() -> tuple[list[tuple[bytes, dict]], ThreadingHTTPServer, str]:
    """A webhook receiver on loopback that records each body and its headers (lower-cased) and answers 204."""
    received: list[tuple[bytes, dict]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            received.append((self.rfile.read(int(self.headers["Content-Length"])), {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server, url = serve(Receiver)
    return received, server, url


def wait_status(client: VideoClient, order_id: str, statuses: tuple[str, ...], seconds: float = 60) -> dict:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        order = client.get_video(order_id)
        if order["status"] in statuses:
            return order
        time.sleep(0.25)
    raise AssertionError(f"{order_id} never reached {statuses}")


class OperationsTest(unittest.TestCase):
    def test_quote_create_cancel_and_the_iterators(self) -> None:
        client = VideoClient(BASE, KEYS[3], max_retries=30)
        body = {"topic": "Green tea", "duration_seconds": 10, "music": "song", "director_mode": True}
        quote = client.quote(body)
        self.assertEqual((quote["cost"], quote["breakdown"]["extras"]), (170, {"song": 70}))
        created = client.create_video({**body, "quote_id": quote["quote_id"]}, idempotency_key="py-ops-1")
        self.assertEqual((created["cost"], created["replayed"]), (170, False))
        self.assertTrue(client.create_video({**body, "quote_id": quote["quote_id"]}, idempotency_key="py-ops-1")["replayed"])
        wait_status(client, created["id"], ("awaiting_review",))
        second = client.create_video({"topic": "Oolong", "duration_seconds": 10, "director_mode": True, "metadata": {"crm": "py-7"}})
        self.assertEqual(client.get_video(second["id"])["client_metadata"], {"crm": "py-7"})
        self.assertEqual([o["id"] for o in client.list_videos(metadata={"crm": "py-7"})], [second["id"]])
        wait_status(client, second["id"], ("awaiting_review",))
        canceled = client.cancel(second["id"])
        self.assertEqual((canceled["status"], canceled["error"]["code"], canceled["refund"]["reason"]), ("error", "canceled", "canceled"))
        self.assertEqual(client.cancel(second["id"])["id"], second["id"])
        self.assertEqual([o["id"] for o in client.list_videos(limit=1)], [second["id"], created["id"]])
        self.assertEqual([o["id"] for o in client.list_videos(status="error")], [second["id"]])
        self.assertEqual([(t["kind"], t["amount"]) for t in client.list_transactions(limit=2)], [("refund", 100), ("charge", -100), ("charge", -170), ("top_up", 1000)])
        with self.assertRaises(NotFoundError):
            client.cancel("vid_01m8000000000000000000000a")
        with self.assertRaises(ConflictError) as caught:
            client.create_video({**body, "quote_id": quote["quote_id"]})
        self.assertEqual(caught.exception.code, "quote_invalid")

    def test_webhooks_rotate_test_resend_and_unwrap(self) -> None:
        received, server, url = receiver()
        try:
            client = VideoClient(BASE, KEYS[4], max_retries=30)
            hook = client.create_webhook(url + "/hook")
            rotated = client.rotate_webhook_secret(hook["id"], overlap_seconds=600)
            self.assertIn("previous_secret_expires_at", rotated)
            self.assertTrue(client.test_webhook(hook["id"])["delivered"])
            order = client.create_video({"topic": "Matcha", "duration_seconds": 10, "director_mode": True})
            wait_status(client, order["id"], ("awaiting_review",))
            for _ in range(100):
                if any(h.get("x-service-event") == "video.awaiting_review" for _, h in received):
                    break
                time.sleep(0.1)
            raw, headers = next((r, h) for r, h in received if h.get("x-service-event") == "video.awaiting_review")
            for secret in (rotated["secret"], hook["secret"]):
                event, event_id, typed = unwrap(raw, headers, secret)
                self.assertEqual((event, event_id, typed["id"]), ("video.awaiting_review", f"{order['id']}:awaiting_review:1", order["id"]))
            with self.assertRaises(WebhookVerificationError):
                unwrap(raw + b" ", headers, rotated["secret"])
            self.assertEqual(client.resend_events(hook["id"], since="2026-01-01T00:00:00Z"), {"resent": [], "has_more": False})
        finally:
            server.shutdown()

    def test_balance_alert_and_balance_low_unwrapped(self) -> None:
        received, server, url = receiver()
        try:
            client = VideoClient(BASE, KEYS[7], max_retries=30)
            hook = client.create_webhook(url + "/hook")
            self.assertEqual(client.set_balance_alert(950)["low_balance_alert"], {"below": 950, "sent": False})
            order = client.create_video({"topic": "Sencha", "duration_seconds": 10, "director_mode": True})
            for _ in range(100):
                if any(h.get("x-service-event") == "balance.low" for _, h in received):
                    break
                time.sleep(0.1)
            raw, headers = next((r, h) for r, h in received if h.get("x-service-event") == "balance.low")
            event = unwrap_event(raw, headers, hook["secret"])
            assert isinstance(event, BalanceEvent)
            body = event.body
            self.assertEqual((event.type, event.id, body["balance"], body["threshold"], body["order_id"]), ("balance.low", body["id"], 900, 950, order["id"]))
            with self.assertRaises(UnexpectedEventError) as other:
                unwrap(raw, headers, hook["secret"])
            self.assertNotIsInstance(other.exception, WebhookVerificationError)
            self.assertEqual(other.exception.event, event)
            balance = client.get_balance()
            self.assertEqual((balance["low_balance_alert"]["sent"], balance["spend"]["spent"]), (True, 100))
            self.assertNotIn("low_balance_alert", client.set_balance_alert(None))
        finally:
            server.shutdown()

    def test_async_client_reaches_done(self) -> None:
        async def run() -> tuple[dict, list[str]]:
            client = AsyncVideoClient(BASE, KEYS[5], max_retries=30)
            created = await client.create_quick("A 10 second video about rooibos")
            done = await client.wait_for_video(created["id"], timeout=120)
            listed = [o["id"] async for o in client.list_videos(limit=1)]
            balance = await client.get_balance()
            self.assertEqual(balance["balance"], 1000 - created["cost"])
            return done, listed

        done, listed = asyncio.run(run())
        self.assertEqual(done["status"], "done")
        self.assertTrue(done["result_url"].startswith("http"))
        self.assertEqual(listed, [done["id"]])

    def test_models_match_the_served_document(self) -> None:
        with urllib.request.urlopen(BASE + "/openapi.json") as res:
            schemas = json.load(res)["components"]["schemas"]
        order, quote = schemas["Order"]["properties"], schemas["Quote"]["properties"]
        pairs = {
            "Order": schemas["Order"],
            "OrderParams": order["params"],
            "Charge": order["charge"],
            "Refund": order["refund"],
            "ErrorInfo": order["error"],
            "Metadata": order["metadata"],
            "Quote": schemas["Quote"],
            "Breakdown": quote["breakdown"],
            "Balance": schemas["Balance"],
            "Spend": schemas["Balance"]["properties"]["spend"],
            "LowBalanceAlert": schemas["Balance"]["properties"]["low_balance_alert"],
            "BalanceLowEvent": schemas["BalanceLowEvent"],
            "CreationResponse": schemas["CreationResponse"],
            "Transaction": schemas["TransactionList"]["properties"]["data"]["items"],
            "WebhookRotated": schemas["WebhookRotated"],
            "WebhookTestResult": schemas["WebhookTestResult"],
            "ResendResult": schemas["ResendResult"],
            "WebhookCreated": schemas["WebhookCreated"],
            "WebhookList": schemas["WebhookList"],
            "Webhook": schemas["WebhookList"]["properties"]["data"]["items"],
            "DeliveryList": schemas["DeliveryList"],
            "Delivery": schemas["DeliveryList"]["properties"]["data"]["items"],
            "OrderList": schemas["OrderList"],
            "TransactionList": schemas["TransactionList"],
            "Asset": schemas["Asset"],
            "AssetUpload": schemas["AssetCreated"]["properties"]["upload"],
            "AssetList": schemas["AssetList"],
            # The request bodies (issue 40) and the other events' bodies.
            "CreateVideoRequest": schemas["CreateVideoRequest"],
            "Placement": schemas["CreateVideoRequest"]["properties"]["placement"],
            "QuickVideoRequest": schemas["QuickVideoRequest"],
            "ReviewApprove": schemas["ReviewApprove"],
            "ReviewEdit": schemas["ReviewEdit"],
            "ReviewRegen": schemas["ReviewRegen"],
            "CreateWebhookRequest": schemas["CreateWebhookRequest"],
            "RotateWebhookRequest": schemas["RotateWebhookRequest"],
            "ResendEventRequest": schemas["ResendRequest"]["anyOf"][0],
            "ResendSinceRequest": schemas["ResendRequest"]["anyOf"][1],
            "BalanceAlertRequest": schemas["BalanceAlertRequest"],
            "CreateAssetRequest": schemas["CreateAssetRequest"],
            "WebhookTestEvent": schemas["WebhookTestEvent"],
            "ErrorResponse": schemas["ErrorResponse"],
            "ErrorDetail": schemas["ErrorResponse"]["properties"]["error"],
        }
        # The enums as Literal types, value for value; the unions as the document's branches.
        for name, schema_name in {
            "OrderStatus": "OrderStatus",
            "Language": "Language",
            "Tone": "Tone",
            "Music": "Music",
            "Voice": "Voice",
            "Billing": "Billing",
            "Channel": "Channel",
            "TransactionKind": "TransactionKind",
            "AssetContentType": "AssetContentType",
            "ErrorCode": "ErrorCode",
            "WebhookEventType": "WebhookEvent",
        }.items():
            self.assertEqual(list(typing.get_args(getattr(models, name))), schemas[schema_name]["enum"], name)
        branches = lambda union: [t.__name__ for t in typing.get_args(union)]  # noqa: E731
        self.assertEqual(branches(models.ReviewRequest), [b["$ref"].rsplit("/", 1)[1] for b in schemas["ReviewRequest"]["oneOf"]])
        self.assertEqual(branches(models.QuoteRequest), [b["$ref"].rsplit("/", 1)[1] for b in schemas["QuoteRequest"]["anyOf"]])
        self.assertEqual(len(typing.get_args(models.ResendRequest)), len(schemas["ResendRequest"]["anyOf"]))
        # AssetCreated is Asset and its upload (its inherited fields' docstrings are Asset's).
        self.assertEqual(set(typing.get_type_hints(models.AssetCreated)), set(schemas["AssetCreated"]["properties"]))
        self.assertEqual(set(models.AssetCreated.__required_keys__), set(schemas["AssetCreated"]["required"]))
        docs = model_docstrings()
        for name, schema in pairs.items():
            model = getattr(models, name)
            self.assertEqual(set(typing.get_type_hints(model)), set(schema["properties"]), name)
            self.assertEqual(set(model.__required_keys__), set(schema.get("required", [])), name)
            for field, described in schema["properties"].items():
                # A nullable field's description is on its non-null branch (BalanceAlertRequest.below).
                text = described.get("description") or next(b["description"] for b in described.get("anyOf", []) if "description" in b)
                self.assertEqual(docs[name][1].get(field), " ".join(text.split()), f"{name}.{field}: its docstring is the document's description")
        # Every model and every field has its docstring, as editors show it (Created's `replayed` is the client's own).
        for name, (class_doc, fields) in docs.items():
            self.assertTrue(class_doc, f"{name} has a docstring")
            self.assertEqual([f for f, doc in fields.items() if not doc], [], f"{name}: fields without a docstring")
        self.assertIn("Created", docs)


def solid_png(size: int, rgb: tuple[int, int, int]) -> bytes:
    """A PNG of one colour, written by hand (the standard library has no image encoder)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class AssetsTest(unittest.TestCase):
    def test_upload_read_list_name_in_an_order_and_delete(self) -> None:
        client = VideoClient(BASE, KEYS[8])
        png = solid_png(16, (0, 255, 0))
        self.assertEqual(sniff_image_type(png), "image/png")
        asset = client.upload_asset(png)
        self.assertEqual((asset["content_type"], asset["size_bytes"], asset["status"]), ("image/png", len(png), "unchecked"))
        order = client.create_video({"topic": "Kiwi", "duration_seconds": 10, "director_mode": True, "placement": {"product": "Kiwi box", "image": asset["id"]}})
        self.assertEqual(client.get_video(order["id"])["params"]["placement"]["image"], asset["id"])
        read = client.get_asset(asset["id"])
        self.assertEqual((read["status"], read["width"], read["height"]), ("ready", 16, 16))
        self.assertIn(asset["id"], [a["id"] for a in client.list_assets(limit=1)])
        client.delete_asset(asset["id"])
        with self.assertRaises(NotFoundError):
            client.get_asset(asset["id"])
        # Its upload URL writes nothing after the delete: the listed If-None-Match meets the deleted asset's marker.
        again = urllib.request.Request(asset["upload"]["url"], data=png, headers=dict(asset["upload"]["headers"]), method="PUT")
        with self.assertRaises(urllib.error.HTTPError) as late:
            urllib.request.urlopen(again)
        self.assertEqual(late.exception.code, 412)
        # Bytes of another length than declared: the storage refuses the presigned PUT.
        declared = client.create_asset("image/png", len(png) + 1)
        req = urllib.request.Request(declared["upload"]["url"], data=png, headers={"Content-Type": "image/png"}, method="PUT")
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req)
        self.assertEqual(refused.exception.code, 403)
        with self.assertRaises(ValueError):
            client.upload_asset(b"not a picture")
        self.assertTrue(issubclass(UploadError, Exception))

    def test_command_line_uploads_lists_and_deletes(self) -> None:
        env = {**os.environ, "VIDEO_SERVICE_KEY": KEYS[8], "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}
        run = lambda *args: subprocess.run([sys.executable, "-m", "video_client", "--url", BASE, *args], env=env, capture_output=True, text=True, timeout=120)  # noqa: E731
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(solid_png(8, (255, 0, 0)))
            f.flush()
            uploaded = run("assets", "upload", f.name, "--json")
        self.assertEqual(uploaded.returncode, 0, uploaded.stderr)
        asset_id = json.loads(uploaded.stdout)["id"]
        listed = run("assets", "list")
        self.assertIn(asset_id, listed.stdout)
        self.assertEqual(run("assets", "delete", asset_id).returncode, 0)
        self.assertNotIn(asset_id, run("assets", "list").stdout)


def model_docstrings() -> dict[str, tuple[str | None, dict[str, str | None]]]:
    """Each TypedDict of the models module: its docstring, and each field's docstring (the string on the line after it),
    whitespace folded, read from the source as editors read it."""
    found: dict[str, tuple[str | None, dict[str, str | None]]] = {}
    for node in ast.parse(inspect.getsource(models)).body:
        if not isinstance(node, ast.ClassDef):
            continue
        fields: dict[str, str | None] = {}
        for stmt, after in zip(node.body, node.body[1:] + [None]):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                text = after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) else None
                fields[stmt.target.id] = " ".join(text.split()) if isinstance(text, str) else None
        found[node.name] = (ast.get_docstring(node), fields)
    return found


class CommandLineTest(unittest.TestCase):
    def run_cli(self, *args: str) -> "subprocess.CompletedProcess[str]":
        env = {**os.environ, "VIDEO_SERVICE_KEY": KEYS[6], "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}
        return subprocess.run([sys.executable, "-m", "video_client", "--url", BASE, *args], env=env, capture_output=True, text=True, timeout=120)

    def test_quote_list_cancel_transactions_and_webhook(self) -> None:
        quoted = self.run_cli("quote", "Green tea", "--director", "--duration", "10", "--music", "song")
        self.assertEqual(quoted.returncode, 0, quoted.stderr)
        self.assertRegex(quoted.stdout, r"^170 doubloons \(base 100, song 70\); about \d+ s\nquote quo_\w+, valid until ")
        quote_id = quoted.stdout.split("quote ")[1].split(",")[0]
        created = self.run_cli("--json", "create", "Green tea", "--director", "--duration", "10", "--music", "song", "--quote", quote_id)
        self.assertEqual(created.returncode, 0, created.stderr)
        order = json.loads(created.stdout)
        self.assertIn("for 170 doubloons", created.stderr)
        listed = self.run_cli("--json", "list")
        self.assertEqual([o["id"] for o in json.loads(listed.stdout)], [order["id"]])
        wait_status(VideoClient(BASE, KEYS[6]), order["id"], ("awaiting_review",))
        canceled = self.run_cli("cancel", order["id"])
        self.assertEqual(canceled.stdout, f"{order['id']}: canceled, 170 doubloons refunded\n")
        ledger = self.run_cli("transactions")
        self.assertEqual([line.split()[1:3] for line in ledger.stdout.strip().splitlines()], [["refund", "170"], ["charge", "-170"], ["top_up", "1000"]])
        self.assertEqual(self.run_cli("webhook", "resend", "wh_x").returncode, 2)


class TransportTest(unittest.TestCase):
    def test_timeout_dated_retry_after_cap_and_deadline(self) -> None:
        calls = {"n": 0}

        class Flaky(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                calls["n"] += 1
                if self.path.endswith("/hang") and calls["n"] == 1:
                    time.sleep(1.5)
                if self.path.endswith("/dated") and calls["n"] == 1:
                    self.send_response(503)
                    self.send_header("Retry-After", email.utils.formatdate(time.time() + 2, usegmt=True))
                    self.end_headers()
                    self.wfile.write(b'{"error":{"code":"service_unavailable","message":"busy"}}')
                    return
                if self.path.endswith("/far"):
                    self.send_response(429)
                    self.send_header("Retry-After", "3600")
                    self.end_headers()
                    self.wfile.write(b'{"error":{"code":"rate_limited","message":"slow down"}}')
                    return
                if self.path.endswith("/gateway"):
                    self.send_response(429)
                    self.end_headers()
                    self.wfile.write(b'{"message":"Too Many Requests"}')
                    return
                if self.path.endswith("/always"):
                    self.send_response(503)
                    self.send_header("Retry-After", "1")
                    self.end_headers()
                    self.wfile.write(b'{"error":{"code":"service_unavailable","message":"x"}}')
                    return
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b'{"ok":true}')

            def log_message(self, *args: object) -> None:
                pass

        server, base = serve(Flaky)
        try:
            client = VideoClient(base, "vgk_x", base_delay=0.01).with_options(timeout=0.5)
            self.assertEqual(client.timeout, 0.5)
            self.assertEqual(client._request("GET", "/hang"), {"ok": True})
            with self.assertRaises(TypeError):
                client.with_options(timeuot=1)
            calls["n"] = 0
            waits: list[float] = []
            dated = VideoClient(base, "vgk_x", on_retry=lambda a, d, r: waits.append(d))
            self.assertEqual(dated._request("GET", "/dated"), {"ok": True})
            self.assertTrue(1 <= waits[0] <= 3, waits)
            started = time.monotonic()
            with self.assertRaises(RateLimitError) as far:
                VideoClient(base, "vgk_x", max_retry_after=10)._request("GET", "/far")
            self.assertEqual(far.exception.retry_after, 3600)
            self.assertLess(time.monotonic() - started, 2)
            with self.assertRaises(UnexpectedResponseError) as gateway:
                VideoClient(base, "vgk_x", max_retries=0)._request("GET", "/gateway")
            self.assertEqual(gateway.exception.status, 429)
            self.assertIn('{"message":"Too Many Requests"}', str(gateway.exception))
            started = time.monotonic()
            with self.assertRaises(ApiError) as late:
                VideoClient(base, "vgk_x", deadline=2.5, max_retries=20)._request("GET", "/always")
            self.assertEqual((late.exception.status, late.exception.code, late.exception.gave_up), (503, "service_unavailable", True))
            self.assertLess(time.monotonic() - started, 4)
            self.assertEqual(retry_after_seconds("120"), 120)
            self.assertIsNone(retry_after_seconds("soon"))
        finally:
            server.shutdown()


if __name__ == "__main__":
    unittest.main()
