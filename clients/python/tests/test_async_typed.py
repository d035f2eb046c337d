"""Issue 40, Python typed end to end, at run time (the checkers' side is test/clients/python-typing.test.ts): the async
client written out, method for method the sync client's (same parameters, no __getattr__), every list an async
iterator, a concurrency bound of its own, typed list queries; against loopback servers this file starts and stops."""
import asyncio
import inspect
import os
import sys
import unittest
import urllib.parse
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))
import video_client as vc  # noqa: E402
from test_errors import Loopback  # noqa: E402
from video_client.aio import AsyncVideoClient  # noqa: E402


def public_methods(cls: type) -> dict[str, Any]:
    return {name: member for name, member in vars(cls).items() if callable(member) and not name.startswith("_")}


def pages(prefix: str) -> Any:
    """Two pages of three items each under /v1/<prefix>, the second after starting_after=<prefix>_3."""

    def route(path: str) -> tuple[int, dict[str, str], Any, float]:
        url = urllib.parse.urlsplit(path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if not url.path.endswith(prefix[1]):
            return 404, {}, {"error": {"code": "not_found", "message": "no"}}, 0
        first = query.get("starting_after") != f"{prefix[0]}_3"
        ids = [1, 2, 3] if first else [4, 5, 6]
        page: dict[str, Any] = {"data": [{"id": f"{prefix[0]}_{i}", "kind": "charge", "amount": -i} for i in ids], "has_more": first}
        if first:
            page["next_starting_after"] = f"{prefix[0]}_3"
        return 200, {}, page, 0

    return route


class AsyncTypedTest(unittest.TestCase):
    def test_the_async_client_is_written_out_as_the_sync_one(self) -> None:
        self.assertNotIn("__getattr__", vars(AsyncVideoClient), "no forwarding: every method is declared")
        sync, async_ = public_methods(vc.VideoClient), public_methods(AsyncVideoClient)
        self.assertEqual(sorted(set(sync) - set(async_)), [], "every call of VideoClient is on AsyncVideoClient")
        for name, method in sync.items():
            mine = async_[name]
            if name == "with_options":
                self.assertEqual(list(inspect.signature(mine).parameters), list(inspect.signature(method).parameters))
                continue
            expected = inspect.signature(method)
            self.assertEqual(inspect.signature(mine).parameters, expected.parameters, name)
            if inspect.isgeneratorfunction(method):
                self.assertTrue(inspect.isasyncgenfunction(mine), f"{name} is an async iterator")
                self.assertEqual(str(inspect.signature(mine).return_annotation), str(expected.return_annotation).replace("Iterator", "AsyncIterator"), name)
            else:
                self.assertTrue(inspect.iscoroutinefunction(mine), f"{name} is a coroutine function")
                self.assertEqual(inspect.signature(mine).return_annotation, expected.return_annotation, name)
        # The lists, with their typed queries, as the sync client has them.
        for name in ("list_videos", "list_transactions", "list_assets"):
            params = inspect.signature(async_[name]).parameters
            self.assertTrue(all(p.kind == p.KEYWORD_ONLY for n, p in params.items() if n != "self"), name)
            self.assertIn("timeout", params)
            self.assertIn("deadline", params)

    def test_every_list_pages_with_async_for(self) -> None:
        for prefix, method in ((("vid", "/videos"), "list_videos"), (("txn", "/balance/transactions"), "list_transactions"), (("ast", "/assets"), "list_assets")):
            server = Loopback(pages(prefix))
            try:

                async def run() -> list[str]:
                    client = AsyncVideoClient(server.base, "vgk_x")
                    return [item["id"] async for item in getattr(client, method)(limit=3)]

                self.assertEqual(asyncio.run(run()), [f"{prefix[0]}_{i}" for i in range(1, 7)], method)
                self.assertEqual([i["id"] for i in getattr(vc.VideoClient(server.base, "vgk_x"), method)(limit=3)], [f"{prefix[0]}_{i}" for i in range(1, 7)])
                self.assertEqual(server.calls, 4)
            finally:
                server.close()

    def test_list_queries_are_keyword_arguments_sent_as_the_document_says(self) -> None:
        seen: list[str] = []

        def route(path: str) -> tuple[int, dict[str, str], Any, float]:
            seen.append(path)
            return 200, {}, {"data": [], "has_more": False}, 0

        server = Loopback(route)
        try:
            client = vc.VideoClient(server.base, "vgk_x")
            self.assertEqual(list(client.list_videos(status="error", metadata={"crm": "7"}, created_gte="2026-01-01T00:00:00Z", limit=5)), [])
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(seen[0]).query))
            self.assertEqual(query, {"status": "error", "metadata[crm]": "7", "created_gte": "2026-01-01T00:00:00Z", "limit": "5"})
            with self.assertRaises(TypeError):
                client.list_videos(stauts="error")  # type: ignore[call-arg]
        finally:
            server.close()

    def test_max_concurrency_bounds_the_requests_in_flight(self) -> None:
        server = Loopback(lambda path: (200, {}, {"balance": 1}, 0.3))
        try:

            async def burst(bound: int, n: int) -> None:
                async with AsyncVideoClient(server.base, "vgk_x", max_concurrency=bound) as client:
                    await asyncio.gather(*(client.get_balance() for _ in range(n)))

            asyncio.run(burst(2, 8))
            self.assertEqual(server.most, 2)
            server.most = 0
            asyncio.run(burst(40, 40))
            # Beyond the default thread pool's size (min(32, cores + 4)): all 40 at once unless the machine is so
            # loaded that some started 0.3 s after the first ended.
            default_pool = min(32, (os.cpu_count() or 1) + 4)
            self.assertGreater(server.most, default_pool, f"{server.most} in flight at most")
            with self.assertRaises(ValueError):
                AsyncVideoClient(server.base, "vgk_x", max_concurrency=0)
        finally:
            server.close()


if __name__ == "__main__":
    unittest.main()
