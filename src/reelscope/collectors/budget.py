"""What a source may spend: quota buckets, when they reset, and whose work a call is (issue 26 item 2, 5).

A real source sells its calls in daily buckets (connectors reference §1.4, §2.4, §10): YouTube's search
bucket (100 calls a day) apart from its shared 10,000 units, TikTok Research's 1,000 requests, each reset
at a fixed instant of its own zone. A connector declares its ``Bucket``s and asks the ledger
(``collectors/ledger.py``) before every call; the ledger counts what was spent, persisted across restarts,
and refuses with ``RateLimited(retry_at=the reset)`` once a bucket is spent.

Background work (the periodic collection) may use only a share of each bucket, so that on-demand work
(lookups, agent runs, tracking) still finds budget; the collection marks its calls with ``background()``.

A source with a politeness limit instead of a quota (GDELT: one request per 5 s, connectors reference §7)
declares ``min_interval``: each call holds the bucket that long, in every process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from reelscope.kit.clock import as_utc


@dataclass(frozen=True)
class MidnightIn:
    """A daily quota that resets at midnight in ``zone`` (YouTube: America/Los_Angeles, so 07:00 or 08:00
    UTC with daylight saving; TikTok Research: UTC)."""

    zone: str

    def after(self, moment: datetime) -> datetime:
        """The first reset strictly after ``moment`` (UTC, aware)."""
        zone = ZoneInfo(self.zone)
        local = as_utc(moment).astimezone(zone)
        next_day = local.date() + timedelta(days=1)
        return datetime.combine(next_day, time(0), tzinfo=zone).astimezone(UTC)


UTC_MIDNIGHT = MidnightIn("UTC")
PACIFIC_MIDNIGHT = MidnightIn("America/Los_Angeles")


@dataclass(frozen=True)
class Bucket:
    """One thing a source counts: ``daily_limit`` units between resets (None: no quota, the bucket only
    records pauses, e.g. a host a scraper is blocked on), of which background work may spend
    ``background_share``; with ``min_interval``, at most one call per interval."""

    name: str
    daily_limit: int | None = None
    resets: MidnightIn = UTC_MIDNIGHT
    background_share: float = 1.0
    min_interval: timedelta | None = None

    @property
    def pacing(self) -> str | None:
        """The pause reason a call's hold writes (None without ``min_interval``)."""
        if self.min_interval is None:
            return None
        return f"at most one call every {self.min_interval.total_seconds():g} s"

    @property
    def background_limit(self) -> int | None:
        if self.daily_limit is None:
            return None
        return int(self.daily_limit * self.background_share)


_background: ContextVar[bool] = ContextVar("reelscope_background_work", default=False)


@contextmanager
def background() -> Iterator[None]:
    """Calls made inside count as background work (the periodic collection), against the share."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


def is_background() -> bool:
    return _background.get()
