"""The errors the client raises.

Every failure is a SocialLookupError. An answer of the API (4xx, 5xx) is an ApiError carrying the
envelope's code, message and request_id and the credit receipt, one class per status a script
handles differently; no answer at all is a NetworkError (or its RequestTimeoutError).
"""

from __future__ import annotations

from ._types import CreditReceipt


class SocialLookupError(Exception):
    """Any failure of a call."""


class ApiError(SocialLookupError):
    """An answer of the API that is not a success."""

    def __init__(self, status: int, code: int, message: str, request_id: str | None, credits: CreditReceipt | None) -> None:
        super().__init__(message)
        self.status = status
        # The envelope's code: the HTTP status.
        self.code = code
        self.message = message
        self.request_id = request_id
        self.credits = credits


class BadRequestError(ApiError):
    """400: a parameter is missing or malformed ("Missing required parameter: userid"). Never retried."""


class AuthenticationError(ApiError):
    """401: no key, or an unknown, expired or revoked one. Never retried."""


class QuotaExceededError(ApiError):
    """402: the key's credits are below the price, or its daily budget is reached. Never retried."""


class PermissionDeniedError(ApiError):
    """403: the key may not call this operation, or not from this address. Never retried."""


class NotFoundError(ApiError):
    """404: no such record (or batch). Never retried."""


class ConflictError(ApiError):
    """409: a batch's status does not allow the action."""


class PayloadTooLargeError(ApiError):
    """413: the request body is too large."""


class RateLimitedError(ApiError):
    """429. With retry_after_s (the per-second limit) the client waited and retried until its
    max_rate_limit_waits ran out; without it (the open-batch quota), it is the answer itself."""

    def __init__(self, status: int, code: int, message: str, request_id: str | None, credits: CreditReceipt | None, retry_after_s: float | None) -> None:
        super().__init__(status, code, message, request_id, credits)
        self.retry_after_s = retry_after_s


class ServerError(ApiError):
    """5xx: the server failed (details in its log under request_id); retried with backoff first."""


class NetworkError(SocialLookupError):
    """No answer: the connection failed or was reset. Retried with backoff first (GET calls)."""


class RequestTimeoutError(NetworkError):
    """No answer within the attempt's timeout."""


class RedirectRefusedError(SocialLookupError):
    """The server answered with a redirect to another origin (scheme, host or port): the client
    sends the key (and a batch's inputs) to the base_url's origin only, so it stops there instead
    of following. Set base_url to where the server really is. Redirects within the origin are
    followed. Never retried."""

    def __init__(self, status: int, origin: str, location: str) -> None:
        super().__init__(
            f"the server at {origin} answered {status} with a redirect to another origin, {location}: "
            f"not followed, so the API key never leaves {origin}; set base_url to the address the server is really at"
        )
        self.status = status
        # The origin the redirect pointed to.
        self.location = location


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: QuotaExceededError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
}


def api_error_of(status: int, code: int, message: str, request_id: str | None, credits: CreditReceipt | None, retry_after_s: float | None) -> ApiError:
    """The error class of an answer's status."""
    if status == 429:
        return RateLimitedError(status, code, message, request_id, credits, retry_after_s)
    if status >= 500:
        return ServerError(status, code, message, request_id, credits)
    return _BY_STATUS.get(status, ApiError)(status, code, message, request_id, credits)
