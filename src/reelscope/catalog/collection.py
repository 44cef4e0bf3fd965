"""Continuous collection: the bodies of the job engine's periodic catalog tasks (ARCHITECTURE §5, §7).

``collect`` pulls every enabled connector's discovery feed (every few minutes), ``refresh_recent_stats``
re-reads the counters of videos younger than a week and a day, and ``backfill`` fills an empty catalog
on first start. Each opens its own transactions (one unit of work per source and batch), so a failing
source costs only its own share.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import repository as repo
from reelscope.catalog.service import ingest_videos, views_frozen_after
from reelscope.collectors.base import (
    Capability,
    Connector,
    ConnectorError,
    RateLimited,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.budget import background
from reelscope.collectors.routing import Sources, bucket_of
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
# the digests' window (§4.1): a budgeted stats refresh spends on these videos first
DIGEST_WINDOW = timedelta(hours=48)
# how often a real source's country chart is pulled, and how often stats refresh runs (catalog/tasks.py):
# the planner spreads a day's budget over the cycles left until the reset
FEED_EVERY = timedelta(minutes=30)
REFRESH_EVERY = timedelta(minutes=30)
# videos ingested per transaction: under 0.5 s of the write lock on the busy 2-core dev box (500 took
# up to 1.6 s there)
STORE_BATCH = 200


@dataclass
class CollectResult:
    videos: dict[str, int] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    # feeds not fetched this cycle because they were fetched recently (their next turn is later)
    not_due: int = 0


def world_feeds(connectors: Sequence[Connector]) -> list[Connector]:
    """The sources whose feed is every video posted (the sandbox world): what a backfill can replay."""
    return [c for c in connectors if Capability.WORLD_FEED in c.capabilities]


async def _feed(
    sources: Sources | None,
    connector: Connector,
    platform: Platform,
    region: str | None,
    since: datetime,
    until: datetime,
    result: CollectResult,
) -> list[VideoRecord]:
    """One discovery feed pull; a failing source is logged and recorded, and yields nothing."""
    source = _source_key(connector, platform, region)

    def pull(c: Connector) -> Awaitable[list[VideoRecord]]:
        return c.discovery_feed(platform, region, since, until)

    try:
        return await (sources.call(connector, pull) if sources is not None else pull(connector))
    except ConnectorError as exc:
        log.warning("catalog.collect.failed", source=source, error=type(exc).__name__, detail=str(exc))
        result.failures[source] = type(exc).__name__
        return []


def _source_key(connector: Connector, platform: Platform, region: str | None) -> str:
    return f"{connector.name}:{platform.value}" + (f":{region}" if region else "")


async def _store_feed(
    db: Database, source: str, records: list[VideoRecord], found_at: datetime | None, result: CollectResult
) -> None:
    """A feed's records, ``STORE_BATCH`` a transaction: SQLite's one write lock is never held for long
    (a paid request's debit or a user job's claim waits for it, ADR 0042)."""
    for start in range(0, len(records), STORE_BATCH):
        batch = records[start : start + STORE_BATCH]
        count = await db.write_retrying(partial(ingest_videos, records=batch, found_at=found_at))
        result.videos[source] = result.videos.get(source, 0) + count


async def collect(
    db: Database,
    sources: Sources,
    clock: Clock,
    since: datetime,
    until: datetime,
    *,
    regions: Sequence[str] = (),
    feed_every: timedelta = FEED_EVERY,
) -> CollectResult:
    """One collection cycle's feeds, first of the planner's priorities (issue 26 item 5), all of it
    background work (``budget.background``: within each source's background share of its quota).

    A world feed (the sandbox) is pulled for [since, until) on every cycle. A country's popular chart is
    pulled for each of ``regions`` when its turn has come (``Ledger.claim``: at most once per
    ``feed_every``, shared by every process), so a real source spends its quota evenly over the day. A
    source that is spent (``RateLimited``) is asked nothing more this cycle. One transaction per feed; a
    failing source is logged and skipped while the others still land. New videos are found now."""
    result = CollectResult()
    found_at = clock.now()
    with background():
        for connector in world_feeds(sources.connectors):
            for platform in sorted(connector.capabilities[Capability.WORLD_FEED]):
                records = await _feed(sources, connector, platform, None, since, until, result)
                await _store_feed(db, _source_key(connector, platform, None), records, found_at, result)
        for connector in sources.offering(Capability.POPULAR_FEED):
            if Capability.WORLD_FEED in connector.capabilities:
                continue  # its world feed covers every region already
            await _collect_charts(db, sources, connector, since, until, regions, feed_every, found_at, result)
    log.info(
        "catalog.collect.done",
        videos=sum(result.videos.values()),
        failures=len(result.failures),
        not_due=result.not_due,
    )
    return result


async def _collect_charts(
    db: Database,
    sources: Sources,
    connector: Connector,
    since: datetime,
    until: datetime,
    regions: Sequence[str],
    feed_every: timedelta,
    found_at: datetime,
    result: CollectResult,
) -> None:
    for platform in sorted(connector.capabilities[Capability.POPULAR_FEED]):
        for region in regions:
            key = f"feed:{platform.value}:{region}"
            if sources.ledger is not None and not await sources.ledger.claim(connector.name, key, feed_every):
                result.not_due += 1
                continue
            records = await _feed(sources, connector, platform, region, since, until, result)
            failed = result.failures.get(_source_key(connector, platform, region))
            if failed is not None and sources.ledger is not None:
                await sources.ledger.release(connector.name, key)  # the next cycle tries again
            if failed == RateLimited.__name__:
                return  # spent: nothing else of this source until its reset
            await _store_feed(db, _source_key(connector, platform, region), records, found_at, result)


@dataclass
class RefreshResult:
    refreshed: int = 0
    missing: int = 0
    failed: int = 0
    # videos left for a later cycle because the source's budget for this one was used
    deferred: int = 0


def _stats_sources(sources: Sources, platform: Platform) -> list[Connector]:
    """The sources background refreshes may use: on-demand-only ones (a scraper) are never used here."""
    return [
        c for c in sources.offering(Capability.STATS, platform) if not getattr(c, "on_demand_only", False)
    ]


async def _allowance(sources: Sources, connector: Connector, now: datetime, every: timedelta) -> int | None:
    """How many stats calls this cycle may make (None: no quota): what is left of the source's background
    share, spread evenly over the cycles until its reset, so a day of cycles never passes the share."""
    bucket = bucket_of(connector, Capability.STATS)
    if bucket is None or sources.ledger is None:
        return None
    with background():
        left = await sources.ledger.remaining(connector.name, bucket)
    if left is None:
        return None
    cycles_left = max(1, math.ceil((bucket.resets.after(now) - now) / every))
    return max(left // cycles_left, 1 if left else 0)


async def refresh_recent_stats(
    db: Database,
    sources: Sources,
    clock: Clock,
    *,
    max_age: timedelta = refresh_window,
    every: timedelta = REFRESH_EVERY,
) -> RefreshResult:
    """Re-read the counters of videos posted within ``max_age`` and append a snapshot each (background
    work, the planner's second priority). A source without a quota (the sandbox) refreshes them all; a
    source with one gets the calls its budget allows this cycle (``_allowance``), spent on the videos
    still inside the 48-hour digest window first (§4.1), the least recently observed first."""
    now = clock.now()
    async with db.transaction(write=False) as session:
        videos = await repo.videos_for_refresh(session, now - max_age)
    wanted: dict[str, dict[str, tuple[str, datetime]]] = {}
    order: dict[str, list[str]] = {}
    for video_id, platform_name, external_id, published_at in videos:
        wanted.setdefault(platform_name, {})[external_id] = (video_id, published_at)
        order.setdefault(platform_name, []).append(external_id)
    result = RefreshResult()
    with background():
        for platform_name, by_external in wanted.items():
            platform = Platform(platform_name)
            candidates = _stats_sources(sources, platform)
            if not candidates:
                continue
            source = candidates[0]
            allowance = await _allowance(sources, source, now, every)
            ids = order[platform_name]
            if allowance is not None:
                fresh = now - DIGEST_WINDOW
                # inside the digest window first; within each part, as read: least recently observed first
                ids = sorted(ids, key=lambda i: by_external[i][1] < fresh)
            batch = int(getattr(source, "stats_batch", STATS_BATCH))
            calls = 0
            for start in range(0, len(ids), batch):
                if allowance is not None and calls >= allowance:
                    result.deferred += len(ids) - start
                    break
                chunk = ids[start : start + batch]
                calls += 1
                try:
                    answered = await sources.call(source, _stats_of(platform, chunk))
                except RateLimited as exc:
                    log.warning(
                        "catalog.refresh.rate_limited",
                        platform=platform_name,
                        retry_at=exc.retry_at.isoformat(),
                    )
                    result.deferred += len(ids) - start
                    break
                except ConnectorError as exc:
                    log.warning("catalog.refresh.failed", platform=platform_name, error=type(exc).__name__)
                    result.failed += len(chunk)
                    continue
                result.missing += len(chunk) - len(answered)
                await _store_stats(db, _stats_rows(answered, by_external), now)
                result.refreshed += len(answered)
    log.info(
        "catalog.refresh.done",
        refreshed=result.refreshed,
        missing=result.missing,
        failed=result.failed,
        deferred=result.deferred,
    )
    return result


def _stats_of(platform: Platform, ids: Sequence[str]) -> Callable[[Connector], Awaitable[list[VideoStats]]]:
    return lambda connector: connector.videos_stats(platform, ids)


def _stats_rows(
    answered: Sequence[VideoStats], by_external: dict[str, tuple[str, datetime]]
) -> list[dict[str, Any]]:
    rows = []
    for stats in answered:
        if stats.external_id not in by_external:
            continue
        video_id, published_at = by_external[stats.external_id]
        frozen = stats.fetched_at - published_at >= views_frozen_after
        rows.append(
            {
                "id": video_id,
                "published_at": published_at,
                "fetched_at": stats.fetched_at,
                "views": stats.views,
                "likes": stats.likes,
                "comments": stats.comments,
                "shares": stats.shares,
                "bookmarks": stats.bookmarks,
                "views_at_7d": stats.views if frozen else None,
            }
        )
    return rows


async def _store_stats(db: Database, rows: list[dict[str, Any]], now: datetime) -> None:
    """New counters of videos, with a snapshot each."""
    if not rows:
        return
    earliest = min(r.pop("published_at") for r in rows)

    async def store(session: AsyncSession) -> None:
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

    await db.write_retrying(store)


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
        jobs.extend((c, p, start, end) for c in world_feeds(connectors) for p in sorted(c.platforms))
        start = end
    result = CollectResult()
    if not jobs:
        return 0
    pending = asyncio.create_task(_feed(None, jobs[0][0], jobs[0][1], None, jobs[0][2], jobs[0][3], result))
    for i, (connector, platform, _since, window_end) in enumerate(jobs):
        records = await pending
        if i + 1 < len(jobs):
            nxt = jobs[i + 1]
            pending = asyncio.create_task(_feed(None, nxt[0], nxt[1], None, nxt[2], nxt[3], result))
        await _store_feed(db, f"{connector.name}:{platform.value}", records, window_end, result)
        if on_chunk is not None:
            on_chunk(i + 1, len(jobs))
        if after_window is not None and (i + 1 == len(jobs) or jobs[i + 1][3] != window_end):
            await after_window(window_end)
    total = sum(result.videos.values())
    log.info("catalog.backfill.done", days=days, videos=total, failures=len(result.failures))
    return total
