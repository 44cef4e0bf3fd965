"""Wire schemas shared by every family: the base model, the ``{data}`` envelope, the error body."""

from __future__ import annotations

from functools import partial
from http import HTTPStatus
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class Schema(BaseModel):
    """Response models read straight from ORM rows; field names are the spec's snake_case (§1)."""

    model_config = ConfigDict(from_attributes=True)


class RequestBody(BaseModel):
    """Request bodies reject unknown fields (400 validation_error)."""

    model_config = ConfigDict(extra="forbid")


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
    409: "conflict",
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
