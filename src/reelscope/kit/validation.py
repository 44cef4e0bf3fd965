"""Readable validation messages: an array of strings that name the parameter (spec §7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reelscope.kit.schemas import DATE_ERROR

_SOURCES = {"query", "path", "body", "header", "cookie"}


def _name(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if str(p) not in _SOURCES]
    return ".".join(parts) if parts else "body"


def describe(error: dict[str, Any]) -> str:
    loc = error.get("loc", ())
    source = str(loc[0]) if loc else "body"
    name = _name(loc)
    kind = error.get("type", "")
    message = str(error.get("msg", "is invalid"))
    if kind == DATE_ERROR:
        return f"{name} {message}"
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
