"""Wire schemas shared by every family: the base model, the ``{data}`` envelope, the error body."""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import cache, partial
from http import HTTPStatus
from types import UnionType
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from reelscope.kit import dates


class Schema(BaseModel):
    """Response models read straight from ORM rows; field names are the spec's snake_case (§1)."""

    model_config = ConfigDict(from_attributes=True)


class RequestBody(BaseModel):
    """Request bodies reject unknown fields (400 validation_error), and NUL characters in any string or
    key: PostgreSQL cannot store them, and SQLite must answer the same (issue 14; the path and query
    string are checked at the edge, kit/edge.py)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _integers_are_digits(cls, value: Any, info: ValidationInfo) -> Any:
        return _digits_only(cls, value, info)

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
    """Query strings: an unknown parameter is a 400 naming it; an integer is ASCII digits (optionally
    signed with ``-``, so that a negative one meets its range check) within PostgreSQL's INTEGER;
    instances are frozen so that a parsed query string can be kept (kit/query.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _integers_are_digits(cls, value: Any, info: ValidationInfo) -> Any:
        return _digits_only(cls, value, info)


# Pydantic reads " 5", "+5", "1_0" and "5.0" as the integer 5 or 10: a client's typo would be served and
# charged (issue 14). Integers written as strings must be plain ASCII digits.
_ASCII_INTEGER = re.compile(r"-?[0-9]+")


@cache
def _integer_fields(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for name, field in model.model_fields.items() if _is_integer(field.annotation))


def _is_integer(annotation: Any) -> bool:
    if annotation is int:
        return True
    return get_origin(annotation) in (Union, UnionType) and int in get_args(annotation)


# PostgreSQL's INTEGER: a larger number bound into a query is a driver error there (a 500), while
# SQLite takes it; no count, page or limit of the API needs more (found by fuzzing on PostgreSQL)
INT32_MAX = 2**31 - 1


def _digits_only(model: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    if info.field_name not in _integer_fields(model) or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if not _ASCII_INTEGER.fullmatch(value):
            raise PydanticCustomError("int_parsing", "Input should be an integer written in ASCII digits")
        negative = value.startswith("-")
        if len(value.lstrip("-").lstrip("0")) <= 12:  # int() of thousands of digits is refused, and slow
            number = int(value)
        else:
            number = -INT32_MAX - 1 if negative else INT32_MAX + 1
    elif isinstance(value, int):
        number = value
    else:
        return value
    if number > INT32_MAX:
        raise PydanticCustomError(
            "less_than_equal", "Input should be less than or equal to {le}", {"le": INT32_MAX}
        )
    if number < -INT32_MAX:
        raise PydanticCustomError(
            "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": -INT32_MAX}
        )
    return value


# Dates in the spec's formats only (§4.2 YYYY-MM-DD; §4.3 ISO 8601), not whatever ``fromisoformat``
# takes (any separator, week dates, "20260101"). A malformed date is 400 invalid_date_range (§7): the
# error type below is turned into that code by the app's handler (main.py, kit/validation.py). A date
# beyond the calendar the API reads (kit/dates.py) is refused the same way.
DATE_FORMAT = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_ISO_DATE = re.compile(DATE_FORMAT)
_ISO_MOMENT = re.compile(
    DATE_FORMAT + r"([Tt][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?"
)
DATE_ERROR = "invalid_date_range"


def _iso_date(value: str) -> str:
    if not _ISO_DATE.fullmatch(value):
        raise PydanticCustomError(DATE_ERROR, "must be a date in YYYY-MM-DD format")
    try:
        dates.in_range(date.fromisoformat(value))
    except dates.OutOfRange:
        raise PydanticCustomError(DATE_ERROR, dates.RANGE_MESSAGE) from None
    except ValueError:
        raise PydanticCustomError(DATE_ERROR, "is not a real date: {value}", {"value": value}) from None
    return value


def _iso_moment(value: str) -> str:
    if not _ISO_MOMENT.fullmatch(value):
        raise PydanticCustomError(
            DATE_ERROR,
            "must be an ISO 8601 date (YYYY-MM-DD) or timestamp (YYYY-MM-DDTHH:MM:SS, optional Z or ±HH:MM)",
        )
    try:
        if len(value) == len("YYYY-MM-DD"):
            dates.in_range(date.fromisoformat(value))
        else:
            dates.as_utc(datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00")))
    except dates.OutOfRange:
        raise PydanticCustomError(DATE_ERROR, dates.RANGE_MESSAGE) from None
    except ValueError:
        raise PydanticCustomError(
            DATE_ERROR, "is not a real date or time: {value}", {"value": value}
        ) from None
    return value


# a YYYY-MM-DD date, kept as the string the client sent (the family reads it in its own calendar)
IsoDate = Annotated[str, AfterValidator(_iso_date)]
# an ISO 8601 date or timestamp, kept as sent
IsoMoment = Annotated[str, AfterValidator(_iso_moment)]

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
    402: "insufficient_credits (or daily_cap_reached: the API key's daily spending cap)",
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


def error_codes() -> dict[int, str]:
    """Each error status and the codes it carries (§7), as the reference and /llms-full.txt say them."""
    return dict(_ERROR_CODES)


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
