"""Trend momentum (spec §2.5, §4.3): status new/rising/steady/fading, a 0–1 heat score, views per hour.

Seeded at discovery from discovery-time signals; afterwards computed from successive readings of the
exemplars' total views (the background loop re-reads them about every two hours).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

NEW = "new"
RISING = "rising"
STEADY = "steady"
FADING = "fading"

# a trend stays "new" for this long after discovery unless its readings already show a direction
NEW_FOR = timedelta(hours=6)
RISING_AT = 1.15  # views per hour grew by 15% or more between readings
FADING_AT = 0.6  # views per hour fell to 60% or less


@dataclass(frozen=True)
class Reading:
    at: datetime
    views: int  # total views of the trend's exemplars at that moment


@dataclass(frozen=True)
class Momentum:
    status: str
    score: float
    views_per_hour: float


def _heat(views_per_hour: float, acceleration: float) -> float:
    """Log-scaled speed (1M views/hour is the top) blended with acceleration, kept in 0–1."""
    speed = min(1.0, math.log10(1.0 + max(0.0, views_per_hour)) / 6.0)
    accel = 1.0 / (1.0 + math.exp(-3.0 * (acceleration - 1.0)))
    return round(max(0.0, min(1.0, 0.65 * speed + 0.35 * accel)), 4)


def seed(*, burst_ratio: float, exemplar_views: int, exemplar_age_hours: float) -> Momentum:
    """Before the first reading: status ``new`` and a score from the burst and the exemplars' pace."""
    views_per_hour = exemplar_views / max(1.0, exemplar_age_hours)
    acceleration = 1.0 + min(2.0, math.log1p(max(0.0, burst_ratio - 1.0)) / 2.0)
    return Momentum(
        status=NEW, score=_heat(views_per_hour, acceleration), views_per_hour=round(views_per_hour, 2)
    )


def _rate(a: Reading, b: Reading) -> float | None:
    hours = (b.at - a.at).total_seconds() / 3600.0
    if hours <= 0:
        return None
    return max(0.0, (b.views - a.views) / hours)


def assess(
    readings: Sequence[Reading], *, detected_at: datetime, now: datetime, seeded: Momentum
) -> Momentum:
    """Momentum from the readings so far (oldest first)."""
    # one reading per moment (a refresh repeated at the same instant adds nothing)
    ordered = sorted({r.at: r for r in readings}.values(), key=lambda r: r.at)
    if len(ordered) < 2:
        return seeded
    current = _rate(ordered[-2], ordered[-1])
    if current is None:
        return seeded
    previous = _rate(ordered[-3], ordered[-2]) if len(ordered) >= 3 else None
    baseline = previous if previous is not None else seeded.views_per_hour
    acceleration = current / baseline if baseline > 0 else (2.0 if current > 0 else 1.0)
    if acceleration >= RISING_AT:
        status = RISING
    elif acceleration <= FADING_AT or current == 0:
        status = FADING
    elif previous is None and now - detected_at < NEW_FOR:
        status = NEW
    else:
        status = STEADY
    return Momentum(status=status, score=_heat(current, acceleration), views_per_hour=round(current, 2))
