"""Errors as exceptions, one class per family of the spec's ``code`` (§7): branch on the class or on
``code``, never on ``message``. Codes are only ever added, so an unknown code still maps by status."""

from __future__ import annotations

from typing import Any

import httpx


class ReelscopeError(Exception):
    """Base of everything the client raises."""


class ApiError(ReelscopeError):
    """A 4xx or 5xx answer: ``{statusCode, code, error, message}`` (§2.8), plus its request id."""

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str | list[str],
        request_id: str | None,
        body: dict[str, Any],
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.body = body
        text = "; ".join(message) if isinstance(message, list) else message
        super().__init__(f"{status} {code}: {text}" + (f" (request {request_id})" if request_id else ""))


class InvalidRequest(ApiError):
    """400: ``validation_error``, ``invalid_date_range``, ``unknown_region``, ``unknown_event_type``."""


class AuthenticationFailed(ApiError):
    """401: ``missing_api_key``, ``invalid_api_key``."""


class InsufficientCredits(ApiError):
    """402: ``insufficient_credits`` (do not retry, §7), or the key's ``daily_cap_reached``."""

    @property
    def required_credits(self) -> int | None:
        value = self.body.get("required_credits")
        return int(value) if value is not None else None

    @property
    def remaining_credits(self) -> int | None:
        value = self.body.get("remaining_credits")
        return int(value) if value is not None else None


class Forbidden(ApiError):
    """403: the key is valid but not permitted."""


class NotFound(ApiError):
    """404: absent, or another team's (§5.4)."""


class Conflict(ApiError):
    """409: conflicts with the current state (for example a sixth active webhook, or an
    ``Idempotency-Key`` reused for another request)."""


class RequestTimeout(ApiError):
    """408: the request body was too slow; retried like a 5xx (§7)."""


class RateLimited(ApiError):
    """429: ``rate_limit_exceeded`` (the key's windows, §8.1) or ``too_many_requests`` (per IP, §5.5).
    Raised once the retries are spent or the wait asked for is longer than the client will sleep."""

    @property
    def retry_after(self) -> float | None:
        value = self.body.get("retry_after")
        return float(value) if value is not None else None


class ServerError(ApiError):
    """5xx: ``internal_error`` (500) and any other server failure."""


class UpstreamError(ServerError):
    """502 or 504 ``upstream_error``: a dependency was unreachable or slow; not billed."""


class ServiceUnavailable(ServerError):
    """503 ``service_unavailable``; not billed."""


class ConnectionFailed(ReelscopeError):
    """No answer at all (connect error, timeout) after every retry."""


class WaitTimeout(ReelscopeError):
    """A ``wait_for_*`` helper gave up before the resource was finalized."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidRequest,
    401: AuthenticationFailed,
    402: InsufficientCredits,
    403: Forbidden,
    404: NotFound,
    408: RequestTimeout,
    409: Conflict,
    429: RateLimited,
    502: UpstreamError,
    503: ServiceUnavailable,
    504: UpstreamError,
}


def error_from(response: httpx.Response) -> ApiError:
    """The exception for an error response; a body that is not the spec's shape still gives one."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {"message": response.text or response.reason_phrase}
    status = response.status_code
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return kind(
        status=status,
        code=str(body.get("code", "unknown")),
        message=body.get("message", ""),
        request_id=response.headers.get("X-Request-Id"),
        body=body,
    )
