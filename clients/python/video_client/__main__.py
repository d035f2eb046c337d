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
from typing import Any, Optional, cast

from . import ApiError, VideoClient, VideoClientError
from .models import Asset, CreateVideoRequest, Order, QuickVideoRequest, ReviewRequest, Transaction

Json = dict[str, Any]


def _pair(text: str) -> "tuple[str, str]":
    """KEY=VALUE, for --metadata."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("--metadata takes KEY=VALUE")
    return key, value


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

    def order_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("prompt")
        sp.add_argument("--director", action="store_true")
        sp.add_argument("--duration", type=int)
        sp.add_argument("--language", choices=["auto", "ru", "en"])
        sp.add_argument("--tone")
        sp.add_argument("--music")
        sp.add_argument("--voice")
        sp.add_argument("--ai-visual", action="store_true")
        sp.add_argument("--no-captions", action="store_true")
        sp.add_argument("--cta")
        sp.add_argument("--product")
        sp.add_argument("--product-image", metavar="ASSET_ID", help="with --product: the product's picture (an uploaded asset)")
        sp.add_argument("--logo", metavar="ASSET_ID", help="your logo (an uploaded asset) in the corner of every scene")

    create = sub.add_parser("create", help="order a video (POST /videos:quick, or POST /videos with any order option)")
    order_options(create)
    create.add_argument("--quote", help="be charged exactly this quote (made for the same request)")
    create.add_argument("--max-cost", type=int, help="refuse the order if it would cost more")
    create.add_argument("--metadata", action="append", type=_pair, metavar="KEY=VALUE", help="your own pair on the order (repeatable)")
    follow(create)
    quote = sub.add_parser("quote", help="the price of an order, item by item, and a quote id valid 15 minutes")
    order_options(quote)
    quote.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    listing = sub.add_parser("list", help="the key's orders, newest first")
    listing.add_argument("--status")
    listing.add_argument("--metadata", type=_pair, metavar="KEY=VALUE", help="only orders with this pair")
    listing.add_argument("--limit", type=int, default=20)
    listing.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    cancel = sub.add_parser("cancel", help="cancel an order whose render has not started, with a full refund")
    cancel.add_argument("id")
    cancel.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    ledger = sub.add_parser("transactions", help="the ledger, newest first, with the balance after each entry")
    ledger.add_argument("--limit", type=int, default=20)
    ledger.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    webhook = sub.add_parser("webhook", help="rotate the secret, send a test event, or deliver events again")
    webhook.add_argument("action", choices=["rotate", "test", "resend"])
    webhook.add_argument("id")
    webhook.add_argument("event_id", nargs="?")
    webhook.add_argument("--overlap", type=int, help="rotate: seconds the old secret keeps signing")
    webhook.add_argument("--since", help="resend: every event dropped since this ISO 8601 time")
    webhook.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    status = sub.add_parser("status", help="show an order")
    status.add_argument("id")
    follow(status)
    review = sub.add_parser("review", help="approve, edit or regenerate the script of a director-mode order")
    review.add_argument("id")
    review.add_argument("action", choices=["approve", "edit", "regen"])
    review.add_argument("text", nargs="?", help="the new script (edit) or the note (regen)")
    follow(review)
    balance = sub.add_parser("balance", help="the balance, the trial videos left, this month's spend and its limit")
    balance.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    balance.add_argument("--alert", help="set the low-balance threshold (balance.low to the webhook), or none to remove it")
    assets = sub.add_parser("assets", help="your pictures: upload one (PNG, JPEG, WebP, up to 10 MiB), list or delete them")
    assets.add_argument("action", choices=["upload", "list", "delete"])
    assets.add_argument("target", nargs="?", help="upload: the file; delete: the asset id")
    assets.add_argument("--limit", type=int, default=20)
    assets.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    return p


def _order_request(a: argparse.Namespace) -> Optional[CreateVideoRequest]:
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
        "placement": {"product": a.product, **({"image": a.product_image} if a.product_image else {})} if a.product else None,
    }
    given = {k: v for k, v in options.items() if v is not None}
    return cast(CreateVideoRequest, {**body, **given}) if given else None


def _describe(order: Order) -> str:
    lines = [f"{order['id']}: {order['status']}, {order['cost']} doubloons{' (trial)' if order.get('trial') else ''}"]
    if order["status"] == "awaiting_review" and (script := order.get("script")):
        lines += ["Script for review:", script, f"Approve: python3 -m video_client review {order['id']} approve"]
    if url := order.get("result_url"):
        lines.append(f"Video: {url}")
    if m := order.get("metadata"):
        lines += [f"Title: {m['title']}", f"Description: {m['description']}", f"Hashtags: {' '.join(m['hashtags'])}"]
    if error := order.get("error"):
        lines.append(f"Error: {error['code']}: {error['message']}")
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
    def out(value: object, text: str) -> None:
        print(json.dumps(value, indent=2) if a.json else text)

    def follow(order: Order) -> int:
        if a.wait:
            started = time.monotonic()
            last = [""]

            def progress(o: Order) -> None:
                if o["status"] != last[0]:
                    eta = f", about {o.get('eta_seconds')} s left" if o.get("eta_seconds") is not None and o["status"] != "done" else ""
                    print(f"{o['id']} {o['status']} ({time.monotonic() - started:.0f} s{eta})", file=sys.stderr)
                    last[0] = o["status"]

            order = client.wait_for_video(order["id"], timeout=a.timeout, on_progress=progress)
        out(order, _describe(order))
        result_url = order.get("result_url")
        if a.out and order["status"] == "done" and result_url:
            size = _download(result_url, a.out)
            print(f"saved {a.out} ({size / 1e6:.1f} MB)", file=sys.stderr)
        elif a.out and order["status"] != "awaiting_review":
            print(f"not saved: the order is {order['status']}", file=sys.stderr)
        return 1 if order["status"] == "error" else 0

    try:
        if a.command == "create":
            body = _order_request(a)
            pairs = dict(a.metadata) if a.metadata else None
            if body:
                extra = {k: v for k, v in {"quote_id": a.quote, "max_cost": a.max_cost, "metadata": pairs, "logo": a.logo}.items() if v is not None}
                created = client.create_video(cast(CreateVideoRequest, {**body, **extra}))
            else:
                created = client.create_quick(a.prompt, quote_id=a.quote, max_cost=a.max_cost, metadata=pairs, logo=a.logo)
            print(f"ordered {created['id']} for {created['cost']} doubloons", file=sys.stderr)
            return follow(client.get_video(created["id"]))
        if a.command == "status":
            return follow(client.get_video(a.id))
        if a.command == "review":
            decision: ReviewRequest
            if a.action == "edit":
                decision = {"action": "edit", "text": a.text}
            elif a.action == "regen":
                decision = {"action": "regen", "note": a.text}
            else:
                decision = {"action": "approve"}
            return follow(client.review(a.id, decision))
        if a.command == "quote":
            ordered = _order_request(a)
            q = client.quote(ordered if ordered is not None else QuickVideoRequest(prompt=a.prompt))
            items = [f"base {q['breakdown']['base']}"] + [f"{k} {n}" for k, n in q["breakdown"]["extras"].items()]
            out(q, f"{q['cost']} doubloons ({', '.join(items)}); about {q['eta_seconds']} s\nquote {q['quote_id']}, valid until {q['expires_at']}")
            return 0
        if a.command == "list":
            orders: list[Order] = []
            for o in client.list_videos(limit=min(100, a.limit), status=a.status or None, metadata=dict([a.metadata]) if a.metadata else None):
                orders.append(o)
                if len(orders) >= a.limit:
                    break
            out(orders, "\n".join(f"{o['id']}  {o['status']:<15} {o['cost']:>4}  {o['created_at']}  {o['params']['topic']}" for o in orders) or "no orders")
            return 0
        if a.command == "cancel":
            order = client.cancel(a.id)
            out(order, f"{order['id']}: canceled, {order.get('refund', {}).get('amount', 0)} doubloons refunded")
            return 0
        if a.command == "transactions":
            entries: list[Transaction] = []
            for e in client.list_transactions(limit=min(100, a.limit)):
                entries.append(e)
                if len(entries) >= a.limit:
                    break
            lines = [f"{e['created_at']}  {e['kind']:<14} {e['amount']:>6}  balance {e['balance_after']}{'  ' + e.get('order_id', '') if e.get('order_id') else ''}" for e in entries]
            out(entries, "\n".join(lines) or "no entries")
            return 0
        if a.command == "webhook":
            if a.action == "rotate":
                r = client.rotate_webhook_secret(a.id, a.overlap)
                until = f"; the old one signs too until {r.get('previous_secret_expires_at')}" if r.get("previous_secret_expires_at") else ""
                out(r, f"new secret {r['secret']}{until}")
                return 0
            if a.action == "test":
                t = client.test_webhook(a.id)
                out(t, f"{'delivered' if t['delivered'] else 'not delivered'}: {t.get('http_status', t.get('error'))} in {t['latency_ms']} ms")
                return 0 if t["delivered"] else 1
            if (a.event_id is None) == (a.since is None):
                print("webhook resend takes an event id or --since <time>", file=sys.stderr)
                return 2
            resent = client.resend_events(a.id, event_id=a.event_id, since=a.since)
            out(resent, f"sent again: {', '.join(resent['resent'])}" if resent["resent"] else "nothing to send again")
            return 0
        if a.command == "assets":
            if a.action == "upload" and a.target:
                uploaded = client.upload_asset(a.target)
                out(uploaded, f"{uploaded['id']}: uploaded {a.target} ({uploaded['content_type']}, {uploaded['size_bytes']} bytes); name it as --logo or --product-image")
                return 0
            if a.action == "list" and not a.target:
                found: list[Asset] = []
                for asset in client.list_assets(limit=min(100, a.limit)):
                    found.append(asset)
                    if len(found) >= a.limit:
                        break

                def size(x: Asset) -> str:
                    return f"{x['width']}x{x['height']}" if "width" in x and "height" in x else x.get("refusal", "")

                out(found, "\n".join(f"{x['id']}  {x['status']:<9} {x['content_type']:<10} {x['created_at']}  {size(x)}" for x in found) or "no assets")
                return 0
            if a.action == "delete" and a.target:
                client.delete_asset(a.target)
                out({"deleted": a.target}, f"{a.target}: deleted")
                return 0
            print("assets takes: upload <file> | list | delete <id>", file=sys.stderr)
            return 2
        if a.alert is None:
            balance = client.get_balance()
        else:
            if a.alert != "none" and not a.alert.isdigit():
                print("--alert takes a whole number of doubloons or none", file=sys.stderr)
                return 2
            balance = client.set_balance_alert(None if a.alert == "none" else int(a.alert))
        plan = f", plan {balance.get('plan')}" if balance.get("plan") else ""
        spend = balance["spend"]
        limit = f" of {spend['limit']}" if "limit" in spend else ""
        alert = balance.get("low_balance_alert")
        alerted = f"; alert below {alert['below']}{' (sent)' if alert['sent'] else ''}" if alert else ""
        out(balance, f"{balance['balance']} doubloons, {balance['trial_videos_left']} trial videos left{plan}; spent {spend['spent']}{limit} in {spend['month']}{alerted}")
        return 0
    except ApiError as err:
        request = f", request {err.request_id}" if err.request_id else ""
        print(f"error: {err} (HTTP {err.status}{request})", file=sys.stderr)
        return 1
    except (VideoClientError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
