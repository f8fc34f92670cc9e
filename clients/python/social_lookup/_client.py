"""The Social Lookup API client: one method per operation (generated from the registry, see
GeneratedOperations in _generated.py), account() and batches."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ._batches import Batches
from ._generated import OPERATIONS, AccountData, GeneratedOperations
from ._transport import Transport, TransportOptions
from ._types import Answer, RetryEvent


class SocialLookup(GeneratedOperations):
    """The client.

        client = SocialLookup(api_key=..., base_url="http://localhost:3000")
        answer = client.event_details_id(event_id="1000000000000001")
        for follower in client.followers.iterate(userid="2000000001"): ...
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        retry_base_delay: float = 0.25,
        retry_max_delay: float = 8.0,
        max_rate_limit_waits: int = 30,
        on_retry: Callable[[RetryEvent], None] | None = None,
    ) -> None:
        """api_key: default $SOCIAL_LOOKUP_API_KEY. base_url: default $SOCIAL_LOOKUP_BASE_URL, else
        http://localhost:3000. timeout: seconds per HTTP attempt. max_retries: after a network error
        or a 5xx, with jittered exponential backoff from retry_base_delay up to retry_max_delay
        (0: none). max_rate_limit_waits: 429s with Retry-After waited out in a row. on_retry: told
        before each wait for a retry."""
        key = api_key if api_key is not None else os.environ.get("SOCIAL_LOOKUP_API_KEY", "")
        if key.strip() == "":
            raise ValueError("SocialLookup needs an API key: pass api_key= or set SOCIAL_LOOKUP_API_KEY")
        url = (base_url or os.environ.get("SOCIAL_LOOKUP_BASE_URL") or "http://localhost:3000").rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ValueError(f'base_url must be an http(s) URL, got "{url}"')
        for name, value in (("timeout", timeout), ("max_retries", max_retries), ("retry_base_delay", retry_base_delay), ("retry_max_delay", retry_max_delay), ("max_rate_limit_waits", max_rate_limit_waits)):
            if value < 0:
                raise ValueError(f"{name} must be ≥ 0")
        self._transport = Transport(
            TransportOptions(
                api_key=key.strip(),
                base_url=url,
                timeout=timeout,
                max_retries=max_retries,
                retry_base_delay=retry_base_delay,
                retry_max_delay=retry_max_delay,
                max_rate_limit_waits=max_rate_limit_waits,
                on_retry=on_retry,
            )
        )
        self.batches = Batches(self._transport)

    @property
    def base_url(self) -> str:
        """The server this client calls."""
        return self._transport.options.base_url

    def account(self, *, timeout: float | None = None) -> Answer[AccountData]:
        """The key's balance, limits and spend: GET /v1/account. Free: no credits, no usage record;
        it counts towards the per-second limit. Every figure is current."""
        return self._transport.json("GET", "/v1/account", timeout=timeout)

    def _call(self, name: str, params: dict[str, Any], timeout: float | None) -> Answer[Any]:
        spec = OPERATIONS[name]
        known = [param["name"] for param in spec["params"]]
        unknown = [key for key in params if key not in known]
        if unknown:
            raise TypeError(f"{name}: unknown parameter {unknown[0]!r} (it takes {', '.join(known)})")
        query = {param: str(params[param]) for param in known if params.get(param) is not None and params.get(param) != ""}
        return self._transport.json("GET", spec["path"], query=query, timeout=timeout)
