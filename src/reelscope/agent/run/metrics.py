"""The agent's analytics over every video it has linked (spec §4.4): per-sound rows with a lifecycle label,
per-hashtag analytics (growth, top creators) and follower-tier benchmarks. Pure: plain facts in, values
out; the run stores them so reads are plain selects.

Growth compares the agent's own videos posted in the last 7 days with the 7 days before
(``growth_7d = videos_7d / videos_prev_7d``, null when the earlier week had none).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

WEEK = timedelta(days=7)
RISING_AT = 1.5
DECLINING_AT = 0.67
TOP_CREATORS = 3

# §4.4 follower tiers: (name, min followers, max followers exclusive or None)
TIERS: tuple[tuple[str, int, int | None], ...] = (
    ("nano", 0, 10_000),
    ("micro", 10_000, 100_000),
    ("mid", 100_000, 1_000_000),
    ("macro", 1_000_000, None),
)


@dataclass(frozen=True)
class VideoFact:
    video_id: str
    platform: str
    published_at: datetime
    views: int
    likes: int
    comments: int
    shares: int | None
    hashtags: tuple[str, ...]
    sound_id: str | None
    creator_id: str | None
    handle: str | None
    followers: int | None


@dataclass(frozen=True)
class Weekly:
    count: int
    total_views: int
    videos_7d: int
    videos_prev_7d: int
    first_at: datetime
    last_at: datetime

    @property
    def growth_7d(self) -> float | None:
        return round(self.videos_7d / self.videos_prev_7d, 4) if self.videos_prev_7d else None


def weekly(facts: Sequence[VideoFact], now: datetime) -> Weekly:
    recent = sum(1 for f in facts if now - WEEK < f.published_at <= now)
    previous = sum(1 for f in facts if now - 2 * WEEK < f.published_at <= now - WEEK)
    return Weekly(
        count=len(facts),
        total_views=sum(f.views for f in facts),
        videos_7d=recent,
        videos_prev_7d=previous,
        first_at=min(f.published_at for f in facts),
        last_at=max(f.published_at for f in facts),
    )


def lifecycle(week: Weekly, now: datetime) -> str:
    """emerging (first used in the last two weeks), rising (≥ 1.5× the week before, or back after a
    silent week), declining (≤ 0.67×, or silent this week), else stable."""
    if week.videos_7d == 0:
        return "declining"
    if week.first_at > now - 2 * WEEK:
        return "emerging"
    if week.videos_prev_7d == 0:
        return "rising"
    growth = week.videos_7d / week.videos_prev_7d
    if growth >= RISING_AT:
        return "rising"
    if growth <= DECLINING_AT:
        return "declining"
    return "stable"


def rising_score(week: Weekly) -> float:
    """Recent use weighted by its acceleration: videos_7d × (videos_7d + 1) / (videos_prev_7d + 1)."""
    return round(week.videos_7d * (week.videos_7d + 1) / (week.videos_prev_7d + 1), 4)


@dataclass(frozen=True)
class SoundStat:
    sound_id: str
    week: Weekly
    lifecycle: str
    rising_score: float


def sounds(facts: Iterable[VideoFact], now: datetime) -> list[SoundStat]:
    by_sound: dict[str, list[VideoFact]] = defaultdict(list)
    for fact in facts:
        if fact.sound_id is not None:
            by_sound[fact.sound_id].append(fact)
    stats = []
    for sound_id, used in by_sound.items():
        week = weekly(used, now)
        stats.append(SoundStat(sound_id, week, lifecycle(week, now), rising_score(week)))
    return stats


@dataclass(frozen=True)
class HashtagStat:
    key: str
    display: str
    week: Weekly
    top_creators: list[dict[str, Any]]


def hashtag_key(tag: str) -> str:
    return tag.strip().lstrip("#").strip().lower()


def hashtags(facts: Iterable[VideoFact], now: datetime) -> list[HashtagStat]:
    by_tag: dict[str, list[VideoFact]] = defaultdict(list)
    display: dict[str, str] = {}
    for fact in facts:
        for tag in dict.fromkeys(hashtag_key(t) for t in fact.hashtags):
            if tag:
                by_tag[tag].append(fact)
        for tag in fact.hashtags:
            display.setdefault(hashtag_key(tag), tag.strip().lstrip("#"))
    return [
        HashtagStat(key, display.get(key, key), weekly(used, now), top_creators(used))
        for key, used in by_tag.items()
    ]


def top_creators(facts: Sequence[VideoFact]) -> list[dict[str, Any]]:
    """The creators with the most views among these videos: {creator_id, handle, platform, video_count,
    total_views}."""
    totals: dict[str, dict[str, Any]] = {}
    for fact in facts:
        if fact.creator_id is None:
            continue
        entry = totals.setdefault(
            fact.creator_id,
            {
                "creator_id": fact.creator_id,
                "handle": fact.handle,
                "platform": fact.platform,
                "video_count": 0,
                "total_views": 0,
            },
        )
        entry["video_count"] += 1
        entry["total_views"] += fact.views
    ranked = sorted(totals.values(), key=lambda e: (-e["total_views"], e["creator_id"]))
    return ranked[:TOP_CREATORS]


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(share * len(ordered)))])


def engagement_rate(fact: VideoFact) -> float | None:
    """(likes + comments + shares) / views; None without views."""
    if fact.views <= 0:
        return None
    return (fact.likes + fact.comments + (fact.shares or 0)) / fact.views


def tier_of(followers: int) -> str:
    for name, low, high in TIERS:
        if followers >= low and (high is None or followers < high):
            return name
    raise AssertionError("the tiers cover every follower count")


def benchmarks(facts: Sequence[VideoFact], now: datetime) -> dict[str, Any]:
    """Per follower tier (nano < 10K, micro < 100K, mid < 1M, macro): how the genre's videos perform.
    Creators whose follower count is unknown are left out; every tier is present, empty ones with zeros."""
    by_tier: dict[str, list[VideoFact]] = defaultdict(list)
    for fact in facts:
        if fact.followers is not None:
            by_tier[tier_of(fact.followers)].append(fact)
    tiers = []
    for name, low, high in TIERS:
        videos = by_tier.get(name, [])
        views = [float(f.views) for f in videos]
        rates = [r for f in videos if (r := engagement_rate(f)) is not None]
        tiers.append(
            {
                "tier": name,
                "min_followers": low,
                "max_followers": high,
                "creator_count": len({f.creator_id for f in videos if f.creator_id}),
                "video_count": len(videos),
                "median_views": float(statistics.median(views)) if views else 0.0,
                "avg_views": round(sum(views) / len(views), 2) if views else 0.0,
                "p90_views": _percentile(views, 0.9) if views else 0.0,
                "avg_likes": round(sum(f.likes for f in videos) / len(videos), 2) if videos else 0.0,
                "median_engagement_rate": round(float(statistics.median(rates)), 6) if rates else 0.0,
            }
        )
    return {"computed_at": now.isoformat().replace("+00:00", "Z"), "video_count": len(facts), "tiers": tiers}
