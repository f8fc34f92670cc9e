"""Verifying the server's webhooks (a batch's batch.finished, a key's low-credit alerts), and a small
receiver for scripts.

Each POST carries X-SocialLookup-Signature: sha256=<hex HMAC-SHA256 of the raw body>, keyed with
the key's signing secret as the console shows it ("whsec_…"). Recompute it over the raw body, before
parsing, and compare in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SIGNATURE_HEADER = "X-SocialLookup-Signature"
EVENT_HEADER = "X-SocialLookup-Event"
# The same on every retry of one delivery: deduplicate on it.
DELIVERY_HEADER = "X-SocialLookup-Delivery"


class WebhookSignatureError(Exception):
    """The webhook's signature does not match its body: a forged or altered delivery."""


def is_valid_signature(secret: str, body: bytes | str, signature: str | None) -> bool:
    """True when signature (the header's value) is the HMAC of exactly this raw body under secret."""
    if not signature or not secret:
        return False
    raw = body.encode("utf-8") if isinstance(body, str) else body
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), signature.strip().encode("utf-8", "replace"))


def verify_webhook(secret: str, body: bytes | str, signature: str | None) -> dict[str, Any]:
    """The event of a genuine delivery; WebhookSignatureError for a forged or altered one."""
    if not is_valid_signature(secret, body, signature):
        raise WebhookSignatureError("the webhook's signature does not match its body")
    event = json.loads(body)
    if not isinstance(event, dict):
        raise WebhookSignatureError("the webhook's body is not an event")
    return event


class WebhookWaiter:
    """Set when an event that matches arrives: batch.wait(finished=…) ends on it."""

    def __init__(self, matches: Callable[[dict[str, Any]], bool]) -> None:
        self.matches = matches
        self._ready = threading.Event()
        # The event, once it arrived.
        self.event: dict[str, Any] | None = None

    def set(self, event: dict[str, Any]) -> None:
        self.event = event
        self._ready.set()

    def is_set(self) -> bool:
        return self._ready.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)


class WebhookReceiver:
    """A webhook endpoint in a background thread: 204 for a genuine delivery, 401 for a forged one
    (never handed on), repeated deliveries dropped.

        with WebhookReceiver(secret, host="0.0.0.0", port=8080) as receiver:
            batch = client.batches.create("event_details_id", inputs, webhook_url="https://me.example/hooks")
            batch.wait(finished=receiver.batch_finished(batch.id))

    The server delivers to public addresses only, unless its operator allows more.
    """

    def __init__(self, secret: str, host: str = "127.0.0.1", port: int = 0, max_body_bytes: int = 1024 * 1024) -> None:
        self.secret = secret
        # Genuine deliveries, in arrival order.
        self.events: list[dict[str, Any]] = []
        # Deliveries refused for their signature.
        self.refused = 0
        self._deliveries: set[str] = set()
        self._waiters: list[WebhookWaiter] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                if length > max_body_bytes:
                    self.send_response(413)
                    self.end_headers()
                    return
                body = self.rfile.read(length)
                try:
                    event = verify_webhook(receiver.secret, body, self.headers.get(SIGNATURE_HEADER))
                except (WebhookSignatureError, ValueError):
                    with receiver._lock:
                        receiver.refused += 1
                    self.send_response(401)
                    self.end_headers()
                    return
                receiver._accept(event, self.headers.get(DELIVERY_HEADER))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        bound_host, bound_port = self._server.server_address[:2]
        shown = f"[{bound_host}]" if ":" in str(bound_host) else str(bound_host)
        # http://host:port/ as bound.
        self.url = f"http://{shown}:{bound_port}/"

    def _accept(self, event: dict[str, Any], delivery: str | None) -> None:
        with self._lock:
            if delivery is not None:
                if delivery in self._deliveries:
                    return
                self._deliveries.add(delivery)
            self.events.append(event)
            ready = [waiter for waiter in self._waiters if waiter.matches(event)]
            self._waiters = [waiter for waiter in self._waiters if waiter not in ready]
        for waiter in ready:
            waiter.set(event)

    def next(self, matches: Callable[[dict[str, Any]], bool] = lambda event: True) -> WebhookWaiter:
        """A waiter for the first genuine event (received already, or to come) that matches."""
        waiter = WebhookWaiter(matches)
        with self._lock:
            found = next((event for event in self.events if matches(event)), None)
            if found is None:
                self._waiters.append(waiter)
        if found is not None:
            waiter.set(found)
        return waiter

    def batch_finished(self, batch_id: str) -> WebhookWaiter:
        """A waiter for the batch's batch.finished event."""
        return self.next(lambda event: event.get("event") == "batch.finished" and event.get("batchId") == batch_id)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
