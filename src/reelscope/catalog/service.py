"""Catalog rules: idempotent ingest of normalized records, and continuous collection (ARCHITECTURE §7).

Ingest upserts by the source's identity, so feeding the same records twice leaves the same rows:
counters move only forward in observation time, ``found_at`` is the first sighting and never moves,
and each observation appends at most one view snapshot. ``collect``, ``refresh_recent_stats`` and
``backfill`` are the bodies the job engine's periodic tasks call; each opens its own transactions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import repository as repo
from reelscope.collectors.base import (
    AdRecord,
    CommentRecord,
    Connector,
    ConnectorError,
    CreatorRecord,
    RateLimited,
    SlideshowRecord,
    SoundRecord,
    VideoRecord,
)
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

BATCH = 5_000
views_frozen_after = timedelta(days=7)  # §2.3
# stats keep being refreshed a day past the freeze, so every video gets one observation after it
refresh_window = views_frozen_after + timedelta(days=1)
backfill_chunk = timedelta(days=1)
backfill_days = 14  # what an empty catalog is filled with on first start
STATS_BATCH = 1_000

Record = VideoRecord | CreatorRecord | SoundRecord | SlideshowRecord | AdRecord | CommentRecord


@dataclass
class IngestResult:
    videos: int = 0
    creators: int = 0
    sounds: int = 0
    slideshows: int = 0
    ads: int = 0
    comments: int = 0

    def add(self, other: IngestResult) -> None:
        for name in ("videos", "creators", "sounds", "slideshows", "ads", "comments"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def hashtag_key(tag: str) -> str:
    """Hashtags match case-insensitively and without ``#`` (§4.2)."""
    return tag.strip().lstrip("#").strip().lower()


def handle_key(handle: str) -> str:
    return handle.strip().lstrip("@").lower()


def _creator_row(c: CreatorRecord, at: datetime) -> dict[str, Any]:
    return {
        "id": new_id(),
        "platform": c.platform.value,
        "handle": c.handle.lstrip("@"),
        "handle_key": handle_key(c.handle),
        "display_name": c.display_name,
        "platform_user_id": c.platform_user_id,
        "followers": c.followers,
        "following": c.following,
        "total_likes": c.total_likes,
        "total_views": c.total_views,
        "video_count": c.video_count,
        "verified": c.verified,
        "avatar_url": c.avatar_url,
        "bio": c.bio,
        "country": c.country,
        "first_seen_at": at,
        "updated_at": c.fetched_at or at,
    }


def _sound_row(s: SoundRecord, at: datetime) -> dict[str, Any]:
    return {
        "id": new_id(),
        "platform": s.platform.value,
        "external_id": s.external_id,
        "title": s.title,
        "duration": s.duration,
        "cover_url": s.cover_url,
        "is_original": s.is_original,
        "usage_count": s.usage_count,
        "owner_handle": s.owner_handle,
        "owner_nickname": s.owner_nickname,
        "is_commerce_music": s.is_commerce_music,
        "first_seen_at": at,
        "updated_at": s.fetched_at or at,
    }


