"""Batches (/v1/batches): many lookups of one operation in one job on the server, paid and paced by
the key that creates it. Control calls are free; they count towards the key's per-second limit,
which the transport waits out on a 429."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ._generated import Batch, BatchCreated, BatchOperationId
from ._transport import Transport
from ._types import CreditReceipt

# A batch ends here: done, stopped (cap, credits, key) or canceled. A paused batch is waited on.
FINISHED_STATUSES = ("done", "stopped", "canceled")


class Finished(Protocol):
    """What batch.wait(finished=…) takes: a threading.Event, or a WebhookReceiver's waiter."""

    def wait(self, timeout: float | None = None) -> bool: ...


class BatchWaitTimeoutError(Exception):
    """wait()'s deadline passed: the batch goes on; .batch is the status last read."""

    def __init__(self, batch: Batch) -> None:
        super().__init__(f"batch {batch['id']} is still {batch['status']} ({batch['done']}/{batch['total']} done)")
        self.batch = batch


class BatchHandle:
    """A batch on the server, by its id: its status, waiting for it, its results, control."""

    def __init__(self, transport: Transport, batch_id: str, created: BatchCreated | None = None, credits: CreditReceipt | None = None) -> None:
        self._transport = transport
        self.id = batch_id
        # What creating it answered (None for a handle made from an id).
        self.created = created
        # The creation's receipt: creating is free; the lookups are charged as they run.
        self.credits = credits

    def _path(self, suffix: str = "") -> str:
        return f"/v1/batches/{self.id}{suffix}"

    def status(self, *, timeout: float | None = None) -> Batch:
        """The batch now: status, counts, creditsSpent, the last webhook delivery."""
        batch: Batch = self._transport.json("GET", self._path(), timeout=timeout).data
        return batch

    def wait(
        self,
        *,
        poll_interval: float = 0.5,
        max_poll_interval: float = 5.0,
        deadline: float | None = None,
        finished: Finished | None = None,
        on_progress: Callable[[Batch], None] | None = None,
        timeout: float | None = None,
    ) -> Batch:
        """The batch once it is done, stopped or canceled: polls with a growing pause (0.5 s → 5 s),
        or returns as soon as finished (its webhook: receiver.batch_finished(id)) is set. deadline:
        seconds to wait at most (BatchWaitTimeoutError); timeout: each request's."""
        started = time.monotonic()
        pause = poll_interval
        webhook = finished
        while True:
            batch = self.status(timeout=timeout)
            if on_progress is not None:
                on_progress(batch)
            if batch["status"] in FINISHED_STATUSES:
                return batch
            if deadline is not None and time.monotonic() - started >= deadline:
                raise BatchWaitTimeoutError(batch)
            if webhook is None:
                time.sleep(pause)
            elif webhook.wait(pause):
                # The webhook cut this pause short; after it, the polls go on as before.
                webhook = None
            pause = min(max_poll_interval, pause * 1.5)

    def results(self, *, timeout: float | None = None) -> Iterator[dict[str, Any]]:
        """The results as records (NDJSON, one per input found, as npm run import reads them), read as they stream in."""
        for line in self._transport.lines(self._path("/results"), {"format": "ndjson"}, timeout):
            record: dict[str, Any] = json.loads(line)
            yield record

    def csv(self, *, timeout: float | None = None) -> Iterator[str]:
        """The results as the server's CSV (a row per record, the input and its outcome first; cells
        defused against spreadsheet formulas), as text chunks."""
        yield from self._transport.chunks(self._path("/results"), {"format": "csv"}, timeout)

    def pause(self, *, timeout: float | None = None) -> Batch:
        return self._control("pause", timeout)

    def resume(self, *, timeout: float | None = None) -> Batch:
        return self._control("resume", timeout)

    def cancel(self, *, timeout: float | None = None) -> Batch:
        """Stops it for good: lookups not yet made are never made (nor charged)."""
        return self._control("cancel", timeout)

    def _control(self, action: str, timeout: float | None) -> Batch:
        # Repeating an action only ever answers 409 (already in that state): safe to retry.
        batch: Batch = self._transport.json("POST", self._path(f"/{action}"), timeout=timeout).data
        return batch


class Batches:
    """client.batches: create, get and list the key's batches."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        operation: BatchOperationId,
        inputs: list[str],
        *,
        options: dict[str, Any] | None = None,
        max_credits: int | None = None,
        webhook_url: str | None = None,
        timeout: float | None = None,
    ) -> BatchHandle:
        """Creates a batch (202): inputs the operation cannot look up come back in created["rejected"].
        Not retried after a network error or a 5xx (it could create a second batch); a 429 is waited out.

        options: {"pages": "first" | "all", "maxPages": n, "maxAgeS": s}."""
        body: dict[str, Any] = {"operation": operation, "inputs": inputs}
        if options is not None:
            body["options"] = options
        if max_credits is not None:
            body["maxCredits"] = max_credits
        if webhook_url is not None:
            body["webhookUrl"] = webhook_url
        answer = self._transport.json("POST", "/v1/batches", body=body, idempotent=False, timeout=timeout)
        created: BatchCreated = answer.data
        return BatchHandle(self._transport, created["id"], created, answer.credits)

    def get(self, batch_id: str) -> BatchHandle:
        """A handle on an existing batch of this key (nothing is sent until you call it)."""
        return BatchHandle(self._transport, batch_id)

    def list(self, *, limit: int | None = None, timeout: float | None = None) -> list[Batch]:
        """The key's batches, newest first (1–200, default 50)."""
        query = None if limit is None else {"limit": str(limit)}
        batches: list[Batch] = self._transport.json("GET", "/v1/batches", query=query, timeout=timeout).data["batches"]
        return batches
