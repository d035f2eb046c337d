"""Issue 40, errors always typed: each failure against a real loopback server this file starts and stops (no service
needed). A refused connection and a timeout are the client's own APIConnectionError and APITimeoutError; a Retry-After
longer than max_retry_after, or one that would pass the deadline, raises the last ApiError flagged `gave_up`, its code,
retry_after and request id kept; wait_for_video's timeout carries the last order; 403 is PermissionDeniedError (a
NotFoundError); Retry-After waits get 0 to 10% jitter; timeout and deadline per call. The names are read from the
module at each test, so that each test fails on its own against a client without them."""
import asyncio
import json
import os
import socket
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import video_client as vc  # noqa: E402
from video_client import aio  # noqa: E402

RUNNING = {"id": "vid_01m8000000000000000000000a", "status": "running", "cost": 100, "progress": 40}


class Loopback:
    """A server on 127.0.0.1 answering each GET with route(path) -> (status, headers, body, pause seconds); it counts
    the requests and the most in flight at once."""

    def __init__(self, route: Callable[[str], tuple[int, dict[str, str], Any, float]]):
        self.calls = 0
        self.in_flight = 0
        self.most = 0
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                with lock:
                    outer.calls += 1
                    outer.in_flight += 1
                    outer.most = max(outer.most, outer.in_flight)
                try:
                    status, headers, body, pause = route(self.path)
                    time.sleep(pause)
                    # In flight until its answer starts: a client cannot have its answer (and send its next request)
                    # before this, so the count never includes a request already answered.
                    with lock:
                        outer.in_flight -= 1
                    data = body if isinstance(body, bytes) else json.dumps(body).encode()
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = answer

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # a burst of connections is queued, not refused

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def envelope(code: str, request_id: str = "req_1") -> dict[str, Any]:
    return {"error": {"code": code, "message": code.replace("_", " "), "request_id": request_id}}


