"""The momentum loop (spec §4.3): about every 2 hours, re-read the exemplars' views and likes through
the connectors only (no catalog writes, no scraping of new videos) and reassess each live trend row."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from reelscope.analysis import momentum as momentum_analysis
from reelscope.collectors.base import Connector, ConnectorError
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform
from reelscope.models.trends import TrendReading
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
    connectors: Sequence[Connector], wanted: dict[str, set[str]]
) -> tuple[dict[tuple[str, str], tuple[int, int]], int]:
    """Current (views, likes) by (platform, external id), and how many sources failed."""
    stats: dict[tuple[str, str], tuple[int, int]] = {}
    failures = 0
    for platform_name, external_ids in wanted.items():
        platform = Platform(platform_name)
        connector = next((c for c in connectors if platform in c.platforms), None)
        if connector is None:
            continue
        try:
            for stat in await connector.videos_stats(platform, sorted(external_ids)):
                stats[(platform_name, stat.external_id)] = (stat.views, stat.likes)
        except ConnectorError as exc:
            failures += 1
            log.warning("trend.momentum.source_failed", platform=platform_name, error_type=type(exc).__name__)
    return stats, failures


async def refresh(db: Database, connectors: Sequence[Connector], now: datetime) -> MomentumReport:
    async with db.transaction(write=False) as session:
        rows = await repository.rows_seen_since(session, now - LIVE_FOR)
        wanted: dict[str, set[str]] = defaultdict(set)
        for row in rows:
            for exemplar in row.exemplars:
                if exemplar.get("external_id"):
                    wanted[exemplar["platform"]].add(exemplar["external_id"])
    stats, failures = await _read_stats(connectors, wanted)
    async with db.transaction() as session:
        rows = await repository.rows_seen_since(session, now - LIVE_FOR)
        for row in rows:
            exemplars = []
            views = likes = 0
            for exemplar in row.exemplars:
                current = stats.get((exemplar["platform"], exemplar.get("external_id", "")))
                if current is not None:
                    exemplar = {**exemplar, "views": current[0], "likes": current[1]}
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
    report = MomentumReport(rows=len(rows), exemplars_read=len(stats), failures=failures)
    log.info("trend.momentum.refreshed", rows=report.rows, exemplars=report.exemplars_read, failures=failures)
    return report
