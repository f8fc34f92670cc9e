"""social_lookup: the Python client of the Social Lookup /v1 API (standard library only, Python 3.10+).

Its operations, their parameters and record types are generated from the server's operation
registry (_generated.py), so they cannot drift from what the server serves.
"""

from ._batches import FINISHED_STATUSES, BatchHandle, Batches, BatchWaitTimeoutError
from ._client import SocialLookup
from ._errors import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NetworkError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitedError,
    RedirectRefusedError,
    RequestTimeoutError,
    ServerError,
    SocialLookupError,
)
from ._generated import *  # noqa: F403 (the generated types, listed in its __all__)
from ._generated import __all__ as _generated_names
from ._paging import PagedOperation, PageIterator, Pages
from ._types import Answer, CreditReceipt, RetryEvent
from ._webhooks import (
    DEFAULT_TOLERANCE,
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    VerifiedWebhook,
    WebhookReceiver,
    WebhookSignatureError,
    WebhookWaiter,
    is_valid_signature,
    verify_webhook,
)

__version__ = "1.0.0"

__all__ = [
    "SocialLookup",
    "Answer",
    "CreditReceipt",
    "RetryEvent",
    "PagedOperation",
    "PageIterator",
    "Pages",
    "Batches",
    "BatchHandle",
    "BatchWaitTimeoutError",
    "FINISHED_STATUSES",
    "SocialLookupError",
    "ApiError",
    "BadRequestError",
    "AuthenticationError",
    "QuotaExceededError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "PayloadTooLargeError",
    "RateLimitedError",
    "ServerError",
    "NetworkError",
    "RequestTimeoutError",
    "RedirectRefusedError",
    "verify_webhook",
    "is_valid_signature",
    "WebhookSignatureError",
    "WebhookReceiver",
    "WebhookWaiter",
    "SIGNATURE_HEADER",
    "EVENT_HEADER",
    "DELIVERY_HEADER",
    "TIMESTAMP_HEADER",
    "DEFAULT_TOLERANCE",
    "VerifiedWebhook",
    *_generated_names,
]
