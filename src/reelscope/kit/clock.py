"""The one source of time (ARCHITECTURE §4): nothing else reads the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, UTC, timezone-aware."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock tests move by hand."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs an aware datetime")
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        self._now += delta
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment.astimezone(UTC)


def as_utc(moment: datetime) -> datetime:
    """Treat naive datetimes read back from SQLite as UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 with a ``Z`` suffix, the rendering of every timestamp except ``publish_date``."""
    if moment is None:
        return None
    return as_utc(moment).isoformat().replace("+00:00", "Z")
