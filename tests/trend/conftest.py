"""Trend fixtures: default regions, and day groups built from hand-made detections."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest

from reelscope.analysis.trends import DetectedTrend, Post, Promotion, detect
from reelscope.runtime import Runtime
from reelscope.trend import service as trend_service

_ids = itertools.count()


def wave(tag: str, count: int, now: datetime, *, views: int = 50_000, platform: str = "tiktok") -> list[Post]:
    return [
        Post(
            video_id=f"{tag}-{next(_ids)}",
            platform=platform,
            posted_at=now - timedelta(hours=20 * (i + 1) / (count + 1)),
            views=views + i * 1000,
            hashtags=(tag.lower(),),
            hashtag_labels=(tag,),
            caption=f"doing the {tag.lower()} thing",
        )
        for i in range(count)
    ]


def steady(now: datetime, days: int = 8, per_day: int = 30) -> list[Post]:
    """A week of everyday videos before and during the run: the baseline a burst is measured against
    (ADR 0051: a region with no history has no rate to compare with)."""
    return [
        Post(
            video_id=f"steady-{next(_ids)}",
            platform="tiktok",
            posted_at=now - timedelta(hours=(i + 0.5) * 24 / per_day),
            views=1_000,
            hashtags=("daily",),
            hashtag_labels=("daily",),
            caption="my daily routine",
        )
        for i in range(days * per_day)
    ]


def detected(now: datetime, *waves: tuple[str, int]) -> list[DetectedTrend]:
    posts = [p for tag, count in waves for p in wave(tag, count, now)]
    return detect([*steady(now), *posts], now)


def snapshots(trends: Sequence[DetectedTrend], now: datetime) -> dict[str, dict[str, Any]]:
    snaps: dict[str, dict[str, Any]] = {}
    for trend in trends:
        for rank, video_id in enumerate(trend.exemplar_ids):
            snaps[video_id] = {
                "video_id": video_id,
                "url": f"https://www.tiktok.com/@someone/video/{rank}",
                "platform": "tiktok",
                "views": 100_000 - rank * 1000,
                "likes": 5000,
                "thumbnail_url": None,
                "publish_date": (now - timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M:%S"),
                "author": {"username": "someone", "avatar_url": None, "verified": False},
            }
    return snaps


RunTrends = Callable[..., Awaitable[None]]


@pytest.fixture
async def regions(runtime: Runtime) -> None:
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)


@pytest.fixture
def run_trends(runtime: Runtime, regions: None) -> RunTrends:
    """Merge a run of ``region`` at ``at`` detecting the given (tag, count) waves."""

    async def run(
        region: str, at: datetime, *waves: tuple[str, int], promotions: Sequence[Promotion] = ()
    ) -> None:
        found = detected(at, *waves)
        async with runtime.db.transaction() as session:
            region_row = await trend_service.region_or_400(session, region)
            await trend_service.merge_run(
                session,
                region_row,
                at,
                found,
                snapshots([*found, *(p.trend for p in promotions)], at),
                promotions,
            )

    return run
