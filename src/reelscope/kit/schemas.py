"""Wire schemas shared by every family: the base model, the ``{data}`` envelope, the error body."""

from __future__ import annotations

from functools import partial
from http import HTTPStatus
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator


class Schema(BaseModel):
    """Response models read straight from ORM rows; field names are the spec's snake_case (§1)."""

    model_config = ConfigDict(from_attributes=True)


class RequestBody(BaseModel):
    """Request bodies reject unknown fields (400 validation_error), and NUL characters in any string or
    key: PostgreSQL cannot store them, and SQLite must answer the same (issue 14; the path and query
    string are checked at the edge, kit/edge.py)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        where = _nul_in(data, "")
        if where is not None:
            raise ValueError(f"{where or 'the body'} must not contain NUL characters")
        return data


def _nul_in(value: Any, path: str) -> str | None:
    """The dotted path of the first string (or key) holding a NUL character, or None."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and "\x00" in key:
                return inner.replace("\x00", "\\u0000")
            found = _nul_in(item, inner)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _nul_in(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


class QueryModel(BaseModel):
    """Query strings: an unknown parameter is a 400 naming it; instances are frozen so that a parsed
    query string can be kept (kit/query.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# §8.3: a list's ``limit`` above its maximum is treated as the maximum; below 1 is a 400
LimitUpTo100 = Annotated[int, Field(ge=1), AfterValidator(partial(min, 100))]

T = TypeVar("T")


class Envelope(Schema, Generic[T]):
    """``{ "data": ... }`` (§1)."""

    data: T


class ErrorBody(BaseModel):
    """§2.8. Some codes add documented siblings (402, 429)."""

    model_config = ConfigDict(extra="allow")

    statusCode: int
    code: str
    error: str
    message: str | list[str] = Field(description="A string, or an array of strings for validation_error")


_ERROR_CODES: dict[int, str] = {
    400: "validation_error (or a more specific 400 code)",
    401: "missing_api_key or invalid_api_key",
    402: "insufficient_credits",
    403: "forbidden",
    404: "not_found",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    429: "rate_limit_exceeded or too_many_requests",
    500: "internal_error",
    502: "upstream_error",
    503: "service_unavailable",
    504: "upstream_error",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error responses a route declares in OpenAPI, all in the §2.8 shape."""
    return {
        status: {
            "model": ErrorBody,
            "description": f"{HTTPStatus(status).phrase}: {_ERROR_CODES.get(status, 'error')}",
        }
        for status in statuses
    }


# Every /v1 route can fail authentication, rate limiting and unexpectedly.
CONTRACT_ERRORS = (401, 403, 429, 500)