class ErrorsTest(unittest.TestCase):
    def serve(self, route: Callable[[str], tuple[int, dict[str, str], Any, float]]) -> Loopback:
        server = Loopback(route)
        self.addCleanup(server.close)
        return server

    def test_a_refused_connection_is_api_connection_error(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()  # nothing listens there now
        client = vc.VideoClient(f"http://127.0.0.1:{port}/v1", "vgk_x", max_retries=1, base_delay=0.01)
        with self.assertRaises(vc.APIConnectionError) as caught:
            client.get_balance()
        self.assertNotIsInstance(caught.exception, vc.APITimeoutError)
        self.assertIsInstance(caught.exception, vc.VideoClientError)
        self.assertIn("GET /balance", str(caught.exception))
        self.assertIsNotNone(caught.exception.cause)

    def test_a_timeout_is_api_timeout_error_and_a_timeout_error(self) -> None:
        server = self.serve(lambda path: (200, {}, {"balance": 1}, 2.0))
        started = time.monotonic()
        with self.assertRaises(vc.APITimeoutError) as caught:
            vc.VideoClient(server.base, "vgk_x", timeout=0.3, max_retries=0).get_balance()
        self.assertLess(time.monotonic() - started, 1.5)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertIsInstance(caught.exception, vc.APIConnectionError)

    def test_a_long_retry_after_gives_up_with_the_last_api_error(self) -> None:
        server = self.serve(lambda path: (429, {"Retry-After": "3600", "X-Request-Id": "req_far"}, envelope("rate_limited", "req_far"), 0))
        started = time.monotonic()
        with self.assertRaises(vc.RateLimitError) as caught:
            vc.VideoClient(server.base, "vgk_x", max_retry_after=10).get_balance()
        self.assertLess(time.monotonic() - started, 2)
        e = caught.exception
        self.assertEqual((e.status, e.code, e.retry_after, e.request_id, e.gave_up), (429, "rate_limited", 3600, "req_far", True))
        self.assertIn("max_retry_after", e.gave_up_reason or "")
        self.assertEqual(server.calls, 1)

    def test_past_the_deadline_it_gives_up_with_the_last_api_error(self) -> None:
        server = self.serve(lambda path: (503, {"Retry-After": "1"}, envelope("service_unavailable", "req_busy"), 0))
        started = time.monotonic()
        with self.assertRaises(vc.ApiError) as caught:
            vc.VideoClient(server.base, "vgk_x", deadline=2.5, max_retries=20).get_balance()
        self.assertLess(time.monotonic() - started, 4)
        e = caught.exception
        self.assertEqual((e.status, e.code, e.retry_after, e.request_id, e.gave_up), (503, "service_unavailable", 1, "req_busy", True))
        self.assertIn("deadline", e.gave_up_reason or "")
        self.assertGreaterEqual(server.calls, 2)
        # A refusal the client does not retry is not flagged.
        refused = self.serve(lambda path: (409, {}, envelope("not_cancelable"), 0))
        with self.assertRaises(vc.ConflictError) as conflict:
            vc.VideoClient(refused.base, "vgk_x").get_balance()
        self.assertFalse(conflict.exception.gave_up)

    def test_wait_for_video_timeout_carries_the_last_order(self) -> None:
        server = self.serve(lambda path: (200, {"Retry-After": "1"}, RUNNING, 0))
        with self.assertRaises(vc.WaitTimeoutError) as caught:
            vc.VideoClient(server.base, "vgk_x").wait_for_video(RUNNING["id"], timeout=0.5, interval=0.1)
        self.assertIsInstance(caught.exception, TimeoutError)
        self.assertEqual((caught.exception.order["id"], caught.exception.order["status"]), (RUNNING["id"], "running"))

        async def run() -> None:
            client = aio.AsyncVideoClient(server.base, "vgk_x")
            with self.assertRaises(vc.WaitTimeoutError) as waited:
                await client.wait_for_video(RUNNING["id"], timeout=0.5, interval=0.1)
            self.assertEqual(waited.exception.order["progress"], 40)
            await client.close()

        asyncio.run(run())

    def test_a_success_that_is_not_json_is_unexpected_response_error(self) -> None:
        server = self.serve(lambda path: (200, {"Content-Type": "text/html"}, b"<html>Sign in to the hotel Wi-Fi</html>", 0))
        with self.assertRaises(vc.UnexpectedResponseError) as caught:
            vc.VideoClient(server.base, "vgk_x").get_balance()
        self.assertEqual(caught.exception.status, 200)
        self.assertIn("hotel Wi-Fi", str(caught.exception))

    def test_403_is_permission_denied_a_subclass_of_not_found(self) -> None:
        server = self.serve(lambda path: (403, {}, envelope("forbidden"), 0) if "forbidden" in path else (404, {}, envelope("not_found"), 0))
        client = vc.VideoClient(server.base, "vgk_x")
        with self.assertRaises(vc.PermissionDeniedError) as caught:
            client.get_video("forbidden")
        self.assertIsInstance(caught.exception, vc.NotFoundError)
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "forbidden"))
        with self.assertRaises(vc.NotFoundError) as missing:
            client.get_video("missing")
        self.assertNotIsInstance(missing.exception, vc.PermissionDeniedError)

    def test_retry_after_waits_get_0_to_10_percent_jitter(self) -> None:
        server = self.serve(lambda path: (429, {"Retry-After": "1"}, envelope("rate_limited"), 0))
        waits: list[float] = []
        client = vc.VideoClient(server.base, "vgk_x", max_retries=2, on_retry=lambda attempt, delay, reason: waits.append(delay))
        with self.assertRaises(vc.RateLimitError) as caught:
            client.get_balance()
        self.assertEqual(len(waits), 2)
        self.assertTrue(all(1.0 <= w <= 1.1 for w in waits), waits)
        self.assertNotEqual(waits, [1.0, 1.0], "the waits are jittered")
        self.assertTrue(caught.exception.gave_up)
        # The rule itself, sampled: within 0 to 10% above the hint, and spread.
        delays = [client._delay(0, 2.0) for _ in range(200)]
        self.assertTrue(all(2.0 <= d <= 2.2 for d in delays), (min(delays), max(delays)))
        self.assertGreater(max(delays) - min(delays), 0.1)

    def test_timeout_and_deadline_per_call(self) -> None:
        server = self.serve(lambda path: (200, {}, {"id": "x", "status": "done"}, 1.0 if "slow" in path else 0))
        client = vc.VideoClient(server.base, "vgk_x", timeout=10, deadline=30, max_retries=0)
        self.assertEqual(client.get_video("fast", timeout=0.8)["status"], "done")
        started = time.monotonic()
        with self.assertRaises(vc.APITimeoutError):
            client.get_video("slow", timeout=0.3)
        with self.assertRaises(vc.APITimeoutError):
            client.get_video("slow", deadline=0.3)
        self.assertLess(time.monotonic() - started, 1.8)
        self.assertEqual(client.timeout, 10, "the client's own settings are unchanged")

        async def run() -> None:
            async with aio.AsyncVideoClient(server.base, "vgk_x", max_retries=0) as a:
                with self.assertRaises(vc.APITimeoutError):
                    await a.get_video("slow", timeout=0.3)
                self.assertEqual((await a.get_video("fast", deadline=5))["status"], "done")

        asyncio.run(run())


if __name__ == "__main__":
    unittest.main()
