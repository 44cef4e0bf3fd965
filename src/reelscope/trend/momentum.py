"""The momentum loop (spec §4.3): about every 2 hours, re-read the exemplars' views and likes through
the connectors only (no catalog writes, no scraping of new videos) and reassess each live trend row.

``replay`` is the same reassessment at a past run time, with the views the catalog's snapshots had
then (``reelscope trends backfill`` over an imported history, issue 17)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis import momentum as momentum_analysis
from reelscope.catalog import reads as catalog_reads
from reelscope.collectors.base import Capability, ConnectorError
from reelscope.collectors.routing import Sources
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform
from reelscope.models.trends import TrendRanking, TrendReading
from reelscope.trend import repository

log = get_logger(__name__)

# rows seen within this long keep being refreshed; older ones keep their last momentum
LIVE_FOR = timedelta(hours=48)


@dataclass(frozen=True)
class MomentumReport:
    rows: int
    exemplars_read: int
    failures: int


async def _read_stats(
    sources: Sources, wanted: dict[str, set[str]]
) -> tuple[dict[tuple[str, str], tuple[int, int]], int]:
    """Current (views, likes) by (platform, external id), and how many sources failed."""
    stats: dict[tuple[str, str], tuple[int, int]] = {}
    failures = 0
    for platform_name, external_ids in wanted.items():
        platform = Platform(platform_name)
        if not sources.offers(Capability.STATS, platform):
            continue
        try:
            for stat in await sources.videos_stats(platform, sorted(external_ids)):
                stats[(platform_name, stat.external_id)] = (stat.views, stat.likes)
        except ConnectorError as exc:
            failures += 1
            log.warning("trend.momentum.source_failed", platform=platform_name, error_type=type(exc).__name__)
    return stats, failures


async def refresh(db: Database, sources: Sources, now: datetime) -> MomentumReport:
    async with db.transaction(write=False) as session:
        rows = await repository.rows_seen_since(session, now - LIVE_FOR)
        wanted: dict[str, set[str]] = defaultdict(set)
        for row in rows:
            for exemplar in row.exemplars:
                if exemplar.get("external_id"):
                    wanted[exemplar["platform"]].add(exemplar["external_id"])
    stats, failures = await _read_stats(sources, wanted)
    async with db.transaction() as session:
        rows = await repository.rows_seen_since(session, now - LIVE_FOR)
        for row in rows:
            await _reassess(session, row, lambda e: stats.get((e["platform"], e.get("external_id", ""))), now)
    report = MomentumReport(rows=len(rows), exemplars_read=len(stats), failures=failures)
    log.info("trend.momentum.refreshed", rows=report.rows, exemplars=report.exemplars_read, failures=failures)
    return report


Current = Callable[[dict[str, Any]], "tuple[int, int] | None"]


async def _reassess(session: AsyncSession, row: TrendRanking, current: Current, now: datetime) -> None:
    """Refresh a row's exemplars with their (views, likes) at ``now`` (``current`` of an exemplar, None
    when unknown), add the reading and move its momentum to ``now``."""
    exemplars = []
    views = likes = 0
    for exemplar in row.exemplars:
        found = current(exemplar)
        if found is not None:
            exemplar = {**exemplar, "views": found[0], "likes": found[1]}
        views += int(exemplar.get("views") or 0)
        likes += int(exemplar.get("likes") or 0)
        exemplars.append(exemplar)
    # exemplars stay ordered by views descending (§2.5)
    row.exemplars = sorted(exemplars, key=lambda e: (-int(e.get("views") or 0), e["video_id"]))
    earlier = await repository.readings_of(session, row.id)
    readings = [momentum_analysis.Reading(at=r.at, views=r.views) for r in earlier if r.at < now]
    readings.append(momentum_analysis.Reading(at=now, views=views))
    session.add(TrendReading(ranking_id=row.id, at=now, views=views, likes=likes))
    seeded = momentum_analysis.Momentum(
        status=row.seeded_status, score=row.seeded_score, views_per_hour=row.seeded_views_per_hour
    )
    assessed = momentum_analysis.assess(readings, detected_at=row.detected_at, now=now, seeded=seeded)
    row.momentum_status = assessed.status
    row.momentum_score = assessed.score
    row.momentum_views_per_hour = assessed.views_per_hour
    row.momentum_updated_at = now
    await repository.new_group_versions(session, groups=[row.group_id])  # its group shows all of this


async def replay(session: AsyncSession, region: str, at: datetime) -> int:
    """The momentum loop as it would have run at ``at`` (a past run time) for ``region``'s rows live
    then: exemplar views from the catalog's snapshots taken by ``at``. Rows already read at ``at`` and
    rows a later momentum pass has assessed are left alone, so replaying twice, or beside a running
    server, changes nothing more. Returns the rows reassessed."""
    rows = [
        row
        for row in await repository.rows_seen_since(session, at - LIVE_FOR, region=region)
        if row.detected_at <= at and (row.momentum_updated_at is None or row.momentum_updated_at < at)
    ]
    read_at = await repository.rows_read_at(session, [row.id for row in rows], at)
    rows = [row for row in rows if row.id not in read_at]
    video_ids = [str(e["video_id"]) for row in rows for e in row.exemplars]
    views = await catalog_reads.views_as_of(session, video_ids, at)
    for row in rows:
        await _reassess(session, row, lambda e: views.get(str(e["video_id"])), at)
    await session.flush()
    return len(rows)
