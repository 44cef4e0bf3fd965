"""Planted trends: a weekly schedule of topic bursts per country, and its ground truth.

Each week (counted from ``EPOCH``) holds 6 to 10 trends; each trend takes a theme and bursts in one
country, and about a third of them also burst independently (own start, own size) in one or two other
countries. A burst's extra videos follow a triangle: rising from ``start`` to ``peak``, falling to
``end``. Burst videos carry the theme's hashtags, sound and phrases and get above-baseline views, so a
trend detector sees them; ``ground_truth`` lists the bursts it should find.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.vocab import COUNTRY_INDEX, THEMES, Theme
from reelscope.kit.platforms import Platform

EPOCH = datetime(2024, 1, 1, tzinfo=UTC).timestamp()  # a Monday
WEEK = 7 * 86_400.0
HOUR = 3_600.0
MAX_SPAN = 6 * 86_400.0  # start of a burst's week to its end, at most
BURST_COUNTRIES = ("us", "gb", "au", "ca", "de", "br", "fr", "mx", "in")
_BURST_WEIGHTS = hs.cumulative([0.32, 0.2, 0.16, 0.07, 0.06, 0.06, 0.05, 0.05, 0.03])
PLATFORM_VOLUME = {Platform.TIKTOK: 1.0, Platform.INSTAGRAM: 0.6, Platform.YOUTUBE: 0.35}
MAX_PER_WEEK = 32  # burst entries per week (fits the 5 bits of a burst video id)
MAX_SEQ = 2_047  # videos of one burst on one platform (11 bits)


@dataclass(frozen=True)
class Burst:
    """One country's burst of one trend."""

    week: int
    slot: int  # index among the week's bursts (what a burst video id carries)
    trend_key: str  # shared by the bursts of one trend in several countries
    theme_index: int
    country: str
    start: float
    peak: float
    end: float
    volume: int  # extra TikTok videos; other platforms get PLATFORM_VOLUME of it
    news_lead: float | None  # seconds before start that news appears, None = no news

    @property
    def theme(self) -> Theme:
        return THEMES[self.theme_index]

    def count(self, platform: Platform) -> int:
        return min(MAX_SEQ, int(self.volume * PLATFORM_VOLUME[platform]))

    def cdf(self, t: float) -> float:
        """Share of the burst's videos posted before ``t`` (triangle distribution)."""
        if t <= self.start:
            return 0.0
        if t >= self.end:
            return 1.0
        width = self.end - self.start
        if t <= self.peak:
            return (t - self.start) ** 2 / (width * (self.peak - self.start))
        return 1.0 - (self.end - t) ** 2 / (width * (self.end - self.peak))

    def inverse_cdf(self, q: float) -> float:
        width = self.end - self.start
        split = (self.peak - self.start) / width
        if q <= split:
            return self.start + math.sqrt(q * width * (self.peak - self.start))
        return self.end - math.sqrt((1 - q) * width * (self.end - self.peak))


@lru_cache(maxsize=512)
def bursts_of_week(seed: int, week: int) -> tuple[Burst, ...]:
    key = hs.label("trends")
    week_start = EPOCH + week * WEEK
    trends = 6 + hs.scalar_h(seed, key, week, 0) % 5
    # a different theme for each trend of the week: themes ordered by a per-week hash
    order = sorted(range(len(THEMES)), key=lambda i: hs.scalar_h(seed, key, week, 1, i))
    bursts: list[Burst] = []
    for j in range(trends):
        theme_index = order[j % len(order)]
        home = int(hs.weighted(_BURST_WEIGHTS, hs.uniform(seed, key, week, j, 2))[0])
        countries = [BURST_COUNTRIES[home]]
        if hs.scalar_u(seed, key, week, j, 3) < 0.35:
            extra = 1 + hs.scalar_h(seed, key, week, j, 4) % 2
            for k in range(extra):
                other = BURST_COUNTRIES[hs.scalar_h(seed, key, week, j, 5, k) % len(BURST_COUNTRIES)]
                if other not in countries:
                    countries.append(other)
        base_start = week_start + hs.scalar_u(seed, key, week, j, 6) * 3.5 * 86_400
        for c_i, country in enumerate(countries):
            if len(bursts) >= MAX_PER_WEEK:
                break
            u = [hs.scalar_u(seed, key, week, j, 7, c_i, f) for f in range(5)]
            start = base_start + (0.0 if c_i == 0 else (2 + 30 * u[0]) * HOUR)
            rise = (6 + 30 * u[1]) * HOUR
            fall = rise * (1.5 + 1.5 * u[2])
            bursts.append(
                Burst(
                    week=week,
                    slot=len(bursts),
                    trend_key=f"{week}-{j}",
                    theme_index=theme_index,
                    country=country,
                    start=start,
                    peak=start + rise,
                    end=start + rise + fall,
                    volume=int(120 + 280 * u[3]) if c_i == 0 else int(80 + 140 * u[3]),
                    news_lead=(6 + 42 * u[4]) * HOUR if c_i == 0 and u[4] < 0.6 else None,
                )
            )
    return tuple(bursts)


def week_of(t: float) -> int:
    return int((t - EPOCH) // WEEK)


def bursts_between(seed: int, since: float, until: float) -> list[Burst]:
    """Bursts whose [start, end) overlaps [since, until)."""
    found: list[Burst] = []
    for week in range(week_of(since - MAX_SPAN), week_of(until) + 1):
        if week < 0:
            continue
        found.extend(b for b in bursts_of_week(seed, week) if b.start < until and b.end > since)
    return found


@dataclass(frozen=True)
class PlantedTrend:
    """Ground truth of one burst, in the terms a trend detector reports."""

    trend_key: str
    name: str
    description: str
    region: str
    start: datetime
    peak: datetime
    end: datetime
    hashtags: tuple[str, ...]
    phrases: tuple[str, ...]
    sound_title: str
    regions: tuple[str, ...]  # every country this trend bursts in (≥ 2 means multi-country)
    expected_videos: dict[str, int]


def ground_truth(seed: int, region: str | None, since: datetime, until: datetime) -> list[PlantedTrend]:
    """Bursts active in [since, until); ``region`` None or ``global`` means every country."""
    wanted = None if region in (None, "global") else region
    if wanted is not None and wanted not in COUNTRY_INDEX:
        return []
    active = bursts_between(seed, since.timestamp(), until.timestamp())
    by_trend: dict[str, list[str]] = {}
    for week in {b.week for b in active}:
        for b in bursts_of_week(seed, week):
            by_trend.setdefault(b.trend_key, []).append(b.country)
    result = []
    for b in sorted(active, key=lambda b: (b.start, b.country)):
        if wanted is not None and b.country != wanted:
            continue
        result.append(
            PlantedTrend(
                trend_key=b.trend_key,
                name=b.theme.name,
                description=b.theme.description,
                region=b.country,
                start=datetime.fromtimestamp(b.start, UTC),
                peak=datetime.fromtimestamp(b.peak, UTC),
                end=datetime.fromtimestamp(b.end, UTC),
                hashtags=b.theme.tags,
                phrases=b.theme.phrases,
                sound_title=b.theme.sound_title,
                regions=tuple(by_trend[b.trend_key]),
                expected_videos={p.value: b.count(p) for p in Platform},
            )
        )
    return result
