"""python3 -m video_client: the command line of the Python client, the same as `npx video-client`.

Progress goes to stderr and results to stdout (--json for the order as the API gives it). Exit codes: 0 done (or
waiting for a review), 1 refused or failed, 2 bad usage (nothing is sent).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import urllib.request
from typing import Any, Optional

from . import ApiError, VideoClient

Json = dict[str, Any]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m video_client", description="Order and follow videos of the video service.")
    p.add_argument("--url", default=os.environ.get("VIDEO_SERVICE_URL", "http://localhost:3000/v1"), help="the API address with /v1")
    p.add_argument("--key", default=os.environ.get("VIDEO_SERVICE_KEY"), help="the API key (default $VIDEO_SERVICE_KEY)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    sub = p.add_subparsers(dest="command", required=True)

    def follow(sp: argparse.ArgumentParser) -> None:
        # Also after the command; SUPPRESS keeps a --json given before it.
        sp.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
        sp.add_argument("--wait", action="store_true", help="follow the order until done, failed or waiting for a review")
        sp.add_argument("--out", help="save the video of a done order there")
        sp.add_argument("--timeout", type=float, default=900.0, help="seconds --wait waits (default 900)")

    create = sub.add_parser("create", help="order a video (POST /videos:quick, or POST /videos with any order option)")
    create.add_argument("prompt")
    create.add_argument("--director", action="store_true")
    create.add_argument("--duration", type=int)
    create.add_argument("--language", choices=["auto", "ru", "en"])
    create.add_argument("--tone")
    create.add_argument("--music")
    create.add_argument("--voice")
    create.add_argument("--ai-visual", action="store_true")
    create.add_argument("--no-captions", action="store_true")
    create.add_argument("--cta")
    create.add_argument("--product")
    follow(create)
    status = sub.add_parser("status", help="show an order")
    status.add_argument("id")
    follow(status)
    review = sub.add_parser("review", help="approve, edit or regenerate the script of a director-mode order")
    review.add_argument("id")
    review.add_argument("action", choices=["approve", "edit", "regen"])
    review.add_argument("text", nargs="?", help="the new script (edit) or the note (regen)")
    follow(review)
    sub.add_parser("balance", help="the balance and the trial videos left").add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    return p


def _order_request(a: argparse.Namespace) -> Optional[Json]:
    """The body of POST /videos when any order option is given; the server validates the values."""
    body: Json = {"topic": a.prompt}
    options = {
        "director_mode": True if a.director else None,
        "duration_seconds": a.duration,
        "language": a.language,
        "tone": a.tone,
        "music": a.music,
        "voice": a.voice,
        "ai_visual": True if a.ai_visual else None,
        "captions": False if a.no_captions else None,
        "cta": a.cta,
        "placement": {"product": a.product} if a.product else None,
    }
    given = {k: v for k, v in options.items() if v is not None}
    return {**body, **given} if given else None


def _describe(order: Json) -> str:
    lines = [f"{order['id']}: {order['status']}, {order['cost']} doubloons{' (trial)' if order.get('trial') else ''}"]
    if order["status"] == "awaiting_review" and order.get("script"):
        lines += ["Script for review:", order["script"], f"Approve: python3 -m video_client review {order['id']} approve"]
    if order.get("result_url"):
        lines.append(f"Video: {order['result_url']}")
    if order.get("metadata"):
        m = order["metadata"]
        lines += [f"Title: {m['title']}", f"Description: {m['description']}", f"Hashtags: {' '.join(m['hashtags'])}"]
    if order.get("error"):
        lines.append(f"Error: {order['error']['code']}: {order['error']['message']}")
    return "\n".join(lines)


def _download(url: str, path: str) -> int:
    """Follows the link's redirect and writes through a temporary file, renamed when the video is whole."""
    partial = path + ".part"
    try:
        with urllib.request.urlopen(url, timeout=60) as res, open(partial, "wb") as out:
            size = 0
            while chunk := res.read(1 << 16):
                out.write(chunk)
                size += len(chunk)
        os.replace(partial, path)
        return size
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def main(argv: Optional[list[str]] = None) -> int:
    parser = _parser()
    try:
        a = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    if not a.key:
        print("an API key is needed: --key or VIDEO_SERVICE_KEY", file=sys.stderr)
        return 2
    if a.command == "review" and (a.action == "approve") != (a.text is None):
        print('review takes: approve | edit "<script>" | regen "<note>"', file=sys.stderr)
        return 2
    if not (math.isfinite(getattr(a, "timeout", 1.0)) and getattr(a, "timeout", 1.0) > 0):
        print("--timeout takes a number of seconds", file=sys.stderr)
        return 2

    def retrying(attempt: int, delay: float, reason: str) -> None:
        print(f"retrying in {delay:.1f} s: {reason}", file=sys.stderr)

    client = VideoClient(a.url, a.key, on_retry=retrying)
    out = lambda value, text: print(json.dumps(value, indent=2) if a.json else text)  # noqa: E731

    def follow(order: Json) -> int:
        if a.wait:
            started = time.monotonic()
            last = [""]

            def progress(o: Json) -> None:
                if o["status"] != last[0]:
                    eta = f", about {o['eta_seconds']} s left" if o.get("eta_seconds") is not None and o["status"] != "done" else ""
                    print(f"{o['id']} {o['status']} ({time.monotonic() - started:.0f} s{eta})", file=sys.stderr)
                    last[0] = o["status"]

            order = client.wait_for_video(order["id"], timeout=a.timeout, on_progress=progress)
        out(order, _describe(order))
        if a.out and order["status"] == "done" and order.get("result_url"):
            size = _download(order["result_url"], a.out)
            print(f"saved {a.out} ({size / 1e6:.1f} MB)", file=sys.stderr)
        elif a.out and order["status"] != "awaiting_review":
            print(f"not saved: the order is {order['status']}", file=sys.stderr)
        return 1 if order["status"] == "error" else 0

    try:
        if a.command == "create":
            body = _order_request(a)
            created = client.create_video(body) if body else client.create_quick(a.prompt)
            print(f"ordered {created['id']} for {created['cost']} doubloons", file=sys.stderr)
            return follow(client.get_video(created["id"]))
        if a.command == "status":
            return follow(client.get_video(a.id))
        if a.command == "review":
            decision: Json = {"action": a.action}
            if a.action == "edit":
                decision["text"] = a.text
            if a.action == "regen":
                decision["note"] = a.text
            return follow(client.review(a.id, decision))
        balance = client.get_balance()
        plan = f", plan {balance['plan']}" if balance.get("plan") else ""
        out(balance, f"{balance['balance']} doubloons, {balance['trial_videos_left']} trial videos left{plan}")
        return 0
    except ApiError as err:
        request = f", request {err.request_id}" if err.request_id else ""
        print(f"error: {err} (HTTP {err.status}{request})", file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