async def _creators_and_sounds(
    session: AsyncSession,
    creators: Sequence[CreatorRecord | None],
    sounds: Sequence[SoundRecord | None],
    at: datetime,
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    latest_creators: dict[tuple[str, str], CreatorRecord] = {}
    for c in creators:
        if c is not None:
            latest_creators[(c.platform.value, handle_key(c.handle))] = c
    latest_sounds: dict[tuple[str, str], SoundRecord] = {}
    for s in sounds:
        if s is not None:
            latest_sounds[(s.platform.value, s.external_id)] = s
    creator_rows = {key: _creator_row(c, at) for key, c in latest_creators.items()}
    sound_rows = {key: _sound_row(s, at) for key, s in latest_sounds.items()}
    creator_ids = await repo.upsert_creators(session, list(creator_rows.values()))
    sound_ids = await repo.upsert_sounds(session, list(sound_rows.values()))
    return creator_ids, sound_ids


def _creator_id(ids: dict[tuple[str, str], str], c: CreatorRecord | None) -> str | None:
    return None if c is None else ids.get((c.platform.value, handle_key(c.handle)))


def _sound_id(ids: dict[tuple[str, str], str], s: SoundRecord | None) -> str | None:
    return None if s is None else ids.get((s.platform.value, s.external_id))


async def ingest_videos(
    session: AsyncSession, records: Sequence[VideoRecord], *, found_at: datetime | None = None
) -> int:
    """Upsert videos with their creators, sounds, hashtags and one view snapshot per observation.

    ``found_at`` is when the service first saw these videos (default: each record's ``fetched_at``);
    it is stored only for videos new to the catalog.
    """
    total = 0
    for start in range(0, len(records), BATCH):
        latest: dict[tuple[str, str], VideoRecord] = {}
        for r in records[start : start + BATCH]:
            key = (r.platform.value, r.external_id)
            if key not in latest or latest[key].fetched_at <= r.fetched_at:
                latest[key] = r
        batch = list(latest.values())
        at = max(r.fetched_at for r in batch)
        creator_ids, sound_ids = await _creators_and_sounds(
            session, [r.creator for r in batch], [r.sound for r in batch], at
        )
        rows = []
        for r in batch:
            frozen = r.fetched_at - r.published_at >= views_frozen_after
            rows.append(
                {
                    "id": new_id(),
                    "platform": r.platform.value,
                    "external_id": r.external_id,
                    "url": r.url,
                    "description": r.description,
                    "published_at": r.published_at,
                    "found_at": max(found_at or r.fetched_at, r.published_at),
                    "fetched_at": r.fetched_at,
                    "views": r.views,
                    "likes": r.likes,
                    "comments": r.comments,
                    "shares": r.shares,
                    "bookmarks": r.bookmarks,
                    "views_at_7d": r.views if frozen else None,
                    "hashtags": list(r.hashtags),
                    "thumbnail_url": r.thumbnail_url,
                    "duration": r.duration,
                    "transcript": r.transcript,
                    "sound_id": _sound_id(sound_ids, r.sound),
                    "sound_external_id": r.sound.external_id if r.sound else r.sound_external_id,
                    "upload_region": r.upload_region,
                    "upload_region_source": r.upload_region_source,
                    "is_duet": r.is_duet,
                    "is_stitch": r.is_stitch,
                    "is_eligible_for_commission": r.is_eligible_for_commission,
                    "creator_id": _creator_id(creator_ids, r.creator),
                    "region": r.region,
                    "language": r.language,
                }
            )
        video_ids = await repo.upsert_videos(session, rows)
        displays: dict[str, str] = {}
        links: dict[tuple[str, str], None] = {}
        snapshots = []
        for r in batch:
            vid = video_ids[(r.platform.value, r.external_id)]
            for tag in r.hashtags:
                tag_key = hashtag_key(tag)
                if tag_key:
                    displays.setdefault(tag_key, tag.strip().lstrip("#"))
                    links[(vid, tag_key)] = None
            snapshots.append(
                {
                    "video_id": vid,
                    "at": r.fetched_at,
                    "views": r.views,
                    "likes": r.likes,
                    "comments": r.comments,
                    "shares": r.shares,
                    "bookmarks": r.bookmarks,
                }
            )
        tag_ids = await repo.ensure_hashtags(session, displays)
        await repo.link_hashtags(session, [{"video_id": v, "hashtag_id": tag_ids[k]} for v, k in links])
        await repo.add_snapshots(session, snapshots)
        total += len(batch)
    return total


async def ingest_creators(session: AsyncSession, records: Sequence[CreatorRecord], at: datetime) -> int:
    ids, _ = await _creators_and_sounds(session, records, [], at)
    return len(ids)


async def ingest_sounds(session: AsyncSession, records: Sequence[SoundRecord], at: datetime) -> int:
    """Upsert sounds and store their usage history points."""
    _, ids = await _creators_and_sounds(session, [], records, at)
    usage = [
        {"sound_id": ids[(s.platform.value, s.external_id)], "at": p.at, "usage_count": p.usage_count}
        for s in records
        for p in s.usage
    ]
    await repo.add_sound_usage(session, usage)
    return len(ids)


async def ingest_slideshows(session: AsyncSession, records: Sequence[SlideshowRecord], at: datetime) -> int:
    latest = {(r.platform.value, r.external_id): r for r in records}
    creator_ids, sound_ids = await _creators_and_sounds(
        session, [r.creator for r in latest.values()], [r.sound for r in latest.values()], at
    )
    rows = [
        {
            "id": new_id(),
            "platform": r.platform.value,
            "external_id": r.external_id,
            "url": r.url,
            "description": r.description,
            "panels": list(r.panels),
            "image_count": r.image_count,
            "published_at": r.published_at,
            "found_at": max(r.fetched_at, r.published_at),
            "fetched_at": r.fetched_at,
            "views": r.views,
            "likes": r.likes,
            "comments": r.comments,
            "shares": r.shares,
            "bookmarks": r.bookmarks,
            "hashtags": list(r.hashtags),
            "thumbnail_url": r.thumbnail_url,
            "sound_id": _sound_id(sound_ids, r.sound),
            "creator_id": _creator_id(creator_ids, r.creator),
            "language": r.language,
        }
        for r in latest.values()
    ]
    await repo.upsert_slideshows(session, rows)
    return len(rows)


async def ingest_ads(session: AsyncSession, records: Sequence[AdRecord]) -> int:
    rows = {
        r.external_id: {
            "id": new_id(),
            "external_id": r.external_id,
            "page_id": r.page_id,
            "page_name": r.page_name,
            "bodies": list(r.bodies),
            "start_date": r.start_date,
            "stop_date": r.stop_date,
            "publisher_platforms": list(r.publisher_platforms),
            "snapshot_url": r.snapshot_url,
            "page_likes": r.page_likes,
            "keyword": r.keyword,
            "languages": list(r.languages),
            "first_seen_at": r.fetched_at,
            "fetched_at": r.fetched_at,
        }
        for r in records
    }
    await repo.upsert_ads(session, list(rows.values()))
    return len(rows)


async def ingest_comments(session: AsyncSession, records: Sequence[CommentRecord]) -> int:
    """Upsert comments, linked to their video when the catalog has it."""
    video_ids = await repo.video_ids(session, [(r.platform.value, r.video_external_id) for r in records])
    rows = {
        (r.platform.value, r.external_id): {
            "id": new_id(),
            "platform": r.platform.value,
            "external_id": r.external_id,
            "video_external_id": r.video_external_id,
            "video_id": video_ids.get((r.platform.value, r.video_external_id)),
            "author_handle": r.author_handle,
            "text": r.text,
            "language": r.language,
            "country": r.country,
            "likes": r.likes,
            "author_age_bracket": r.author_age_bracket,
            "author_gender": r.author_gender,
            "posted_at": r.posted_at,
            "fetched_at": r.fetched_at,
        }
        for r in records
    }
    await repo.upsert_comments(session, list(rows.values()))
    return len(rows)


async def ingest(session: AsyncSession, records: Sequence[Record], at: datetime) -> IngestResult:
    """Any mix of records, each kind through its own upsert."""
    result = IngestResult()
    result.videos = await ingest_videos(session, [r for r in records if isinstance(r, VideoRecord)])
    result.creators = await ingest_creators(session, [r for r in records if isinstance(r, CreatorRecord)], at)
    result.sounds = await ingest_sounds(session, [r for r in records if isinstance(r, SoundRecord)], at)
    result.slideshows = await ingest_slideshows(
        session, [r for r in records if isinstance(r, SlideshowRecord)], at
    )
    result.ads = await ingest_ads(session, [r for r in records if isinstance(r, AdRecord)])
    result.comments = await ingest_comments(session, [r for r in records if isinstance(r, CommentRecord)])
    return result


async def is_empty(session: AsyncSession) -> bool:
    return await repo.is_empty(session)


async def row_counts(session: AsyncSession) -> dict[str, int]:
    return await repo.count_rows(session)


# --- continuous collection (bodies of the job engine's periodic tasks) ------------------------------


@dataclass
class CollectResult:
    videos: dict[str, int] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)


