"""Values as vendors send them → the types records hold (connectors reference §10 "type drift").

Shared by the mappers of TikTok Research, Instagram and the Meta Ad Library: counts arrive as numbers or
as strings (the Ad Library's range bounds always are), ids beyond 2^53 as JSON integers or strings, and
times as epoch seconds (int or string) or in one of two ISO forms. What cannot be read is ``None``; the
mapper decides whether that sinks the item or means "not reported".
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

# the earliest and latest epoch seconds taken for a time (a millisecond value would be far beyond)
_EPOCH_MIN, _EPOCH_MAX = 946_684_800, 4_102_444_800  # 2000-01-01, 2100-01-01


def count(value: Any) -> int | None:
    """A counter (``1877``, ``"1877"``, ``1877.0``) → int; None when absent, negative or not a number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return round(value) if math.isfinite(value) and value >= 0 else None
    if isinstance(value, str):
        found = value.strip()
        if found.isdigit():
            return int(found)
        try:
            number = float(found)
        except ValueError:
            return None
        return round(number) if math.isfinite(number) and number >= 0 else None
    return None


def digits(value: Any) -> str | None:
    """An id sent as a JSON integer or a string of digits → the string (never through a float: TikTok
    ids exceed 2^53); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value) if value >= 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return value.strip()
    return None


def text(value: Any) -> str | None:
    """A non-empty string, stripped; None for anything else."""
    return value.strip() or None if isinstance(value, str) else None


def mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON list (anything else in it is dropped); [] when it is no list."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def strings(value: Any) -> tuple[str, ...]:
    """The non-empty strings of a JSON list, stripped, in order."""
    if not isinstance(value, list):
        return ()
    return tuple(found for entry in value if (found := text(entry)) is not None)


def epoch(value: Any) -> datetime | None:
    """Epoch seconds (``1791130805`` or ``"1791130805"``) → UTC; None when absent or out of range."""
    seconds = count(value)
    if seconds is None or not _EPOCH_MIN <= seconds <= _EPOCH_MAX:
        return None
    return datetime.fromtimestamp(seconds, UTC)


def moment(value: Any) -> datetime | None:
    """``2026-10-04``, ``2026-10-04T16:20:05+0000``, ``…+00:00`` or ``…Z`` → UTC, whole seconds (a bare
    date is its midnight UTC); None when it is none of these."""
    found = text(value)
    if found is None:
        return None
    if len(found) > 5 and found[-5] in "+-" and found[-4:].isdigit():
        found = f"{found[:-2]}:{found[-2:]}"  # +0000 → +00:00 (fromisoformat before 3.11 wanted it)
    try:
        parsed = datetime.fromisoformat(found.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).replace(microsecond=0)
