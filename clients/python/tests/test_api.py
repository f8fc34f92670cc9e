"""The Python client against a running Social Lookup server (the API suite runs it:
tests/api/clients-python.test.ts). It needs, from the environment:

    SOCIAL_LOOKUP_BASE_URL   the server
    SOCIAL_LOOKUP_TEST_KEYS  JSON: {"main": token, "slow": token (2/s), "poor": token (3 credits),
                             "batch": {"token": …, "secret": "whsec_…", "credits": n}}

Without them every test here is skipped, saying so.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from social_lookup import (
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    QuotaExceededError,
    RetryEvent,
    SocialLookup,
    WebhookReceiver,
    WebhookSignatureError,
    verify_webhook,
)

BASE_URL = os.environ.get("SOCIAL_LOOKUP_BASE_URL", "")
KEYS: dict[str, Any] = json.loads(os.environ.get("SOCIAL_LOOKUP_TEST_KEYS") or "{}")
NEEDS_SERVER = "set SOCIAL_LOOKUP_BASE_URL and SOCIAL_LOOKUP_TEST_KEYS (the API suite does)"
DEMO_EVENT_IDS = [str(1_000_000_000_000_001 + index) for index in range(40)]
EVENT_HOST = "events.demo.test"


def direct(path: str, query: dict[str, str], token: str) -> tuple[int, dict[str, Any]]:
    """The same call with bare urllib: what the API itself answers."""
    request = urllib.request.Request(f"{BASE_URL}{path}?{urllib.parse.urlencode(query)}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@unittest.skipUnless(BASE_URL and KEYS, NEEDS_SERVER)
class OperationsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = SocialLookup(api_key=KEYS["main"], base_url=BASE_URL)

    def remaining(self) -> int:
        remaining: int = self.client.account().data["key"]["credits_remaining"]
        return remaining

    def test_every_operation_answers_as_the_api_does_with_its_receipt(self) -> None:
        url = f"https://{EVENT_HOST}/events/1000000000000001/"
        cases = [
            (lambda: self.client.event_details(url=url), "/v1/eventsite/event_details", {"url": url}, 4),
            (lambda: self.client.event_details_id(event_id="1000000000000002"), "/v1/eventsite/event_details_id", {"event_id": "1000000000000002"}, 4),
            (lambda: self.client.followers(userid="2000000002"), "/v1/pinsite/followers", {"userid": "2000000002"}, 2),
            (lambda: self.client.publications(urn="urn:li:member:3000000001", page=2), "/v1/jobsite/get_user_publications", {"urn": "urn:li:member:3000000001", "page": "2"}, 1),
        ]
        for run, path, query, cost in cases:
            with self.subTest(path=path):
                answer = run()
                status, envelope = direct(path, query, KEYS["main"])
                self.assertEqual(status, 200)
                self.assertEqual(answer.data, envelope["data"])
                self.assertEqual(answer.status, 200)
                self.assertRegex(answer.request_id, r"^[0-9a-f-]{36}$")
                self.assertEqual((answer.credits.cost, answer.credits.charged), (cost, cost))
                self.assertIsNotNone(answer.credits.remaining)
        account = self.client.account()
        self.assertEqual(account.credits.charged, 0)
        self.assertIn("credits_remaining", account.data["key"])

    def test_iterates_10000_followers_exactly_with_the_credits_the_pages_cost(self) -> None:
        before = self.remaining()
        walk = self.client.followers.iterate(userid="2000000001")
        ids = [follower["node"]["entityId"] for follower in walk]
        self.assertEqual(len(ids), 10_000)
        self.assertEqual(len(set(ids)), 10_000)
        self.assertEqual((walk.pages_fetched, walk.credits_charged), (400, 800))
        after = self.remaining()
        self.assertEqual(before - after, 800)
        self.assertEqual(walk.credits_remaining, after)

    def test_stops_early_without_spending_more(self) -> None:
        before = self.remaining()
        walk = self.client.followers.iterate(userid="2000000001")
        for seen, _follower in enumerate(walk, start=1):
            if seen == 30:
                break
        self.assertEqual(walk.pages_fetched, 2)
        self.assertEqual(before - self.remaining(), 4)

    def test_walks_numbered_pages(self) -> None:
        pages = self.client.publications.pages(urn="urn:li:member:3000000001")
        self.assertEqual([page.data["page"] for page in pages], [1, 2, 3, 4, 5])
        self.assertEqual(pages.credits_charged, 5)
        titles = [publication["title"] for publication in self.client.publications.iterate(urn="urn:li:member:3000000001")]
        self.assertEqual(len(titles), 45)
        limited = self.client.publications.iterate(urn="urn:li:member:3000000001", max_pages=2)
        self.assertEqual((len(list(limited)), limited.pages_fetched), (20, 2))

    def test_raises_400_401_404_as_their_classes_at_once(self) -> None:
        retries: list[RetryEvent] = []
        client = SocialLookup(api_key=KEYS["main"], base_url=BASE_URL, on_retry=retries.append)
        with self.assertRaises(BadRequestError) as bad:
            client.event_details_id(event_id="not-digits")
        self.assertEqual((bad.exception.message, bad.exception.code), ("Invalid parameter: event_id", 400))
        with self.assertRaises(NotFoundError) as missing:
            client.followers(userid="2999999999")
        self.assertEqual(missing.exception.message, "User not found")
        stranger = SocialLookup(api_key=KEYS["main"][:-4] + "AAAA", base_url=BASE_URL, on_retry=retries.append)
        with self.assertRaises(AuthenticationError) as refused:
            stranger.account()
        self.assertEqual(refused.exception.message, "apiKey is invalid")
        self.assertEqual(retries, [])


@unittest.skipUnless(BASE_URL and KEYS, NEEDS_SERVER)
class LimitsTest(unittest.TestCase):
    def test_a_key_at_2_per_second_iterated_flat_out_gets_no_error_and_waits_as_retry_after_says(self) -> None:
        retries: list[RetryEvent] = []
        moments: list[float] = []

        def on_retry(event: RetryEvent) -> None:
            retries.append(event)
            moments.append(time.monotonic())

        client = SocialLookup(api_key=KEYS["slow"], base_url=BASE_URL, on_retry=on_retry)
        started = time.monotonic()
        titles = [publication["title"] for publication in client.publications.iterate(urn="urn:li:member:3000000001")]
        elapsed = time.monotonic() - started
        self.assertEqual(len(titles), 45)
        limited = [event for event in retries if event.reason == "rate_limited"]
        self.assertGreater(len(limited), 0, "the key's limit was reached")
        self.assertEqual(len(limited), len(retries))
        for event in limited:
            self.assertIsNotNone(event.retry_after_s)
            self.assertGreater(event.retry_after_s or 0, 0)
            self.assertEqual(event.wait_s, event.retry_after_s)
            self.assertEqual(event.status, 429)
        # Each wait was slept in full: the walk took at least their sum.
        self.assertGreaterEqual(elapsed, sum(event.wait_s for event in limited))
        self.assertGreater(elapsed, 2.0)

    def test_402_raises_the_quota_error_with_the_contracts_message(self) -> None:
        retries: list[RetryEvent] = []
        client = SocialLookup(api_key=KEYS["poor"], base_url=BASE_URL, on_retry=retries.append)
        with self.assertRaises(QuotaExceededError) as raised:
            client.event_details_id(event_id="1000000000000001")
        error = raised.exception
        self.assertEqual((error.message, error.code, error.status), ("apiKey quota is not enough", 402, 402))
        self.assertRegex(error.request_id or "", r"^[0-9a-f-]{36}$")
        self.assertIsNotNone(error.credits)
        self.assertEqual((error.credits.cost, error.credits.charged, error.credits.remaining) if error.credits else None, (4, 0, 3))
        self.assertEqual(retries, [])


@unittest.skipUnless(BASE_URL and KEYS.get("batch"), NEEDS_SERVER)
class BatchTest(unittest.TestCase):
    def setUp(self) -> None:
        self.key = KEYS["batch"]
        self.client = SocialLookup(api_key=self.key["token"], base_url=BASE_URL)

    def test_end_to_end_with_its_signed_webhook_and_exact_credits(self) -> None:
        before = self.client.account().data["key"]["credits_remaining"]
        unknown = [str(8_500_000_000_000_001 + index) for index in range(10)]
        # The suite's servers deliver webhooks to 127.0.0.9 only (WEBHOOK_ALLOWED_NETWORKS).
        with WebhookReceiver(self.key["secret"], host="127.0.0.9") as receiver:
            batch = self.client.batches.create("event_details_id", DEMO_EVENT_IDS + unknown + ["abc"], webhook_url=receiver.url)
            assert batch.created is not None
            self.assertEqual((batch.created["total"], batch.created["maxCostCredits"]), (50, 200))
            self.assertEqual([entry["input"] for entry in batch.created["rejected"]], ["abc"])
            done = batch.wait(finished=receiver.batch_finished(batch.id), poll_interval=60, max_poll_interval=60)
            self.assertEqual(
                {name: done[name] for name in ("status", "total", "done", "succeeded", "notFound", "failed", "creditsSpent")},  # type: ignore[literal-required]
                {"status": "done", "total": 50, "done": 50, "succeeded": 40, "notFound": 10, "failed": 0, "creditsSpent": 160},
            )
            # The genuine webhook arrived and was accepted; a forged one is refused.
            event = next(event for event in receiver.events if event.get("batchId") == batch.id)
            self.assertEqual(event["event"], "batch.finished")
            self.assertEqual(receiver.refused, 0)
            forged = json.dumps({**event, "creditsSpent": 0}).encode()
            sent_at = str(int(time.time()))
            signed = f"{sent_at}.d-forged.".encode() + forged
            headers = {
                "X-SocialLookup-Delivery": "d-forged",
                "X-SocialLookup-Timestamp": sent_at,
                "X-SocialLookup-Signature": "sha256=" + hmac.new(b"whsec_not-the-secret", signed, hashlib.sha256).hexdigest(),
            }
            request = urllib.request.Request(receiver.url, data=forged, method="POST", headers=headers)
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=5)
            self.assertEqual(refused.exception.code, 401)
            self.assertEqual(receiver.refused, 1)
            with self.assertRaises(WebhookSignatureError):
                verify_webhook(self.key["secret"], forged, headers)
            genuine = {**headers, "X-SocialLookup-Signature": "sha256=" + hmac.new(self.key["secret"].encode(), signed, hashlib.sha256).hexdigest()}
            verified = verify_webhook(self.key["secret"], forged, genuine)
            self.assertEqual((verified.event["creditsSpent"], verified.delivery_id), (0, "d-forged"))

        records = list(batch.results())
        self.assertEqual(sorted(record["event"]["event_id"] for record in records), sorted(DEMO_EVENT_IDS))
        csv = "".join(batch.csv())
        self.assertEqual(len(csv.rstrip("\r\n").split("\r\n")), 51)
        self.assertEqual(before - self.client.account().data["key"]["credits_remaining"], 160)

    def test_cancel_ends_a_running_batch(self) -> None:
        inputs = [str(8_600_000_000_000_001 + index) for index in range(2000)]
        batch = self.client.batches.create("event_details_id", inputs)
        self.assertEqual(batch.cancel()["status"], "canceled")
        ended = batch.wait()
        self.assertEqual((ended["status"], ended["creditsSpent"]), ("canceled", 0))
        self.assertIn(batch.id, [entry["id"] for entry in self.client.batches.list(limit=5)])
        with self.assertRaises(NotFoundError):
            self.client.batches.get("0b7f4c52-3f7e-4a8e-9d0c-2f5b1d6a9e41").status()


if __name__ == "__main__":
    unittest.main()
