"""Posting cadence (spec §4.7 creator lookup "posting cadence", tracking "posting-cadence"): how often and
when a creator posts, from the publish times at hand. Pure: ``now`` is passed in.

One formula for lookups and tracking: ``posts_per_week`` is the posts over the time from the first of them
to ``now`` (at least one day), so a creator who stopped posting reads slower as time passes, and the gaps
are the hours between consecutive posts. Weekdays and hours are UTC.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MIN_SPAN_DAYS = 1.0


@dataclass(frozen=True)
class Cadence:
    posts_analyzed: int
    first_post_at: datetime | None
    last_post_at: datetime | None
    # None without posts
    posts_per_week: float | None
    # None below two posts
    average_gap_hours: float | None
    median_gap_hours: float | None
    # every weekday (monday first) and every UTC hour (0-23), zero where nothing was posted
    by_weekday: dict[str, int]
    by_hour: dict[int, int]


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def posting_cadence(published: Iterable[datetime], now: datetime) -> Cadence:
    ordered = sorted(_utc(moment) for moment in published)
    gaps = [(b - a).total_seconds() / 3600 for a, b in itertools.pairwise(ordered)]
    weekdays = Counter(WEEKDAYS[moment.weekday()] for moment in ordered)
    hours = Counter(moment.hour for moment in ordered)
    per_week = None
    if ordered:
        span_days = max((_utc(now) - ordered[0]).total_seconds() / 86_400, MIN_SPAN_DAYS)
        per_week = round(len(ordered) / span_days * 7, 2)
    return Cadence(
        posts_analyzed=len(ordered),
        first_post_at=ordered[0] if ordered else None,
        last_post_at=ordered[-1] if ordered else None,
        posts_per_week=per_week,
        average_gap_hours=round(statistics.fmean(gaps), 2) if gaps else None,
        median_gap_hours=round(statistics.median(gaps), 2) if gaps else None,
        by_weekday={day: weekdays.get(day, 0) for day in WEEKDAYS},
        by_hour={hour: hours.get(hour, 0) for hour in range(24)},
    )
