"""The client's behaviour that needs no Social Lookup server: retries and their limits, timeouts,
webhook signatures, the paging declaration. A small local HTTP server plays the API where one is
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
    RequestTimeoutError,
    ServerError,
    SocialLookup,
    WebhookReceiver,
    WebhookSignatureError,
    is_valid_signature,
    verify_webhook,
)
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


class WebhookTest(unittest.TestCase):
    secret = "whsec_test-secret"
    body = b'{"event":"batch.finished","batchId":"b1","status":"done"}'

    def sign(self, body: bytes, secret: str) -> str:
        return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()

    def test_verifies_the_hmac_of_the_raw_body(self) -> None:
        self.assertEqual(verify_webhook(self.secret, self.body, self.sign(self.body, self.secret))["batchId"], "b1")
        self.assertFalse(is_valid_signature(self.secret, self.body + b" ", self.sign(self.body, self.secret)))
        self.assertFalse(is_valid_signature(self.secret, self.body, self.sign(self.body, "whsec_other")))
        self.assertFalse(is_valid_signature(self.secret, self.body, None))
        with self.assertRaises(WebhookSignatureError):
            verify_webhook(self.secret, self.body, "sha256=" + "0" * 64)

    def test_the_receiver_refuses_forgeries_and_drops_repeated_deliveries(self) -> None:
        import urllib.error
        import urllib.request

        with WebhookReceiver(self.secret) as receiver:
            waiter = receiver.batch_finished("b1")

            def post(signature: str, delivery: str) -> int:
                request = urllib.request.Request(receiver.url, data=self.body, method="POST", headers={"X-SocialLookup-Signature": signature, "X-SocialLookup-Delivery": delivery})
                try:
                    with urllib.request.urlopen(request, timeout=5) as response:
                        return response.status
                except urllib.error.HTTPError as error:
                    return error.code

            self.assertEqual(post(self.sign(self.body, "whsec_forged"), "d1"), 401)
            self.assertFalse(waiter.is_set())
            self.assertEqual(post(self.sign(self.body, self.secret), "d2"), 204)
            self.assertEqual(post(self.sign(self.body, self.secret), "d2"), 204)
            self.assertTrue(waiter.wait(1))
            self.assertEqual(len(receiver.events), 1)
            self.assertEqual(receiver.refused, 1)


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
