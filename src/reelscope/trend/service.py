"""Trend reads (spec §4.3) and the merge of a detection run into the region's day group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis import momentum as momentum_analysis
from reelscope.analysis.trends import DetectedTrend, Promotion, match_known
from reelscope.kit import dates
from reelscope.kit.caches import ReadCaches
from reelscope.kit.clock import iso
from reelscope.kit.errors import InvalidDateRange, UnknownRegion
from reelscope.kit.ids import new_id
from reelscope.models.trends import Trend, TrendGroup, TrendRanking, TrendRegion
from reelscope.trend import repository
from reelscope.trend.regions import DEFAULT_REGIONS, GLOBAL
from reelscope.trend.schemas import EmergingQuery, TrendQuery

EMERGING_STATUSES = (momentum_analysis.NEW, momentum_analysis.RISING)
# a trend re-detected within this long keeps its identity (and trend_id) in the region
IDENTITY_MEMORY = timedelta(days=3)


async def seed_default_regions(session: AsyncSession) -> None:
    """Insert the default regions that are missing (first start; tests)."""
    present = {r.code for r in await repository.list_regions(session)}
    for seed in DEFAULT_REGIONS:
        if seed.code not in present:
            session.add(TrendRegion(**seed._asdict()))
    await session.flush()


async def regions(session: AsyncSession) -> Sequence[TrendRegion]:
    return await repository.list_regions(session)


async def region_or_400(session: AsyncSession, code: str) -> TrendRegion:
    region = await repository.get_region(session, code.lower())
    if region is None:
        available = ", ".join(r.code for r in await repository.list_regions(session))
        raise UnknownRegion(f"Unknown region {code!r}; available regions: {available}")
    return region


def local_day(region: TrendRegion, moment: datetime) -> date:
    return moment.astimezone(ZoneInfo(region.timezone)).date()


# --- rendering ----------------------------------------------------------------------------------------


def _momentum(row: Any) -> dict[str, Any]:
    # seeded from discovery-time signals when the row is created (§4.3), so never null here
    return {
        "status": row.momentum_status,
        "score": row.momentum_score,
        "views_per_hour": row.momentum_views_per_hour,
        "updated_at": iso(row.momentum_updated_at),
    }


def _trend_info(trend: Any) -> dict[str, Any]:
    return {
        "id": trend.id,
        "name": trend.name,
        "description": trend.description,
        "trend_type": trend.trend_type,
    }


def _row(row: Any, exemplars: orjson.Fragment | None) -> dict[str, Any]:
    """A group's row from ``repository.rows_of_groups``, with its ``top_exemplars`` unless None."""
    out: dict[str, Any] = {
        "id": row.id,
        "trend_id": row.trend_id,
        "trend_group_id": row.group_id,
        "ranking": row.ranking,
        "detected_at": iso(row.detected_at),
        "last_seen_at": iso(row.last_seen_at),
        "origin_region_codes": row.origin_region_codes,
        "global_confidence": row.global_confidence,
        "momentum": _momentum(row),
        "trend": {**_trend_info(row), "id": row.trend_id},  # the row's own id is not the trend's
    }
    if exemplars is not None:
        out["top_exemplars"] = exemplars
    return out


def _group(
    group: TrendGroup, rows: list[Any], exemplars: dict[str, orjson.Fragment] | None
) -> dict[str, Any]:
    return {
        "id": group.id,
        "title": group.title,
        "region": group.region,
        "local_date": group.local_date.isoformat(),
        "trends": [_row(r, None if exemplars is None else exemplars[r.id]) for r in rows],
    }


