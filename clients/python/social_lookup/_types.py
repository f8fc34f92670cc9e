"""What every call answers: the data, its credit receipt and its request id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class CreditReceipt:
    """The credit headers of an answer: what the call cost and what the key has left."""

    # The operation's price (X-Credits-Cost); None when the answer carries none.
    cost: int | None
    # What this request was charged (X-Credits-Charged): the price for a 200, else 0.
    charged: int
    # The key's credits after this request (X-Credits-Remaining); None when the answer does not say.
    remaining: int | None


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A successful answer: the envelope's data, its request id and the credit receipt."""

    data: T
    credits: CreditReceipt
    # The envelope's requestId: quote it when you report a problem.
    request_id: str
    # 200, or 202 for a created batch.
    status: int
    # When the record was stored or fetched from the provider (X-Data-As-Of), for lookups.
    data_as_of: str | None


@dataclass(frozen=True)
class RetryEvent:
    """Why and how long the client waits before sending a request again (on_retry)."""

    reason: Literal["rate_limited", "server_error", "network"]
    # 1 for the first retry of this call.
    attempt: int
    wait_s: float
    status: int | None
    # The server's Retry-After (or RateLimit reset) on a 429, in seconds.
    retry_after_s: float | None
    request_id: str | None
