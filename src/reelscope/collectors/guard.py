"""The one guard between a connector call and what a client may read (connectors reference §0.1).

A family that calls a connector on a client's behalf (lookups, tracking, audience) awaits the call through
``guarded``: the four typed connector errors become a ``SourceFailed`` with a ``{code, message}`` fit for a
client (a 502 body, a job's ``error``, a webhook) and whether trying again may help. The vendor's own
text (status lines, URLs, quota names) stays in the exception chain and the logs, never in the message.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from reelscope.collectors.base import ConnectorError, NotFound, RateLimited, UpstreamError
from reelscope.kit.clock import iso

T = TypeVar("T")

UPSTREAM_ERROR = "upstream_error"
NOT_FOUND = "not_found"
FAILED = "The data source failed; try again"
UNAVAILABLE = "The data source is unavailable"
SPENT = "The data source's quota is spent or it is throttled; try again after {retry_at}"


class SourceFailed(Exception):
    """Why reading a source failed, as a client sees it (``{code, message}``), and whether to retry."""

    def __init__(self, code: str, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.code, self.message, self.retryable = code, message, retryable

    @property
    def error(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


async def guarded(call: Awaitable[T]) -> T:
    """``await call`` with connector errors turned into ``SourceFailed``. A missing creator, video, sound
    or hashtag keeps its (connector-written) message; every other failure gets a fixed one."""
    try:
        return await call
    except NotFound as exc:
        raise SourceFailed(NOT_FOUND, str(exc), retryable=False) from exc
    except RateLimited as exc:  # issue 26: a spent source is said to be spent, and until when
        raise SourceFailed(UPSTREAM_ERROR, SPENT.format(retry_at=iso(exc.retry_at)), retryable=True) from exc
    except UpstreamError as exc:
        raise SourceFailed(UPSTREAM_ERROR, FAILED, retryable=exc.retryable) from exc
    except ConnectorError as exc:
        raise SourceFailed(UPSTREAM_ERROR, UNAVAILABLE, retryable=False) from exc
