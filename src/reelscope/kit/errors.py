"""Typed API errors (spec §7). Raise where the rule lives; one handler renders the body (§2.8)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, ClassVar


class ApiError(Exception):
    """An error a client can branch on by ``code``. Codes are only ever added (§7)."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal_error"
    default_message: ClassVar[str] = "Unexpected failure"

    def __init__(
        self,
        message: str | list[str] | None = None,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message: str | list[str] = message if message is not None else self.default_message
        self.extra = extra or {}
        self.headers = headers or {}
        super().__init__(self.message if isinstance(self.message, str) else "; ".join(self.message))

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.code, self.message, self.extra)


def writable(text: str) -> str:
    """``text`` as UTF-8 can carry it: a lone surrogate written as its escape (``\\ud800``). A message
    may quote what a client sent, and an error that cannot be rendered was a 500 and a reset connection
    (issue 31; JSON bodies with one are refused, kit/json_body.py)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_body(
    status: int, code: str, message: str | list[str], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``{statusCode, code, error, message}`` plus any documented extras (§2.8, §7)."""
    body: dict[str, Any] = {
        "statusCode": status,
        "code": code,
        "error": HTTPStatus(status).phrase,
        "message": writable(message) if isinstance(message, str) else [writable(m) for m in message],
    }
    if extra:
        body.update(extra)
    return body


class ValidationFailed(ApiError):
    status = 400
    code = "validation_error"
    default_message = "The request is invalid"

    def __init__(self, messages: list[str] | str) -> None:
        # §7: the message of a validation_error is always an array
        super().__init__(messages if isinstance(messages, list) else [messages])


class InvalidParameter(ApiError):
    """Not in §7's table (codes are only ever added): a value of the wrong kind for its field, such as a
    link that names no video of the three platforms, or a link given where the platform's id goes
    (ADR 0043). The message names the field."""

    status = 400
    code = "invalid_parameter"
    default_message = "A parameter is not of the kind its field takes"


class InvalidDateRange(ApiError):
    status = 400
    code = "invalid_date_range"
    default_message = "start_date and end_date must be valid YYYY-MM-DD dates"


class UnknownRegion(ApiError):
    status = 400
    code = "unknown_region"


class UnknownEventType(ApiError):
    status = 400
    code = "unknown_event_type"


class MissingApiKey(ApiError):
    status = 401
    code = "missing_api_key"
    default_message = "Missing Authorization header; send 'Authorization: Bearer <API_KEY>'"


class InvalidApiKey(ApiError):
    status = 401
    code = "invalid_api_key"
    default_message = "The API key is malformed, revoked or inactive"


class PaymentRefused(ApiError):
    """A 402: the request would cost more than may be spent. Before any work, never billed, and not
    counted against the rate limit (§8.1)."""

    status = 402
    code = "insufficient_credits"


class InsufficientCredits(PaymentRefused):
    code = "insufficient_credits"

    def __init__(self, required: int, remaining: int) -> None:
        super().__init__(
            f"This request costs {required} credits but the balance is {remaining}; top up and retry",
            extra={"required_credits": required, "remaining_credits": remaining},
        )


class DailyCapReached(PaymentRefused):
    """Beyond the spec (issue 30, ADR 0047; §7: codes are only ever added): the API key's daily spending
    cap would be passed. The body says the cap, what the key was charged today and when the UTC day
    turns; the same request succeeds again then, or once an operator raises the cap."""

    code = "daily_cap_reached"

    def __init__(
        self, *, required: int, cap: int, spent: int, reset_at: int, reset_at_formatted: str
    ) -> None:
        super().__init__(
            f"This request costs {required} credits but this API key may spend only {cap - spent} more "
            f"today (daily cap {cap}, spent {spent}); the cap resets at {reset_at_formatted}",
            extra={
                "required_credits": required,
                "daily_cap_credits": cap,
                "spent_today_credits": spent,
                "reset_at": reset_at,
                "reset_at_formatted": reset_at_formatted,
            },
        )


class Forbidden(ApiError):
    status = 403
    code = "forbidden"
    default_message = "This API key is not permitted to perform this request"


class NotFound(ApiError):
    status = 404
    code = "not_found"
    default_message = "Resource not found"


class MethodNotAllowed(ApiError):
    """Not in §7's table: a wrong method keeps the error shape with a stable code."""

    status = 405
    code = "method_not_allowed"
    default_message = "Method not allowed on this path"


class RequestTimeout(ApiError):
    """Not in §7's table (§7 names 408 as retryable): the request body did not arrive in time."""

    status = 408
    code = "request_timeout"
    default_message = "The request body did not arrive in time"


class Conflict(ApiError):
    status = 409
    code = "conflict"
    default_message = "The request conflicts with the current state"


class PayloadTooLarge(ApiError):
    """Not in §7's table: a request body over the operator's limit (REELSCOPE_MAX_BODY_BYTES)."""

    status = 413
    code = "payload_too_large"
    default_message = "The request body is too large"


class RequestHeaderTooLarge(ApiError):
    """Not in §7's table: a request line and headers over REELSCOPE_MAX_HEADER_BYTES (cli/http_server.py)."""

    status = 431
    code = "request_header_too_large"
    default_message = "The request line and headers are too large"


class RateLimitExceeded(ApiError):
    status = 429
    code = "rate_limit_exceeded"
    default_message = "Rate limit exceeded"


class TooManyRequests(ApiError):
    status = 429
    code = "too_many_requests"
    default_message = "Too many requests without a valid API key; slow down"


class UpstreamError(ApiError):
    status = 502
    code = "upstream_error"
    default_message = "A dependency is unreachable"


class UpstreamTimeout(UpstreamError):
    status = 504
    default_message = "A dependency is too slow"


class ServiceUnavailable(ApiError):
    status = 503
    code = "service_unavailable"
    default_message = "Temporarily unavailable; retry later"


class InternalError(ApiError):
    status = 500
    code = "internal_error"
    default_message = "Unexpected failure"
