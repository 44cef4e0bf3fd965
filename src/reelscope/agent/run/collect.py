"""Collection of one run (spec §3, §4.4): every (keyword, platform) target through the connectors, at most
``CONCURRENCY`` calls at a time, then the run's filters.

Targets are videos per (keyword, platform), slideshows per (keyword, platform with carousels) and, with
``meta_ads_enabled``, ads per keyword. A target that fails after one retry is recorded as failed and the
run goes on: some failing makes the run ``partial_failure``, all failing makes it ``failed``. Nothing
here touches the database; the run stores what this returns in one transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from reelscope.analysis import outliers
from reelscope.collectors.base import (
    AdRecord,
    Capability,
    ConnectorError,
    SlideshowRecord,
    UpstreamError,
    VideoRecord,
)
from reelscope.collectors.routing import Sources
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

# connector calls in flight at once for one run (the sandbox answers each in a worker thread)
CONCURRENCY = 8
VIDEOS_PER_TARGET = 100
SLIDESHOWS_PER_TARGET = 50
ADS_PER_KEYWORD = 50
# creators whose recent posts are read to know their norm, the best-performing first (§4.4 outliers)
OUTLIER_CREATORS = 20
CREATOR_POSTS = 30
# carousels exist on TikTok (photo mode) and Instagram; YouTube Shorts has none
CAROUSEL_PLATFORMS = frozenset({Platform.TIKTOK, Platform.INSTAGRAM})
ADS_SOURCE = "meta_ads"

T = TypeVar("T")


@dataclass(frozen=True)
class Target:
    keyword: str
    source: str  # a platform, or "meta_ads"
    kind: str  # videos | slideshows | ads


@dataclass
class TargetResult:
    target: Target
    ok: bool
    records: list[Any] = field(default_factory=list)
    error: str | None = None
    # no enabled source offers this kind of target (carousels, ads): neither collected nor a failure
    skipped: bool = False

    def summary(self) -> dict[str, Any]:
        return {
            "keyword": self.target.keyword,
            "source": self.target.source,
            "kind": self.target.kind,
            "status": "skipped" if self.skipped else "completed" if self.ok else "failed",
            "found": len(self.records),
            "error": self.error,
        }


@dataclass(frozen=True)
class Settings:
    """What a run needs of its agent, read once before collection."""

    keywords: tuple[str, ...]
    exclude_keywords: tuple[str, ...]
    platforms: tuple[Platform, ...]
    meta_ads_enabled: bool
    language: str | None
    # how far back the searches look (§4.4 time_range)
    window: timedelta = timedelta(days=30)


def targets(settings: Settings) -> list[Target]:
    found = [Target(k, p.value, "videos") for k in settings.keywords for p in settings.platforms]
    found += [
        Target(k, p.value, "slideshows")
        for k in settings.keywords
        for p in settings.platforms
        if p in CAROUSEL_PLATFORMS
    ]
    if settings.meta_ads_enabled:
        found += [Target(k, ADS_SOURCE, "ads") for k in settings.keywords]
    return found


async def _bounded(limit: asyncio.Semaphore, call: Callable[[], Awaitable[T]]) -> T:
    async with limit:
        return await call()


async def _with_retry(call: Callable[[], Awaitable[list[Any]]]) -> list[Any]:
    """One more try for a retryable upstream error (an injected or transient failure)."""
    try:
        return await call()
    except UpstreamError as exc:
        if not exc.retryable:
            raise
        return await call()


CAPABILITY = {"videos": Capability.SEARCH, "slideshows": Capability.SLIDESHOWS, "ads": Capability.ADS}


async def collect_targets(
    sources: Sources, settings: Settings, since: datetime, until: datetime
) -> list[TargetResult]:
    """Every target at once, bounded; the results in target order. A video target no enabled source can
    search fails (the run says which platform it could not read, §4.4 partial_failure); carousels and
    ads that no source offers are skipped. A source that is spent or unavailable fails its targets with
    what it said (collectors/routing.py), once the other sources offering the same were tried."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(target: Target) -> TargetResult:
        platform = None if target.kind == "ads" else Platform(target.source)
        capability = CAPABILITY[target.kind]
        if not sources.offers(capability, platform):
            reason = f"no enabled source offers {capability.value} for {target.source} (REELSCOPE_CONNECTORS)"
            return TargetResult(target, ok=False, error=reason, skipped=target.kind != "videos")

        def call() -> Awaitable[list[Any]]:
            if platform is None:
                return sources.ads(target.keyword, limit=ADS_PER_KEYWORD)
            if target.kind == "slideshows":
                return sources.slideshows(platform, target.keyword, since, until, limit=SLIDESHOWS_PER_TARGET)
            return sources.search_videos(platform, target.keyword, since, until, limit=VIDEOS_PER_TARGET)

        try:
            records = await _bounded(limit, lambda: _with_retry(call))
        except ConnectorError as exc:
            log.warning(
                "agent.run.target_failed", keyword=target.keyword, source=target.source, error=str(exc)
            )
            return TargetResult(target, ok=False, error=str(exc))
        return TargetResult(target, ok=True, records=records)

    return list(await asyncio.gather(*(one(t) for t in targets(settings))))


# --- filters (§4.4: exclude_keywords and language) --------------------------------------------------