async def _feed(
    connector: Connector, platform: Platform, since: datetime, until: datetime, result: CollectResult
) -> list[VideoRecord]:
    """One discovery feed pull; a failing source is logged and recorded, and yields nothing."""
    source = f"{connector.name}:{platform.value}"
    try:
        return await connector.discovery_feed(platform, None, since, until)
    except ConnectorError as exc:
        log.warning("catalog.collect.failed", source=source, error=type(exc).__name__, detail=str(exc))
        result.failures[source] = type(exc).__name__
        return []


async def _store_feed(
    db: Database, source: str, records: list[VideoRecord], found_at: datetime | None, result: CollectResult
) -> None:
    if not records:
        return
    async with db.transaction() as session:
        count = await ingest_videos(session, records, found_at=found_at)
    result.videos[source] = result.videos.get(source, 0) + count


async def collect(
    db: Database, connectors: Sequence[Connector], clock: Clock, since: datetime, until: datetime
) -> CollectResult:
    """Pull every enabled connector's worldwide discovery feed for [since, until) into the catalog.

    One transaction per (connector, platform); a failing source is logged and skipped while the others
    still land (partial failure). Videos new to the catalog are found now (``clock``).
    """
    result = CollectResult()
    found_at = clock.now()
    for connector in connectors:
        for platform in sorted(connector.platforms):
            records = await _feed(connector, platform, since, until, result)
            await _store_feed(db, f"{connector.name}:{platform.value}", records, found_at, result)
    log.info("catalog.collect.done", videos=sum(result.videos.values()), failures=len(result.failures))
    return result


