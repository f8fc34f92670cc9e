"""The one place the client talks HTTP (urllib, standard library only).

Retries, in order of precedence:
- 429 with Retry-After (or the RateLimit headers): wait exactly that long and send again, up to
  max_rate_limit_waits times in a row; a 429 without them (a quota) is the answer.
- no answer (network) or 5xx: jittered exponential backoff, at most max_retries times, for calls
  that are safe to repeat (GET; a POST only when the connection was refused, so it never left).
  A lookup that fails is not charged, so repeating it costs nothing.
- 400, 401, 402, 403, 404 (and 409, 413): never.

Redirects: followed within the base_url's origin; one to another origin is a RedirectRefusedError,
never followed, so the key and the request body stay with that origin (urllib would otherwise
send every header, Authorization included, wherever a redirect points).
"""

from __future__ import annotations

import json
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from http.client import HTTPResponse
from typing import Any

from ._errors import ApiError, NetworkError, RedirectRefusedError, RequestTimeoutError, api_error_of
from ._types import Answer, CreditReceipt, RetryEvent


@dataclass(frozen=True)
class TransportOptions:
    api_key: str
    base_url: str
    timeout: float
    max_retries: int
    retry_base_delay: float
    retry_max_delay: float
    max_rate_limit_waits: int
    on_retry: Callable[[RetryEvent], None] | None


def _number(headers: Message, name: str) -> float | None:
    value = headers.get(name)
    if value is None or value.strip() == "":
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value) if value == int(value) else None


def receipt_of(headers: Message) -> CreditReceipt:
    """The credit receipt of an answer's headers."""
    return CreditReceipt(
        cost=_whole(_number(headers, "X-Credits-Cost")),
        charged=_whole(_number(headers, "X-Credits-Charged")) or 0,
        remaining=_whole(_number(headers, "X-Credits-Remaining")),
    )


def retry_after_of(headers: Message) -> float | None:
    """Seconds a 429 says to wait: Retry-After, else RateLimit-Reset, else the RateLimit field's t; None: no retry."""
    seconds = _number(headers, "Retry-After")
    if seconds is None:
        seconds = _number(headers, "RateLimit-Reset")
    if seconds is not None:
        return max(0.0, seconds)
    field = re.search(r";\s*t=(\d+(?:\.\d+)?)", headers.get("RateLimit") or "")
    return float(field.group(1)) if field else None


def _is_envelope(value: Any) -> bool:
    return isinstance(value, dict) and "code" in value and isinstance(value.get("message"), str)


def _is_timeout(error: BaseException) -> bool:
    reason = getattr(error, "reason", error)
    return isinstance(reason, (socket.timeout, TimeoutError))


def _never_sent(error: BaseException) -> bool:
    return isinstance(getattr(error, "reason", error), ConnectionRefusedError)


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    host = (parts.hostname or "").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + ("" if port == {"http": 80, "https": 443}.get(scheme) else f":{port}")


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect within the request's origin only; another origin is a RedirectRefusedError."""

    max_redirections = 5

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Message, newurl: str) -> urllib.request.Request | None:
        origin, target = _origin(req.full_url), _origin(urllib.parse.urljoin(req.full_url, newurl))
        if target != origin:
            fp.close()
            raise RedirectRefusedError(code, origin, target)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


