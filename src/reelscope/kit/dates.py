"""The calendar a client's dates are read within (issue 31).

Python's calendar ends at 0001-01-01 and 9999-12-31: a moment at either edge overflows once moved to UTC
or to a region's zone (``0001-01-01T00:00:00+14:00``), or once widened to the last instant of its day,
and the request was a 500. Every date a request carries (``kit.schemas.IsoDate``/``IsoMoment``, the
agent lists' filters) is read through this module and must fall between ``FIRST_DAY`` and ``LAST_DAY``
(in UTC for a timestamp); a year of margin at each end leaves room for the day arithmetic and zone
changes done with it afterwards. Beyond them is a 400 ``invalid_date_range`` (§7: out of range), as
for any other date the service cannot read; no data lies there to be missed.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo

FIRST_DAY = date(2, 1, 1)
LAST_DAY = date(9998, 12, 31)
RANGE_MESSAGE = f"must be between {FIRST_DAY.isoformat()} and {LAST_DAY.isoformat()}"


class OutOfRange(ValueError):
    """A date the calendar holds but the API does not read (outside ``FIRST_DAY``..``LAST_DAY``)."""

    def __init__(self) -> None:
        super().__init__(RANGE_MESSAGE)


def in_range(day: date) -> date:
    """``day``, or ``OutOfRange``."""
    if not FIRST_DAY <= day <= LAST_DAY:
        raise OutOfRange
    return day


def as_utc(moment: datetime) -> datetime:
    """An aware moment in UTC (a naive one is read as UTC), or ``OutOfRange``."""
    try:
        utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+14:00 is before the calendar once in UTC
        raise OutOfRange from None
    in_range(utc.date())
    return utc


def day_edge(day: date, zone: tzinfo, *, end: bool) -> datetime:
    """The first instant of ``day`` in ``zone`` (its last with ``end``), in UTC; or ``OutOfRange``."""
    in_range(day)
    midnight = datetime.combine(day + timedelta(days=1) if end else day, time.min, zone)
    return (midnight - timedelta(microseconds=1) if end else midnight).astimezone(UTC)