async def _render_groups(
    session: AsyncSession, groups: Sequence[TrendGroup], limit: int, top: int, caches: ReadCaches
) -> list[orjson.Fragment]:
    """The groups (``TrendGroupOut``) with their top ``limit`` rows, each as its JSON. A group is kept
    rendered per (``limit``, ``top``) in ``ReadCaches`` under its ``version``, which every change of what
    it shows moves (``TrendGroup.version``, ADR 0062), so a request reads the window's groups and joins
    their bytes; a group not kept reads its rows with ``ranking <= limit``
    (``ix_trend_rankings_group_ranking``) and no more (ADR 0038), and the first ``top`` of their
    exemplars from the stored JSON."""
    rendered: dict[str, orjson.Fragment] = {}
    for group in groups:
        hit, kept = caches.lookup(("trend.group", group.id, limit, top), group.version)
        if hit:
            rendered[group.id] = kept
    missing = [group for group in groups if group.id not in rendered]
    if missing:
        by_group: dict[str, list[Any]] = {g.id: [] for g in missing}
        rows = await repository.rows_of_groups(session, [g.id for g in missing], limit=limit)
        for row in rows:
            by_group[row.group_id].append(row)
        exemplars = await _top_exemplars(session, rows, top) if top > 0 else None
        for group in missing:
            serialized = orjson.dumps(_group(group, by_group[group.id], exemplars))
            rendered[group.id] = orjson.Fragment(serialized)
            # its rows were read after its version, so are never older than it (on PostgreSQL each
            # statement reads its own snapshot: they may be newer, kept under a version already past)
            key = ("trend.group", group.id, limit, top)
            caches.keep(key, group.version, rendered[group.id], nbytes=len(serialized))
    return [rendered[group.id] for group in groups]


async def _top_exemplars(session: AsyncSession, rows: Sequence[Any], top: int) -> dict[str, orjson.Fragment]:
    """The first ``top`` exemplars of each row as serialized JSON, by row id."""
    stored = await repository.exemplars_of(session, [row.id for row in rows])
    return {
        row.id: orjson.Fragment(orjson.dumps(orjson.loads(stored.get(row.id, "[]"))[:top])) for row in rows
    }


