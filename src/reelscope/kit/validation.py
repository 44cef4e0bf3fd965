"""Readable validation messages: an array of strings that name the parameter (spec §7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reelscope.kit.errors import ApiError, InvalidDateRange, InvalidParameter, NotFound, ValidationFailed
from reelscope.kit.schemas import DATE_ERROR

_SOURCES = {"query", "path", "body", "header", "cookie"}


def _name(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if str(p) not in _SOURCES]
    if parts:
        return ".".join(parts)
    # a rule over several fields (a model validator) is located at its source alone
    return "query" if loc and str(loc[0]) == "query" else "body"


def describe(error: dict[str, Any]) -> str:
    loc = error.get("loc", ())
    source = str(loc[0]) if loc else "body"
    name = _name(loc)
    kind = error.get("type", "")
    message = str(error.get("msg", "is invalid"))
    if kind == DATE_ERROR:
        return f"{name} {message}"
    if kind == InvalidParameter.code:
        return message  # it names the field itself (kit/video_links.invalid)
    if kind == "json_invalid":
        return "body must be valid JSON"
    if kind == "missing":
        return f"{name} is required"
    if kind == "extra_forbidden":
        if source == "query":
            return f"{name} is not a supported parameter"
        return f"{name} is not an allowed field"
    if message.startswith("Input should be "):
        return f"{name} must be {message.removeprefix('Input should be ')}"
    if message.startswith("Value error, "):
        return f"{name}: {message.removeprefix('Value error, ')}"
    return f"{name}: {message}"


def describe_validation_errors(errors: Sequence[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for error in errors:
        text = describe(error)
        if text not in seen:
            seen.append(text)
    return seen


def date_error(errors: Sequence[dict[str, Any]]) -> str | None:
    """The message of the first malformed date (kit.schemas ``IsoDate``/``IsoMoment``): §7 makes it
    400 ``invalid_date_range``, not ``validation_error``."""
    for error in errors:
        if error.get("type") == DATE_ERROR:
            return describe(error)
    return None


def is_unknown_platform(errors: Sequence[dict[str, Any]]) -> bool:
    return any(tuple(e.get("loc", ())) == ("path", "platform") for e in errors)


def invalid_parameter(errors: Sequence[dict[str, Any]]) -> str | None:
    """The message of the first value of the wrong kind (``InvalidParameter``, kit/video_links.py)."""
    for error in errors:
        if error.get("type") == InvalidParameter.code:
            return describe(error)
    return None


def api_error_of(errors: Sequence[dict[str, Any]]) -> ApiError:
    """The §7 error of a request that failed validation: an unknown platform in the path is 404, a
    malformed date 400 ``invalid_date_range``, a value of the wrong kind 400 ``invalid_parameter``,
    anything else 400 ``validation_error`` with every problem named."""
    if is_unknown_platform(errors):
        return NotFound("Unknown platform; use youtube, tiktok or instagram")
    bad_date = date_error(errors)
    if bad_date is not None:
        return InvalidDateRange(bad_date)
    wrong_kind = invalid_parameter(errors)
    if wrong_kind is not None:
        return InvalidParameter(wrong_kind)
    return ValidationFailed(describe_validation_errors(errors))
