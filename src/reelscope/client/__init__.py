"""The typed Python client of the Reelscope API (issue 30): ``from reelscope.client import Reelscope``.

It imports only httpx and pydantic — never the server — so it runs anywhere ``pip install reelscope``
does (tests/client/test_isolation.py). Every result carries ``.meta``: what the call cost
(``X-Cost``), the credits left, its request id and rate limit. Errors are the classes of errors.py.
"""

from reelscope.client.base import CallMeta, Envelope, ListResponse, NoContent, Page, RateLimit
from reelscope.client.clients import AsyncReelscope, Reelscope
from reelscope.client.core import RetryPolicy
from reelscope.client.errors import (
    ApiError,
    AuthenticationFailed,
    Conflict,
    ConnectionFailed,
    Forbidden,
    InsufficientCredits,
    InvalidRequest,
    NotFound,
    RateLimited,
    ReelscopeError,
    RequestTimeout,
    ServerError,
    ServiceUnavailable,
    UpstreamError,
    WaitTimeout,
)
from reelscope.client.operations import OPERATIONS, Operation
from reelscope.client.webhooks import InvalidWebhook, WebhookEvent, WebhookReceiver

__all__ = [
    "OPERATIONS",
    "ApiError",
    "AsyncReelscope",
    "AuthenticationFailed",
    "CallMeta",
    "Conflict",
    "ConnectionFailed",
    "Envelope",
    "Forbidden",
    "InsufficientCredits",
    "InvalidRequest",
    "InvalidWebhook",
    "ListResponse",
    "NoContent",
    "NotFound",
    "Operation",
    "Page",
    "RateLimit",
    "RateLimited",
    "Reelscope",
    "ReelscopeError",
    "RequestTimeout",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailable",
    "UpstreamError",
    "WaitTimeout",
    "WebhookEvent",
    "WebhookReceiver",
]