def _moment(value: str | None, name: str, region: TrendRegion, *, end: bool) -> datetime | None:
    """ISO 8601 to UTC (checked by ``TrendQuery``, kit/schemas.py ``IsoMoment``). A bare date is a day of
    the region's own calendar, both ends included (§2.5 ``local_date``): a start is that day's first
    instant, an end its last."""
    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == len("YYYY-MM-DD"):
            return dates.day_edge(date.fromisoformat(text), ZoneInfo(region.timezone), end=end)
        return dates.as_utc(datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00")))
    except ValueError:  # not a date, or beyond the calendar the API reads (OutOfRange)
        raise InvalidDateRange(f"{name} must be an ISO 8601 date or timestamp") from None


def window(query: TrendQuery, region: TrendRegion, now: datetime) -> tuple[datetime, datetime]:
    """The query's [start, end], by default the last 24 hours."""
    start = _moment(query.start_date, "start_date", region, end=False) or now - timedelta(hours=24)
    end = _moment(query.end_date, "end_date", region, end=True) or now
    if start > end:
        raise InvalidDateRange("start_date must not be after end_date")
    return start, end


async def list_groups(
    session: AsyncSession, query: TrendQuery, now: datetime, caches: ReadCaches
) -> list[orjson.Fragment]:
    """GET /v1/trends: the region's day groups in the query's window."""
    region = await region_or_400(session, query.region)
    start, end = window(query, region, now)
    return await groups_in_window(
        session, region, start, end, limit=query.limit, top_exemplars=query.top_exemplars, caches=caches
    )


async def todays_groups(
    session: AsyncSession, query: TrendQuery, now: datetime, caches: ReadCaches
) -> list[orjson.Fragment]:
    """GET /v1/trends/digest: today's group; the window parameters are validated all the same."""
    region = await region_or_400(session, query.region)
    window(query, region, now)
    return await todays_group(
        session, region, now, limit=query.limit, top_exemplars=query.top_exemplars, caches=caches
    )


async def emerging_page(session: AsyncSession, query: EmergingQuery, now: datetime) -> dict[str, Any]:
    """GET /v1/trends/emerging: the region, when, and its new or rising trends."""
    region = await region_or_400(session, query.region)
    rows = await emerging(session, region, now, limit=query.limit, top_exemplars=query.top_exemplars)
    return {"region": region.code, "generated_at": iso(now), "data": rows}


async def groups_in_window(
    session: AsyncSession,
    region: TrendRegion,
    start: datetime,
    end: datetime,
    *,
    limit: int,
    top_exemplars: int,
    caches: ReadCaches,
) -> list[orjson.Fragment]:
    """Day groups of the region whose local day overlaps [start, end], newest first (§4.3)."""
    groups = await repository.groups_between(
        session, region.code, local_day(region, start), local_day(region, end)
    )
    return await _render_groups(session, groups, limit, top_exemplars, caches)


async def todays_group(
    session: AsyncSession,
    region: TrendRegion,
    now: datetime,
    *,
    limit: int,
    top_exemplars: int,
    caches: ReadCaches,
) -> list[orjson.Fragment]:
    """Today's group, where today is the current date in the region's own timezone (§4.3)."""
    group = await repository.get_group(session, region.code, local_day(region, now))
    return await _render_groups(session, [group] if group else [], limit, top_exemplars, caches)


async def emerging(
    session: AsyncSession, region: TrendRegion, now: datetime, *, limit: int, top_exemplars: int
) -> list[dict[str, Any]]:
    """Trends currently new or rising, by momentum score (§4.3); maintained state only, no scraping."""
    rows = await repository.emerging_rows(session, region.code, now - timedelta(hours=24), EMERGING_STATUSES)
    latest: dict[str, tuple[TrendRanking, Trend]] = {}
    for row, trend in rows:
        seen = latest.get(trend.id)
        if seen is None or row.last_seen_at > seen[0].last_seen_at:
            latest[trend.id] = (row, trend)
    ordered = sorted(
        latest.values(), key=lambda rt: (-(rt[0].momentum_score or 0.0), rt[0].ranking, rt[1].id)
    )[:limit]
    out = []
    for row, trend in ordered:
        item: dict[str, Any] = {
            "id": row.id,
            "trend_id": trend.id,
            "ranking": row.ranking,
            "region": row.region,
            "status": row.momentum_status,
            "momentum_score": row.momentum_score,
            "views_per_hour": row.momentum_views_per_hour,
            "detected_at": iso(row.detected_at),
            "last_seen_at": iso(row.last_seen_at),
            "exemplar_count": len(row.exemplars),
            "trend": _trend_info(trend),
        }
        if top_exemplars > 0:
            item["top_exemplars"] = row.exemplars[:top_exemplars]
        out.append(item)
    return out


# --- merging a run into the day group -----------------------------------------------------------------


@dataclass(frozen=True)
class MergedRow:
    row: TrendRanking
    trend: Trend
    is_new: bool


async def merge_run(
    session: AsyncSession,
    region: TrendRegion,
    run_at: datetime,
    detected: Sequence[DetectedTrend],
    exemplars: dict[str, dict[str, Any]],
    promotions: Sequence[Promotion] = (),
) -> tuple[TrendGroup, list[MergedRow]]:
    """Fold one run's trends into the region's group of the local day (§4.3).

    A trend that shares a feature with one already known in the region keeps its ``trend_id``; a row
    re-detected on the same day advances ``last_seen_at`` and is never duplicated. Rankings of the
    whole group are recomputed by score, 1 the top. ``exemplars`` maps catalog video ids to the
    snapshot a client sees.
    """
    day = local_day(region, run_at)
    group = await repository.get_group(session, region.code, day)
    if group is None:
        group = TrendGroup(
            region=region.code,
            local_date=day,
            title=f"{region.name} trends, {day.isoformat()}",
            created_at=run_at,
            updated_at=run_at,
        )
        session.add(group)
        await session.flush()
    group.updated_at = run_at
    group.version = new_id()  # what it shows changes: kept renderings of it are not served (ADR 0062)

    known = {t.id: t for t in await repository.recent_trends(session, region.code, run_at - IDENTITY_MEMORY)}
    rows = {r.trend_id: r for r in await repository.rows_of_group(session, group.id)}
    promoted = {p.trend.key: p for p in promotions}
    candidates: list[tuple[DetectedTrend, Promotion | None]] = [(p.trend, p) for p in promotions]
    candidates += [(t, None) for t in detected if t.key not in promoted]

    merged: list[MergedRow] = []
    redescribed: set[str] = set()
    for found, promotion in candidates:
        trend_id = match_known(found, {tid: frozenset(t.feature_keys) for tid, t in known.items()})
        if trend_id is None:
            trend = Trend(
                region=region.code,
                key=found.key,
                feature_keys=sorted(found.feature_keys),
                name=found.name,
                description=found.description,
                trend_type=found.trend_type,
                first_detected_at=run_at,
                last_seen_at=run_at,
            )
            session.add(trend)
            await session.flush()
            known[trend.id] = trend
        snapshots = [exemplars[v] for v in found.exemplar_ids if v in exemplars]
        row = rows.get(trend_id) if trend_id is not None else None
        # nothing the day's row does not show: a later run holding only the story's tail (its first
        # videos now before the run's 24 hours, which are no baseline for the rest: ADR 0051) is no new
        # sighting of the row, which keeps its fuller picture, its description and its momentum's videos
        held = {s.get("video_id") for s in row.exemplars or ()} if row is not None else set()
        tail = row is not None and run_at >= row.last_seen_at and bool(snapshots)
        if row is not None and tail and all(s.get("video_id") in held for s in snapshots):
            trend = known[row.trend_id]
            trend.feature_keys = sorted(set(trend.feature_keys) | found.feature_keys)
            merged.append(MergedRow(row=row, trend=trend, is_new=False))
            continue
        if trend_id is not None:
            trend = known[trend_id]
            trend.feature_keys = sorted(set(trend.feature_keys) | found.feature_keys)
            if run_at >= trend.last_seen_at and trend.description != found.description:
                trend.description = found.description
                redescribed.add(trend.id)  # shown by the rows of earlier days' groups too
            trend.last_seen_at = max(trend.last_seen_at, run_at)
        row = rows.get(trend.id)
        is_new = row is None
        if row is None:
            total_views = sum(int(s.get("views") or 0) for s in snapshots)
            age_hours = _mean_age_hours(snapshots, run_at)
            seeded = momentum_analysis.seed(
                burst_ratio=found.ratio, exemplar_views=total_views, exemplar_age_hours=age_hours
            )
            row = TrendRanking(
                group_id=group.id,
                trend_id=trend.id,
                region=region.code,
                ranking=0,
                detected_at=run_at,
                seeded_status=seeded.status,
                seeded_score=seeded.score,
                seeded_views_per_hour=seeded.views_per_hour,
                momentum_status=seeded.status,
                momentum_score=seeded.score,
                momentum_views_per_hour=seeded.views_per_hour,
                momentum_updated_at=run_at,
            )
            session.add(row)
            rows[trend.id] = row
        if not is_new and run_at < row.last_seen_at:
            # an older run landing late (the first-start backfill): it can only move discovery earlier
            row.detected_at = min(row.detected_at, run_at)
            merged.append(MergedRow(row=row, trend=trend, is_new=False))
            continue
        row.last_seen_at = run_at
        row.score = found.score
        row.burst_ratio = found.ratio
        row.count_recent = found.count_recent
        row.median_views = found.median_views
        row.per_platform = dict(found.per_platform)
        row.velocity_band = found.velocity_band
        row.exemplars = snapshots
        if region.code == GLOBAL and promotion is not None:
            row.origin_region_codes = list(promotion.origin_regions)
            row.global_confidence = promotion.confidence
        merged.append(MergedRow(row=row, trend=trend, is_new=is_new))

    for rank, row in enumerate(sorted(rows.values(), key=lambda r: (-r.score, r.trend_id)), start=1):
        row.ranking = rank
    await session.flush()
    await repository.new_group_versions(session, showing=redescribed)
    return group, merged


def _mean_age_hours(snapshots: Sequence[dict[str, Any]], now: datetime) -> float:
    ages = []
    for snap in snapshots:
        published = snap.get("publish_date")
        if isinstance(published, str):
            moment = datetime.fromisoformat(published)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=now.tzinfo)
            ages.append(max(1.0, (now - moment).total_seconds() / 3600))
    return sum(ages) / len(ages) if ages else 24.0
