"""The sandbox world behind the connector protocol, with failure injection (ARCHITECTURE §7).

``REELSCOPE_SANDBOX_FAILURES=tiktok:0.2,news:0.5`` makes that fraction of calls for a source raise
``UpstreamError(retryable=True)``. Whether a call fails is a hash of the seed, the source, the
operation, its arguments and how many calls this connector has answered, so a run replays exactly
while a retry (a later call) can succeed. Bulk generation runs in a worker thread, off the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import Executor
from datetime import datetime

from reelscope.collectors.base import (
    ALL_PLATFORMS,
    PLATFORMLESS,
    AdRecord,
    Capability,
    CommentRecord,
    CreatorRecord,
    HashtagSort,
    NewsItem,
    NotFound,
    SlideshowRecord,
    SoundRecord,
    UpstreamError,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.world import World
from reelscope.kit.clock import Clock
from reelscope.kit.platforms import Platform

ADS_SOURCE, NEWS_SOURCE = "meta_ads", "news"


def parse_failures(spec: str) -> dict[str, float]:
    """``"tiktok:0.2,news:0.5"`` → ``{"tiktok": 0.2, "news": 0.5}``; raises ValueError when malformed."""
    rates: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        source, _, rate = part.partition(":")
        value = float(rate)
        if not source or not 0.0 <= value <= 1.0:
            raise ValueError(
                f"bad REELSCOPE_SANDBOX_FAILURES entry {part!r}; use source:rate with rate in [0, 1]"
            )
        rates[source.strip().lower()] = value
    return rates


def _feed_in_worker(
    seed: int, platform: Platform, since: datetime, until: datetime, at: datetime, region: str | None
) -> list[VideoRecord]:
    return World(seed).videos_between(platform, since, until, at, region)


class SandboxConnector:
    """``bulk_executor`` (a process pool) takes discovery-feed generation off this process entirely,
    so a backfill generates the next window on another core while this one writes (ADR 0007)."""

    name = "sandbox"
    platforms = frozenset(Platform)
    # the whole world, every operation: its feed is every video posted (WORLD_FEED), by region too
    capabilities = {c: frozenset() if c in PLATFORMLESS else ALL_PLATFORMS for c in Capability}

    def __init__(
        self,
        clock: Clock,
        *,
        seed: int,
        failures: dict[str, float] | None = None,
        bulk_executor: Executor | None = None,
    ) -> None:
        self.clock = clock
        self.world = World(seed)
        self.seed = seed
        self.failures = failures or {}
        self.calls = 0
        self.bulk_executor = bulk_executor

    def _enter(self, source: str, operation: str, *args: object) -> datetime:
        """Count the call, maybe fail it, and return the moment it is answered at."""
        self.calls += 1
        rate = self.failures.get(source, 0.0)
        if rate > 0 and hs.scalar_u(self.seed, hs.label(f"{source}|{operation}|{args!r}"), self.calls) < rate:
            raise UpstreamError(f"sandbox {source} {operation} failed (injected)", retryable=True)
        return self.clock.now()

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        at = self._enter(platform.value, "search_videos", keyword, since, until)
        return await asyncio.to_thread(self.world.search_videos, platform, keyword, since, until, at, limit)

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        at = self._enter(platform.value, "video", external_id)
        found = self.world.video(platform, external_id, at)
        if found is None:
            raise NotFound(f"no {platform.value} video {external_id}")
        return found

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        at = self._enter(platform.value, "video_stats", external_id)
        found = self.world.video_stats(platform, external_id, at)
        if found is None:
            raise NotFound(f"no {platform.value} video {external_id}")
        return found

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        at = self._enter(platform.value, "videos_stats", len(external_ids), external_ids[:1])
        return await asyncio.to_thread(self.world.videos_stats, platform, external_ids, at)

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        at = self._enter(platform.value, "creator", handle)
        found = self.world.creator(platform, handle, at)
        if found is None:
            raise NotFound(f"no {platform.value} creator {handle}")
        return found

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        at = self._enter(platform.value, "creator_posts", handle, limit)
        found = await asyncio.to_thread(self.world.creator_posts, platform, handle, at, limit)
        if found is None:
            raise NotFound(f"no {platform.value} creator {handle}")
        return found

    async def sound(self, platform: Platform, external_id: str) -> SoundRecord:
        at = self._enter(platform.value, "sound", external_id)
        found = self.world.sound(platform, external_id, at)
        if found is None:
            raise NotFound(f"no {platform.value} sound {external_id}")
        return found

    async def sound_videos(
        self, platform: Platform, external_id: str, *, limit: int = 50
    ) -> list[VideoRecord]:
        at = self._enter(platform.value, "sound_videos", external_id, limit)
        found = await asyncio.to_thread(self.world.sound_videos, platform, external_id, at, limit)
        if found is None:
            raise NotFound(f"no {platform.value} sound {external_id}")
        return found

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        at = self._enter(platform.value, "hashtag_videos", tag, sort, limit)
        return await asyncio.to_thread(self.world.hashtag_videos, platform, tag, at, sort, limit)

    async def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 50
    ) -> list[SlideshowRecord]:
        at = self._enter(platform.value, "slideshows", keyword, since, until, limit)
        return await asyncio.to_thread(self.world.slideshows, platform, keyword, since, until, at, limit)

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        at = self._enter(ADS_SOURCE, "ads", keyword, limit)
        return self.world.ads(keyword, at, limit)

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        at = self._enter(platform.value, "comments", video_external_id, limit)
        found = self.world.comments(platform, video_external_id, at, limit)
        if found is None:
            raise NotFound(f"no {platform.value} video {video_external_id}")
        return found

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        at = self._enter(NEWS_SOURCE, "news", tuple(keywords), since, until)
        return self.world.news(keywords, since, until, at)

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        at = self._enter(platform.value, "discovery_feed", region, since, until)
        if self.bulk_executor is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self.bulk_executor, _feed_in_worker, self.seed, platform, since, until, at, region
            )
        return await asyncio.to_thread(self.world.videos_between, platform, since, until, at, region)