def _video_text(record: VideoRecord | SlideshowRecord) -> str:
    parts = [record.description or "", *record.hashtags]
    if isinstance(record, VideoRecord):
        parts.append(record.transcript or "")
    else:
        parts.extend(record.panels)
    return " ".join(parts).lower()


def excluded(text: str, exclude_keywords: Sequence[str]) -> bool:
    return any(term.lower() in text for term in exclude_keywords)


def other_language(language: str | None, wanted: str | None) -> bool:
    """Filtered out when both are known and differ; a record of unknown language is kept."""
    return wanted is not None and language is not None and language.lower() != wanted


@dataclass
class Filtered:
    videos: list[tuple[VideoRecord, str]] = field(default_factory=list)  # (record, keyword that found it)
    slideshows: list[tuple[SlideshowRecord, str]] = field(default_factory=list)
    ads: list[tuple[AdRecord, str]] = field(default_factory=list)
    language_filtered: int = 0
    exclude_keywords_filtered: int = 0
    # per-platform counts before the filters (§6.3 metrics.platforms)
    platforms: dict[str, int] = field(default_factory=dict)


def apply_filters(results: Sequence[TargetResult], settings: Settings) -> Filtered:
    """Deduplicated (the first target that found an item keeps it), then filtered."""
    out = Filtered(platforms={p.value: 0 for p in settings.platforms})
    seen: set[tuple[str, str, str]] = set()
    for result in results:
        for record in result.records:
            if isinstance(record, AdRecord):
                key = ("ad", "", record.external_id)
                text = " ".join(record.bodies).lower()
                languages = [code.lower() for code in record.languages]
                wrong_language = bool(settings.language and languages and settings.language not in languages)
            else:
                key = (result.target.kind, record.platform.value, record.external_id)
                text = _video_text(record)
                wrong_language = other_language(record.language, settings.language)
            if key in seen:
                continue
            seen.add(key)
            if isinstance(record, VideoRecord):
                out.platforms[record.platform.value] = out.platforms.get(record.platform.value, 0) + 1
            if excluded(text, settings.exclude_keywords):
                out.exclude_keywords_filtered += 1
            elif wrong_language:
                out.language_filtered += 1
            elif isinstance(record, VideoRecord):
                out.videos.append((record, result.target.keyword))
            elif isinstance(record, SlideshowRecord):
                out.slideshows.append((record, result.target.keyword))
            else:
                out.ads.append((record, result.target.keyword))
    return out


# --- creator norms (§4.4 creators/outliers) ---------------------------------------------------------


def outlier_candidates(videos: Sequence[VideoRecord]) -> list[tuple[Platform, str]]:
    """The creators whose norm is worth reading: those of the most-viewed videos, each once."""
    best: dict[tuple[Platform, str], int] = {}
    for video in videos:
        if video.creator is None:
            continue
        key = (video.platform, video.creator.handle)
        best[key] = max(best.get(key, 0), video.views)
    return sorted(best, key=lambda key: (-best[key], key[0].value, key[1]))[:OUTLIER_CREATORS]


async def creator_posts(
    sources: Sources, creators: Sequence[tuple[Platform, str]]
) -> dict[tuple[Platform, str], list[VideoRecord]]:
    """Each creator's recent posts; a creator whose posts cannot be read is left out."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(platform: Platform, handle: str) -> tuple[tuple[Platform, str], list[VideoRecord] | None]:
        if not sources.offers(Capability.CREATOR_POSTS, platform):
            return (platform, handle), None
        try:
            posts = await _bounded(
                limit, lambda: sources.creator_posts(platform, handle, limit=CREATOR_POSTS)
            )
        except ConnectorError:
            return (platform, handle), None
        return (platform, handle), posts

    answers = await asyncio.gather(*(one(p, h) for p, h in creators))
    return {key: posts for key, posts in answers if posts}


@dataclass(frozen=True)
class CreatorOutlier:
    platform: Platform
    handle: str
    followers: int | None
    video_count: int
    avg_views: float
    best: outliers.Outlier


def creator_outliers(
    videos: Sequence[VideoRecord], posts: dict[tuple[Platform, str], list[VideoRecord]]
) -> list[CreatorOutlier]:
    """For each creator with known posts: the median of their videos (posts and the run's own), and their
    best video of this run scored against it; kept when it reaches ``outliers.OUTLIER_AT``."""
    found: list[CreatorOutlier] = []
    for (platform, handle), recent in posts.items():
        mine = [v for v in videos if v.platform == platform and v.creator and v.creator.handle == handle]
        if not mine:
            continue
        every = {v.external_id: v for v in [*recent, *mine]}
        views = [v.views for v in every.values()]
        median = outliers.median_views(views)
        if median is None:
            continue
        scored = [s for v in mine if (s := outliers.score(v.external_id, v.views, median)) is not None]
        if not scored:
            continue
        best = max(scored, key=lambda s: (s.outlier_ratio, s.video_id))
        if best.outlier_ratio < outliers.OUTLIER_AT:
            continue
        creator = mine[0].creator
        found.append(
            CreatorOutlier(
                platform=platform,
                handle=handle,
                followers=creator.followers if creator else None,
                video_count=len(every),
                avg_views=sum(views) / len(views),
                best=best,
            )
        )
    return found
