"""Continuous collection: the bodies of the job engine's periodic catalog tasks (ARCHITECTURE §5, §7).

``collect`` pulls every enabled connector's discovery feed (every few minutes), ``refresh_recent_stats``
re-reads the counters of videos younger than a week and a day, and ``backfill`` fills an empty catalog
on first start. Each opens its own transactions (one unit of work per source and batch), so a failing
source costs only its own share.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from reelscope.catalog import repository as repo
from reelscope.catalog.service import ingest_videos, views_frozen_after
from reelscope.collectors.base import Connector, ConnectorError, RateLimited, VideoRecord
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

# stats keep being refreshed a day past the freeze, so every video gets one observation after it
refresh_window = views_frozen_after + timedelta(days=1)
backfill_chunk = timedelta(days=1)
backfill_days = 14  # what an empty catalog is filled with on first start
STATS_BATCH = 1_000
# videos ingested per transaction: under 0.5 s of the write lock on the busy 2-core dev box (500 took
# up to 1.6 s there)
STORE_BATCH = 200


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
    """A feed's records, ``STORE_BATCH`` a transaction: SQLite's one write lock is never held for long
    (a paid request's debit or a user job's claim waits for it, ADR 0042)."""
    for start in range(0, len(records), STORE_BATCH):
        async with db.transaction() as session:
            count = await ingest_videos(session, records[start : start + STORE_BATCH], found_at=found_at)
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
            earliest = now
            for stats in answered:
                video_id, published_at = by_external[stats.external_id]
                earliest = min(earliest, published_at)
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
            await _store_stats(db, rows, earliest, now)
            result.refreshed += len(rows)
    log.info("catalog.refresh.done", refreshed=result.refreshed, missing=result.missing, failed=result.failed)
    return result


async def _store_stats(db: Database, rows: list[dict[str, Any]], earliest: datetime, now: datetime) -> None:
    """New counters of videos posted from ``earliest`` on, with a snapshot each."""
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
        await repo.note_videos_changed(session, earliest, now)  # the rollup rebuilds those days (ADR 0016)


async def backfill(
    db: Database,
    connectors: Sequence[Connector],
    clock: Clock,
    *,
    days: int = 14,
    until: datetime | None = None,
    resume_at: datetime | None = None,
    on_chunk: Callable[[int, int], None] | None = None,
    after_window: Callable[[datetime], Awaitable[None]] | None = None,
) -> int:
    """Fill the catalog with the ``days`` of every feed before ``until`` (default: now), as if collection
    had been running: each video counts as found at the end of the one-day window that covers its
    posting time (§2.3). ``on_chunk(done, total)`` follows the progress, one call per feed window.

    Windows go oldest first. ``after_window(end)`` runs once every feed of the window ending at ``end``
    is stored (a job records its progress there); ``resume_at`` (such an end) skips the windows before
    it. The next window is fetched while the current one is written, so generation and storage overlap.
    """
    now = until or clock.now()
    jobs: list[tuple[Connector, Platform, datetime, datetime]] = []
    start = now - timedelta(days=days)
    if resume_at is not None:
        # the windows keep their edges: resume at the first one that starts at or after ``resume_at``
        while start < resume_at:
            start += backfill_chunk
    while start < now:
        end = min(start + backfill_chunk, now)
        jobs.extend((c, p, start, end) for c in connectors for p in sorted(c.platforms))
        start = end
    result = CollectResult()
    if not jobs:
        return 0
    pending = asyncio.create_task(_feed(jobs[0][0], jobs[0][1], jobs[0][2], jobs[0][3], result))
    for i, (connector, platform, _since, window_end) in enumerate(jobs):
        records = await pending
        if i + 1 < len(jobs):
            nxt = jobs[i + 1]
            pending = asyncio.create_task(_feed(nxt[0], nxt[1], nxt[2], nxt[3], result))
        await _store_feed(db, f"{connector.name}:{platform.value}", records, window_end, result)
        if on_chunk is not None:
            on_chunk(i + 1, len(jobs))
        if after_window is not None and (i + 1 == len(jobs) or jobs[i + 1][3] != window_end):
            await after_window(window_end)
    total = sum(result.videos.values())
    log.info("catalog.backfill.done", days=days, videos=total, failures=len(result.failures))
    return total
