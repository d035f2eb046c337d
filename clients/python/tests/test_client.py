"""The Python client against the local service (started by test/clients/python-client.test.ts, which passes the base
address and the API keys; keys 0 to 2 are this file's): a creation whose first answer a proxy drops charged once, a 429
waited out for its Retry-After, wait_for_video to done, webhook verification both ways, and the command line (python3
-m video_client)."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from video_client import ApiError, VideoClient, verify_webhook  # noqa: E402

BASE = os.environ["VIDEO_SERVICE_URL"]
KEYS = json.loads(os.environ["VIDEO_SERVICE_KEYS"])
TEST_KEY = os.environ["VIDEO_SERVICE_TEST_KEY"]


def serve(handler: type) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class TwoQuickOrdersTest(unittest.TestCase):
    """One key's two quick orders, rendered: the first is created through a proxy that loses its first answer, and the
    second, made while the first is active, waits out the 429 for Retry-After and is followed to done."""

    @classmethod
    def setUpClass(cls) -> None:
        seen: dict = {"dropped": 0, "keys": []}

        class Proxy(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if self.command == "POST":
                    seen["keys"].append(self.headers.get("Idempotency-Key"))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                req = urllib.request.Request(BASE.rsplit("/v1", 1)[0] + self.path, data=body, headers=headers, method=self.command)
                try:
                    res = urllib.request.urlopen(req)
                except urllib.error.HTTPError as err:
                    res = err
                data = res.read()
                if self.command == "POST" and seen["dropped"] == 0:
                    seen["dropped"] += 1
                    self.close_connection = True  # the answer is lost on the way back
                    return
                self.send_response(res.status)
                for k, v in res.headers.items():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _forward

        proxy = serve(Proxy)
        try:
            client = VideoClient(f"http://127.0.0.1:{proxy.server_address[1]}/v1", KEYS[0], base_delay=0.05)
            cls.first = client.create_quick("A 10 second video about tea")
            cls.balance_after_first = client.get_balance()["balance"]
            cls.seen = seen
        finally:
            proxy.shutdown()
            proxy.server_close()

    def test_charges_once_when_the_first_answer_is_lost(self) -> None:
        self.assertEqual(self.seen["dropped"], 1)
        self.assertEqual(len(self.seen["keys"]), 2)
        self.assertEqual(self.seen["keys"][0], self.seen["keys"][1])
        self.assertEqual(self.balance_after_first, 1000 - self.first["cost"])

    def test_waits_out_429_for_retry_after_then_wait_for_video_to_done(self) -> None:
        retries = []
        client = VideoClient(BASE, KEYS[0], max_retries=30, on_retry=lambda attempt, delay, reason: retries.append((delay, reason)))
        second = client.create_quick("A 10 second video about coffee")
        self.assertNotEqual(self.first["id"], second["id"])
        self.assertGreaterEqual(len(retries), 1)
        for delay, reason in retries:
            self.assertEqual(reason, "429 active_tasks_exceeded")
            self.assertTrue(1.0 <= delay <= 1.1, delay)  # Retry-After: 1 and 0 to 10% jitter
        impatient = VideoClient(BASE, KEYS[0], max_retries=0)
        with self.assertRaises(ApiError) as caught:
            impatient.create_quick("A third")
        self.assertEqual((caught.exception.status, caught.exception.code, caught.exception.retry_after), (429, "active_tasks_exceeded", 1.0))
        statuses = set()
        done = client.wait_for_video(second["id"], timeout=90, interval=0.2, on_progress=lambda o: statuses.add(o["status"]))
        self.assertEqual(done["status"], "done")
        self.assertTrue(done["result_url"].startswith("http"))
        self.assertIn("done", statuses)
        with self.assertRaises(ApiError) as missing:
            client.get_video("vid_01m837a36rwd3vvm20wnzfsswb")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "not_found"))


class ClientTest(unittest.TestCase):
    def test_verifies_a_real_webhook_delivery_both_ways(self) -> None:
        received = []

        class Receiver(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                received.append((raw, self.headers.get("X-Service-Signature")))
                self.send_response(204)
                self.end_headers()

        receiver = serve(Receiver)
        try:
            client = VideoClient(BASE, KEYS[1])
            secret = client.create_webhook(f"http://127.0.0.1:{receiver.server_address[1]}/hook")["secret"]
            created = client.create_video({"topic": "Tea", "duration_seconds": 10, "director_mode": True})
            client.wait_for_video(created["id"], timeout=60, interval=0.2)
            end = time.monotonic() + 20
            while not received and time.monotonic() < end:
                time.sleep(0.1)
            raw, signature = received[0]
            self.assertTrue(verify_webhook(raw, signature, secret))
            self.assertTrue(verify_webhook(raw.decode(), signature, secret))
            changed = bytearray(raw)
            changed[-2] ^= 1
            self.assertFalse(verify_webhook(bytes(changed), signature, secret))
            self.assertFalse(verify_webhook(raw, signature, secret + "x"))
            self.assertFalse(verify_webhook(raw, None, secret))
        finally:
            receiver.shutdown()
            receiver.server_close()


if __name__ == "__main__":
    unittest.main()


class CommandLineTest(unittest.TestCase):
    """python3 -m video_client in its own process, with the third key."""

    def cli(self, *args: str, key: str = "") -> "subprocess.CompletedProcess[str]":
        env = {**os.environ, "VIDEO_SERVICE_URL": BASE, "VIDEO_SERVICE_KEY": key or KEYS[2], "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}
        return subprocess.run([sys.executable, "-m", "video_client", *args], env=env, capture_output=True, text=True, timeout=180)

    def test_a_test_mode_key_orders_for_nothing_and_gets_a_short_clip(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "video.mp4")
            r = self.cli("--json", "create", "A 10 second video about tea", "--wait", "--out", out, key=TEST_KEY)
            self.assertEqual(r.returncode, 0, r.stderr)
            order = json.loads(r.stdout)
            self.assertEqual((order["status"], order["livemode"], order["cost"]), ("done", False, 0))
            self.assertRegex(r.stderr, rf"ordered {order['id']} for 0 doubloons")
            with open(out, "rb") as f:
                self.assertEqual(f.read(12)[4:8], b"ftyp", "an mp4 was saved")
        balance = json.loads(self.cli("--json", "balance", key=TEST_KEY).stdout)
        self.assertEqual((balance["balance"], balance["trial_videos_left"], balance["livemode"], balance["spend"]["spent"]), (0, 0, False, 0))

    def test_create_wait_out_then_status_review_balance_and_bad_usage(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "video.mp4")
            r = self.cli("--json", "create", "A 10 second video about tea", "--wait", "--out", out, "--metadata", "crm=py-cli", "--metadata", "n=1")
            self.assertEqual(r.returncode, 0, r.stderr)
            order = json.loads(r.stdout)
            self.assertEqual(order["status"], "done")
            self.assertEqual(order["client_metadata"], {"crm": "py-cli", "n": "1"})
            tagged = self.cli("--json", "list", "--metadata", "crm=py-cli")
            self.assertEqual([o["id"] for o in json.loads(tagged.stdout)], [order["id"]])
            self.assertRegex(r.stderr, rf"ordered {order['id']} for 100 doubloons")
            self.assertRegex(r.stderr, rf"{order['id']} done \(")
            with open(out, "rb") as f:
                head = f.read(12)
            self.assertEqual(head[4:8], b"ftyp", "an mp4 was saved")
            self.assertGreater(os.path.getsize(out), 100_000)
            self.assertFalse(os.path.exists(out + ".part"))
        balance = self.cli("--json", "balance")
        self.assertEqual(json.loads(balance.stdout)["balance"], 900, "charged once")
        alerted = self.cli("balance", "--alert", "500")
        self.assertRegex(alerted.stdout, r"^900 doubloons, \d+ trial videos left; spent \d+ in \d{4}-\d{2}; alert below 500\n$")
        self.assertNotIn("alert", self.cli("balance", "--alert", "none").stdout)
        status = self.cli("status", order["id"])
        self.assertEqual(status.returncode, 0)
        self.assertIn("Hashtags: #", status.stdout)
        again = self.cli("review", order["id"], "approve")
        self.assertEqual(again.returncode, 1)
        self.assertIn("error: not_awaiting_review", again.stderr)
        missing = self.cli("status", "vid_01m837a36rwd3vvm20wnzfsswb")
        self.assertEqual((missing.returncode, "not_found" in missing.stderr), (1, True))
        self.assertEqual(self.cli("balance", key="vgk_nope").returncode, 1)
        for bad in (["review", order["id"], "edit"], ["review", order["id"], "approve", "extra"], ["frobnicate"], ["create"], ["status", "x", "--timeout", "0"], ["create", "tea", "--metadata", "novalue"]):
            self.assertEqual(self.cli(*bad).returncode, 2, bad)
