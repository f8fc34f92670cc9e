"""The client's behaviour that needs no Social Lookup server: retries and their limits, timeouts,
redirects, webhook signatures, the paging declaration. A small local HTTP server plays the API where one is
needed (real sockets, real urllib)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from social_lookup import (
    OPERATIONS,
    NetworkError,
    RedirectRefusedError,
    RequestTimeoutError,
    ServerError,
    SocialLookup,
    WebhookReceiver,
    WebhookSignatureError,
    is_valid_signature,
    verify_webhook,
)
from social_lookup._webhooks import VerifiedWebhook
from social_lookup._paging import next_query
from social_lookup._paths import value_at, values_at


class ScriptedServer:
    """Answers each request with the next of its scripted (status, body, delay) answers."""

    def __init__(self, answers: list[tuple[int, dict[str, Any], float]]) -> None:
        self.answers = list(answers)
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(self.path)
                status, body, delay = server.answers.pop(0) if server.answers else (500, {}, 0.0)
                time.sleep(delay)
                raw = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.send_header("X-Credits-Charged", "0")
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def envelope(code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {"code": code, "message": message, "data": data, "requestId": "00000000-0000-4000-8000-000000000000"}


class RetryTest(unittest.TestCase):
    def test_a_5xx_is_retried_with_backoff_then_answers(self) -> None:
        server = ScriptedServer([(500, envelope(500, "Internal server error"), 0), (503, envelope(503, "busy"), 0), (200, envelope(0, "success", {"key": {}}), 0)])
        self.addCleanup(server.close)
        waits: list[float] = []
        client = SocialLookup(api_key="k", base_url=server.url, retry_base_delay=0.01, on_retry=lambda event: waits.append(event.wait_s))
        self.assertEqual(client.account().data, {"key": {}})
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(len(waits), 2)
        self.assertTrue(all(0.005 <= wait <= 0.02 for wait in waits[:1]))

    def test_max_retries_zero_turns_retries_off(self) -> None:
        server = ScriptedServer([(500, envelope(500, "Internal server error"), 0)] * 3)
        self.addCleanup(server.close)
        client = SocialLookup(api_key="k", base_url=server.url, max_retries=0)
        with self.assertRaises(ServerError) as raised:
            client.account()
        self.assertEqual(raised.exception.message, "Internal server error")
        self.assertEqual(len(server.requests), 1)

    def test_retries_are_bounded(self) -> None:
        server = ScriptedServer([(502, envelope(502, "bad gateway"), 0)] * 5)
        self.addCleanup(server.close)
        client = SocialLookup(api_key="k", base_url=server.url, max_retries=2, retry_base_delay=0.001)
        with self.assertRaises(ServerError):
            client.account()
        self.assertEqual(len(server.requests), 3)

    def test_a_refused_connection_is_a_network_error_after_the_retries(self) -> None:
        server = ScriptedServer([])
        url = server.url
        server.close()
        events: list[str] = []
        client = SocialLookup(api_key="k", base_url=url, max_retries=1, retry_base_delay=0.001, on_retry=lambda event: events.append(event.reason))
        with self.assertRaises(NetworkError):
            client.account()
        self.assertEqual(events, ["network"])

    def test_a_slow_answer_times_out(self) -> None:
        server = ScriptedServer([(200, envelope(0, "success", {}), 1.0)])
        self.addCleanup(server.close)
        client = SocialLookup(api_key="k", base_url=server.url, max_retries=0, timeout=0.2)
        started = time.monotonic()
        with self.assertRaises(RequestTimeoutError):
            client.account()
        self.assertLess(time.monotonic() - started, 0.9)


class RecordingServer:
    """Records each request (method, path, Authorization, body) on host and answers with answer(path, method)."""

    def __init__(self, host: str, answer: Any) -> None:
        self.seen: list[tuple[str, str, str | None, bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.seen.append((self.command, self.path, self.headers.get("Authorization"), body))
                status, headers, payload = answer(self.path, self.command)
                raw = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", "Content-Length": str(len(raw)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _handle  # noqa: N815
            do_POST = _handle  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return

        self.http = ThreadingHTTPServer((host, 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://{host}:{self.http.server_address[1]}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


class RedirectTest(unittest.TestCase):
    def serve(self, host: str, answer: Any) -> RecordingServer:
        server = RecordingServer(host, answer)
        self.addCleanup(server.close)
        return server

    def test_a_302_to_another_host_is_refused_and_the_key_never_reaches_it(self) -> None:
        other = self.serve("127.0.0.2", lambda path, method: (200, {}, envelope(0, "success", {"key": {"id": "stolen"}})))
        api = self.serve("127.0.0.1", lambda path, method: (302, {"Location": f"{other.url}/v1/account"}, None))
        client = SocialLookup(api_key="sk_secret-token", base_url=api.url, max_retries=2, retry_base_delay=0.001)
        with self.assertRaises(RedirectRefusedError) as raised:
            client.account()
        self.assertEqual((raised.exception.status, raised.exception.location), (302, other.url))
        self.assertIn(f"redirect to another origin, {other.url}", str(raised.exception))
        self.assertNotIn("sk_secret-token", str(raised.exception))
        self.assertEqual(other.seen, [])
        # Refused once, never retried.
        self.assertEqual(len(api.seen), 1)

    def test_a_307_of_a_batch_to_another_port_is_refused_with_its_inputs(self) -> None:
        other = self.serve("127.0.0.1", lambda path, method: (202, {}, envelope(0, "success", {"id": "b1"})))
        api = self.serve("127.0.0.1", lambda path, method: (307, {"Location": f"{other.url}/v1/batches"}, None))
        client = SocialLookup(api_key="sk_secret-token", base_url=api.url)
        with self.assertRaises(RedirectRefusedError):
            client.batches.create("event_details_id", ["1000000000000001"])
        self.assertEqual(other.seen, [])
        self.assertIn(b"1000000000000001", api.seen[0][3])

    def test_redirects_within_the_origin_are_followed_with_the_key(self) -> None:
        def answer(path: str, method: str) -> tuple[int, dict[str, str], Any]:
            if path == "/v1/account":
                return 308, {"Location": "/v1/account/"}, None
            return 200, {}, envelope(0, "success", {"key": {"id": "k1"}})

        api = self.serve("127.0.0.1", answer)
        client = SocialLookup(api_key="sk_token", base_url=api.url)
        self.assertEqual(client.account().data, {"key": {"id": "k1"}})
        self.assertEqual([(method, path, auth) for method, path, auth, _ in api.seen], [("GET", "/v1/account", "Bearer sk_token"), ("GET", "/v1/account/", "Bearer sk_token")])


def sign(secret: str, timestamp: int, delivery_id: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), f"{timestamp}.{delivery_id}.".encode() + body, hashlib.sha256).hexdigest()


class WebhookTest(unittest.TestCase):
    secret = "whsec_test-secret"
    body = b'{"event":"batch.finished","batchId":"b1","status":"done"}'

    def delivered(self, delivery_id: str = "42", timestamp: int | None = None, secret: str | None = None, body: bytes | None = None) -> dict[str, str]:
        sent = int(time.time()) if timestamp is None else timestamp
        return {
            "X-SocialLookup-Delivery": delivery_id,
            "X-SocialLookup-Timestamp": str(sent),
            "X-SocialLookup-Signature": sign(secret or self.secret, sent, delivery_id, self.body if body is None else body),
        }

    def reason(self, body: bytes, headers: dict[str, str], **options: Any) -> str:
        try:
            verify_webhook(self.secret, body, headers, **options)
        except WebhookSignatureError as error:
            return error.reason
        return "accepted"

    def test_verifies_timestamp_delivery_id_and_raw_body_and_gives_the_signed_id(self) -> None:
        # Known answer: printf '1700000000.42.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
        self.assertEqual(sign("whsec_test", 1700000000, "42", b'{"a":1}'), "sha256=e77f8655a2c6097497ab8c83e308d0a0c0a9630717c13fbf08876991c2f1e19a")
        verified = verify_webhook(self.secret, self.body, self.delivered(timestamp=1700000000), now=1700000100)
        self.assertEqual(verified, VerifiedWebhook(event=json.loads(self.body), delivery_id="42", sent_at=1700000000))
        # Header names in any case (a plain dict from a web framework).
        lower = {name.lower(): value for name, value in self.delivered().items()}
        self.assertEqual(verify_webhook(self.secret, self.body.decode(), lower).delivery_id, "42")
        self.assertTrue(is_valid_signature(self.secret, self.body, self.delivered()))

    def test_refuses_a_tampered_body_id_or_timestamp_and_another_secret(self) -> None:
        headers = self.delivered()
        self.assertEqual(self.reason(self.body + b" ", headers), "signature")
        self.assertEqual(self.reason(self.body, {**headers, "X-SocialLookup-Delivery": "43"}), "signature")
        later = str(int(headers["X-SocialLookup-Timestamp"]) + 1)
        self.assertEqual(self.reason(self.body, {**headers, "X-SocialLookup-Timestamp": later}), "signature")
        self.assertEqual(self.reason(self.body, self.delivered(secret="whsec_other")), "signature")
        self.assertFalse(is_valid_signature(self.secret, self.body, self.delivered(secret="whsec_other")))

    def test_refuses_a_stale_timestamp_either_way_and_missing_headers(self) -> None:
        headers = self.delivered(timestamp=1700000000)
        self.assertEqual(self.reason(self.body, headers, now=1700000300), "accepted")
        self.assertEqual(self.reason(self.body, headers, now=1700000301), "stale")
        self.assertEqual(self.reason(self.body, headers, now=1699999699), "stale")
        self.assertEqual(self.reason(self.body, headers, now=1700000061, tolerance=60), "stale")
        for name in headers:
            self.assertEqual(self.reason(self.body, {key: value for key, value in headers.items() if key != name}, now=1700000000), "missing")
        # The old body-only signature no longer verifies; the old call (a signature string) says why.
        body_only = "sha256=" + hmac.new(self.secret.encode(), self.body, hashlib.sha256).hexdigest()
        self.assertEqual(self.reason(self.body, {**headers, "X-SocialLookup-Signature": body_only}, now=1700000000), "signature")
        with self.assertRaises(TypeError):
            verify_webhook(self.secret, self.body, body_only)  # type: ignore[arg-type]

    def test_the_receiver_refuses_forgeries_and_stale_replays_and_hands_each_delivery_on_once(self) -> None:
        import urllib.error
        import urllib.request

        with WebhookReceiver(self.secret) as receiver:
            waiter = receiver.batch_finished("b1")

            def post(headers: dict[str, str]) -> int:
                request = urllib.request.Request(receiver.url, data=self.body, method="POST", headers=headers)
                try:
                    with urllib.request.urlopen(request, timeout=5) as response:
                        return response.status
                except urllib.error.HTTPError as error:
                    return error.code

            self.assertEqual(post(self.delivered("d1", secret="whsec_forged")), 401)
            self.assertFalse(waiter.is_set())
            first = self.delivered("d2")
            self.assertEqual(post(first), 204)
            # The server's retry (same id, signed a second later) and the captured first, replayed: dropped.
            self.assertEqual(post(self.delivered("d2", timestamp=int(first["X-SocialLookup-Timestamp"]) + 1)), 204)
            self.assertEqual(post(first), 204)
            self.assertTrue(waiter.wait(1))
            self.assertEqual(len(receiver.events), 1)
            # Replayed after the 5 minutes, or under another id to pass the dedupe: refused.
            self.assertEqual(post(self.delivered("d3", timestamp=int(time.time()) - 301)), 401)
            self.assertEqual(post({**first, "X-SocialLookup-Delivery": "d4"}), 401)
            self.assertEqual(receiver.refused, 3)
            self.assertEqual(len(receiver.events), 1)


class PagingTest(unittest.TestCase):
    def test_paths_read_values_and_lists(self) -> None:
        page = {"followers": [{"node": {"id": "a"}}, {"node": {"id": "b"}}], "page_info": {"end_cursor": "c"}}
        self.assertEqual(value_at(page, "page_info.end_cursor"), "c")
        self.assertIsNone(value_at(page, "page_info.none.deeper"))
        self.assertEqual(values_at(page, "followers[].node.id"), ["a", "b"])

    def test_the_generated_paging_follows_the_registry(self) -> None:
        followers = OPERATIONS["followers"]["paging"]
        page = {"followers": [], "node_id": "N", "page_info": {"has_next_page": True, "end_cursor": "C"}}
        self.assertEqual(next_query(followers, page, {"userid": "1"}), {"node_id": "N", "cursor": "C"})
        page["page_info"]["has_next_page"] = False
        self.assertIsNone(next_query(followers, page, {"userid": "1"}))
        publications = OPERATIONS["publications"]["paging"]
        self.assertEqual(next_query(publications, {"page": 2, "has_more": True}, {"urn": "u", "page": 2}), {"urn": "u", "page": 3})


if __name__ == "__main__":
    unittest.main()
