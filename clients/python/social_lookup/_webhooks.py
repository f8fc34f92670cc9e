"""Verifying the server's webhooks (a batch's batch.finished, a key's low-credit alerts), and a small
receiver for scripts.

Each POST carries

    X-SocialLookup-Delivery: <delivery id>    the same on every retry of one delivery
    X-SocialLookup-Timestamp: <Unix seconds>  when this attempt was sent
    X-SocialLookup-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<delivery id>.<raw body>">

keyed with the key's signing secret as the console shows it ("whsec_…"). verify_webhook checks the
timestamp is within 5 minutes of this clock, then recomputes the HMAC over the raw body (before
parsing) and compares in constant time; it answers the event with its signed delivery id. A receiver
acts on each delivery id once: a retry repeats it, and so does a captured delivery replayed within
those 5 minutes; later, the timestamp refuses it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

SIGNATURE_HEADER = "X-SocialLookup-Signature"
EVENT_HEADER = "X-SocialLookup-Event"
# The same on every retry of one delivery, and signed: deduplicate on it.
DELIVERY_HEADER = "X-SocialLookup-Delivery"
# When the server sent this attempt, in Unix seconds; signed.
TIMESTAMP_HEADER = "X-SocialLookup-Timestamp"
# How far a delivery's timestamp may be from this clock, either way, by default (seconds).
DEFAULT_TOLERANCE = 300.0

Refusal = Literal["missing", "stale", "signature"]

_MESSAGES: dict[str, str] = {
    "missing": "the webhook carries no signature, timestamp or delivery id",
    "stale": "the webhook's timestamp is more than the tolerance away from this clock (a replay, or a clock that is off)",
    "signature": "the webhook's signature does not match its timestamp, delivery id and body",
}


class WebhookSignatureError(Exception):
    """A delivery refused: .reason is "missing" (no signature headers), "stale" (a timestamp too far
    off: a replay, or a clock that is off) or "signature" (forged or altered)."""

    def __init__(self, reason: Refusal, message: str | None = None) -> None:
        super().__init__(message or _MESSAGES[reason])
        self.reason = reason


@dataclass(frozen=True)
class VerifiedWebhook:
    """A genuine, fresh delivery."""

    event: dict[str, Any]
    # The signed delivery id: act on each once (a retry or a replay repeats it).
    delivery_id: str
    # When the server sent this attempt (its signed timestamp, Unix seconds).
    sent_at: int


def _header(headers: Mapping[str, str] | Any, name: str) -> str | None:
    if isinstance(headers, str) or not hasattr(headers, "get"):
        raise TypeError("verify_webhook takes the request's headers (a mapping), not the signature alone: the timestamp and the delivery id are signed too")
    value = headers.get(name)
    if value is None and isinstance(headers, Mapping):
        value = next((found for key, found in headers.items() if str(key).lower() == name.lower()), None)
    return None if value is None else str(value).strip()


def verify_webhook(
    secret: str,
    body: bytes | str,
    headers: Mapping[str, str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> VerifiedWebhook:
    """The event of a genuine delivery sent within tolerance seconds of now (default: this clock),
    with its signed delivery id; WebhookSignatureError otherwise. headers: the request's (any
    mapping; names in any case)."""
    signature = _header(headers, SIGNATURE_HEADER) or ""
    timestamp = _header(headers, TIMESTAMP_HEADER) or ""
    delivery_id = _header(headers, DELIVERY_HEADER) or ""
    if not re.fullmatch(r"sha256=[0-9a-fA-F]{64}", signature) or not re.fullmatch(r"\d{1,12}", timestamp) or delivery_id == "" or not secret:
        raise WebhookSignatureError("missing")
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance:
        raise WebhookSignatureError("stale")
    raw = body.encode("utf-8") if isinstance(body, str) else body
    signed = f"{timestamp}.{delivery_id}.".encode() + raw
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode("ascii"), signature.lower().encode("ascii")):
        raise WebhookSignatureError("signature")
    try:
        event = json.loads(raw)
    except ValueError:
        raise WebhookSignatureError("signature", "the webhook's body is not JSON") from None
    if not isinstance(event, dict):
        raise WebhookSignatureError("signature", "the webhook's body is not an event")
    return VerifiedWebhook(event=event, delivery_id=delivery_id, sent_at=int(timestamp))


def is_valid_signature(
    secret: str,
    body: bytes | str,
    headers: Mapping[str, str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> bool:
    """True when verify_webhook would accept the delivery."""
    try:
        verify_webhook(secret, body, headers, tolerance=tolerance, now=now)
    except WebhookSignatureError:
        return False
    return True


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
    """A webhook endpoint in a background thread: 204 for a delivery verify_webhook accepts, 401 for
    one it refuses (forged, altered, or a timestamp more than 5 minutes off: never handed on); each
    signed delivery id is handed on once (the server retries with the same id; a replay within the
    5 minutes repeats one).

        with WebhookReceiver(secret, host="0.0.0.0", port=8080) as receiver:
            batch = client.batches.create("event_details_id", inputs, webhook_url="https://me.example/hooks")
            batch.wait(finished=receiver.batch_finished(batch.id))

    The server delivers to public addresses only, unless its operator allows more.
    """

    def __init__(
        self,
        secret: str,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = 1024 * 1024,
        tolerance: float = DEFAULT_TOLERANCE,
    ) -> None:
        self.secret = secret
        self.tolerance = tolerance
        # Genuine deliveries, in arrival order.
        self.events: list[dict[str, Any]] = []
        # Deliveries refused: forged, altered or stale.
        self.refused = 0
        # Delivery id -> until when it is remembered: a day past its latest timestamp, far longer
        # than the server retries and than a replay's timestamp stays within the tolerance.
        self._deliveries: dict[str, float] = {}
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
                    delivery = verify_webhook(receiver.secret, body, self.headers, tolerance=receiver.tolerance)
                except WebhookSignatureError:
                    with receiver._lock:
                        receiver.refused += 1
                    self.send_response(401)
                    self.end_headers()
                    return
                receiver._accept(delivery)
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

    def _accept(self, delivery: VerifiedWebhook) -> None:
        event = delivery.event
        keep = max(86400.0, 2 * self.tolerance)
        with self._lock:
            now = time.time()
            self._deliveries = {known: until for known, until in self._deliveries.items() if until >= now}
            first = delivery.delivery_id not in self._deliveries
            self._deliveries[delivery.delivery_id] = max(self._deliveries.get(delivery.delivery_id, 0.0), delivery.sent_at + keep)
            if not first:
                return
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