@dataclass
class RefreshResult:
    refreshed: int = 0
    missing: int = 0
    failed: int = 0


async def refresh_recent_stats(
    db: Database, connectors: Sequence[Connector], clock: Clock, *, max_age: timedelta = refresh_window
) -> RefreshResult:
    """Re-read the counters of every video posted within ``max_age`` and append a snapshot each."""
    now = clock.now()
    async with db.transaction(write=False) as session:
        videos = await repo.videos_published_since(session, now - max_age)
    by_platform: dict[str, Connector] = {}
    for connector in connectors:
        for platform in connector.platforms:
            by_platform.setdefault(platform.value, connector)
    wanted: dict[str, dict[str, tuple[str, datetime]]] = {}
    for video_id, platform_name, external_id, published_at in videos:
        if platform_name in by_platform:
            wanted.setdefault(platform_name, {})[external_id] = (video_id, published_at)
    result = RefreshResult()
    for platform_name, by_external in wanted.items():
        source = by_platform[platform_name]
        ids = list(by_external)
        for start in range(0, len(ids), STATS_BATCH):
            chunk = ids[start : start + STATS_BATCH]
            try:
                answered = await source.videos_stats(Platform(platform_name), chunk)
            except RateLimited as exc:
                log.warning(
                    "catalog.refresh.rate_limited", platform=platform_name, retry_at=exc.retry_at.isoformat()
                )
                break
            except ConnectorError as exc:
                log.warning("catalog.refresh.failed", platform=platform_name, error=type(exc).__name__)
                result.failed += len(chunk)
                continue
            result.missing += len(chunk) - len(answered)
            rows = []
            for stats in answered:
                video_id, published_at = by_external[stats.external_id]
                frozen = stats.fetched_at - published_at >= views_frozen_after
                rows.append(
                    {
                        "id": video_id,
                        "fetched_at": stats.fetched_at,
                        "views": stats.views,
                        "likes": stats.likes,
                        "comments": stats.comments,
                        "shares": stats.shares,
                        "bookmarks": stats.bookmarks,
                        "views_at_7d": stats.views if frozen else None,
                    }
                )
            await _store_stats(db, rows)
            result.refreshed += len(rows)
    log.info("catalog.refresh.done", refreshed=result.refreshed, missing=result.missing, failed=result.failed)
    return result


async def _store_stats(db: Database, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    async with db.transaction() as session:
        await repo.update_video_stats(session, rows)
        await repo.add_snapshots(
            session,
            [
                {k: r[k] for k in ("views", "likes", "comments", "shares", "bookmarks")}
                | {"video_id": r["id"], "at": r["fetched_at"]}
                for r in rows
            ],
        )


async def backfill(db: Database, connectors: Sequence[Connector], clock: Clock, *, days: int = 14) -> int:
    """Fill the catalog with the last ``days`` of every feed, as if collection had been running: each
    video counts as found at the end of the one-day window that covers its posting time (§2.3).

    The next window is fetched while the current one is written, so generation and storage overlap.
    """
    now = clock.now()
    jobs: list[tuple[Connector, Platform, datetime, datetime]] = []
    start = now - timedelta(days=days)
    while start < now:
        end = min(start + backfill_chunk, now)
        jobs.extend((c, p, start, end) for c in connectors for p in sorted(c.platforms))
        start = end
    result = CollectResult()
    if not jobs:
        return 0
    pending = asyncio.create_task(_feed(jobs[0][0], jobs[0][1], jobs[0][2], jobs[0][3], result))
    for i, (connector, platform, _since, until) in enumerate(jobs):
        records = await pending
        if i + 1 < len(jobs):
            nxt = jobs[i + 1]
            pending = asyncio.create_task(_feed(nxt[0], nxt[1], nxt[2], nxt[3], result))
        await _store_feed(db, f"{connector.name}:{platform.value}", records, until, result)
    total = sum(result.videos.values())
    log.info("catalog.backfill.done", days=days, videos=total, failures=len(result.failures))
    return total