class Transport:
    """Sends requests with the key, retries as the module says, and turns answers into data or typed errors."""

    def __init__(self, options: TransportOptions) -> None:
        self.options = options

    def json(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None = None,
        body: Any = None,
        idempotent: bool = True,
        timeout: float | None = None,
        cache_control: str | None = None,
    ) -> Answer[Any]:
        """The answer's envelope data with its receipt; a typed error for anything but 2xx."""
        response = self._send(method, path, query, body, idempotent, timeout, cache_control)
        with response:
            try:
                envelope = json.loads(response.read())
            except (OSError, ValueError) as error:
                if _is_timeout(error):
                    raise RequestTimeoutError(f"no answer from {path} within {timeout or self.options.timeout} s") from error
                raise NetworkError(f"the answer to {path} could not be read: {error}") from error
        if not _is_envelope(envelope):
            raise NetworkError(f"the answer to {path} is not the API's envelope")
        return Answer(
            data=envelope.get("data"),
            credits=receipt_of(response.headers),
            request_id=str(envelope.get("requestId", "")),
            status=response.status,
            data_as_of=response.headers.get("X-Data-As-Of"),
        )

    def lines(self, path: str, query: dict[str, str], timeout: float | None = None) -> Iterator[str]:
        """A streamed answer's lines (a results file), read as they arrive."""
        with self._send("GET", path, query, None, True, timeout, None) as response:
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line != "":
                    yield line

    def chunks(self, path: str, query: dict[str, str], timeout: float | None = None) -> Iterator[str]:
        """A streamed answer as text chunks."""
        with self._send("GET", path, query, None, True, timeout, None) as response:
            pending = b""
            while True:
                block = response.read1(65536)
                if not block:
                    break
                pending += block
                # Cut at the last complete UTF-8 character.
                cut = len(pending)
                while cut > 0 and (pending[cut - 1] & 0xC0) == 0x80:
                    cut -= 1
                if cut > 0 and pending[cut - 1] >= 0xC0:
                    cut -= 1
                text, pending = pending[:cut], pending[cut:]
                if text:
                    yield text.decode("utf-8")
            if pending:
                yield pending.decode("utf-8")

    def _send(
        self,
        method: str,
        path: str,
        query: dict[str, str] | None,
        body: Any,
        idempotent: bool,
        timeout: float | None,
        cache_control: str | None,
    ) -> HTTPResponse:
        url = self.options.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Authorization": f"Bearer {self.options.api_key}", "Accept": "application/json", "User-Agent": "social-lookup-python"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        if cache_control is not None:
            headers["Cache-Control"] = cache_control
        seconds = self.options.timeout if timeout is None else timeout
        retries = 0
        rate_limit_waits = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                response: HTTPResponse = _OPENER.open(request, timeout=seconds)
                return response
            except urllib.error.HTTPError as answer:
                failure = self._failure_of(answer)
                if answer.code == 429:
                    retry_after = getattr(failure, "retry_after_s", None)
                    if retry_after is None or rate_limit_waits >= self.options.max_rate_limit_waits:
                        raise failure from None
                    rate_limit_waits += 1
                    self._wait(RetryEvent("rate_limited", rate_limit_waits, retry_after, 429, retry_after, failure.request_id))
                    continue
                if answer.code >= 500 and idempotent and retries < self.options.max_retries:
                    retries += 1
                    self._wait(RetryEvent("server_error", retries, self._backoff(retries), answer.code, None, failure.request_id))
                    continue
                raise failure from None
            except (urllib.error.URLError, OSError) as error:
                failure_class = RequestTimeoutError if _is_timeout(error) else NetworkError
                reason = getattr(error, "reason", error)
                if retries >= self.options.max_retries or not (idempotent or _never_sent(error)):
                    raise failure_class(f"{method} {path} failed: {reason}") from error
                retries += 1
                self._wait(RetryEvent("network", retries, self._backoff(retries), None, None, None))

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.options.retry_max_delay, self.options.retry_base_delay * 2 ** (attempt - 1))
        return ceiling / 2 + random.random() * ceiling / 2

    def _wait(self, event: RetryEvent) -> None:
        if self.options.on_retry is not None:
            self.options.on_retry(event)
        time.sleep(event.wait_s)

    def _failure_of(self, answer: urllib.error.HTTPError) -> ApiError:
        try:
            text = answer.read()
        except OSError:
            text = b""
        finally:
            answer.close()
        try:
            envelope = json.loads(text)
        except ValueError:
            envelope = None
        parsed = envelope if _is_envelope(envelope) else {}
        headers = answer.headers
        code = parsed.get("code")
        request_id = parsed.get("requestId")
        return api_error_of(
            status=answer.code,
            code=code if isinstance(code, int) else answer.code,
            message=parsed.get("message") or f"HTTP {answer.code} {answer.reason}",
            request_id=request_id if isinstance(request_id, str) else headers.get("X-Request-Id"),
            credits=receipt_of(headers) if headers.get("X-Credits-Charged") is not None else None,
            retry_after_s=retry_after_of(headers) if answer.code == 429 else None,
        )
