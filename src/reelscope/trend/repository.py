"""SQL for regions, trend groups, trends and their rows."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Text, cast, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.ids import new_id
from reelscope.models.trends import Trend, TrendGroup, TrendRanking, TrendReading, TrendRegion, TrendRun


async def list_regions(session: AsyncSession) -> Sequence[TrendRegion]:
    return (
        (await session.execute(select(TrendRegion).order_by(TrendRegion.position, TrendRegion.code)))
        .scalars()
        .all()
    )


async def get_region(session: AsyncSession, code: str) -> TrendRegion | None:
    return await session.get(TrendRegion, code)


async def groups_between(
    session: AsyncSession, region: str, first_day: date, last_day: date
) -> Sequence[TrendGroup]:
    stmt = (
        select(TrendGroup)
        .where(
            TrendGroup.region == region, TrendGroup.local_date >= first_day, TrendGroup.local_date <= last_day
        )
        .order_by(TrendGroup.local_date.desc())
    )
    return (await session.execute(stmt)).scalars().all()


async def get_group(session: AsyncSession, region: str, day: date) -> TrendGroup | None:
    stmt = select(TrendGroup).where(TrendGroup.region == region, TrendGroup.local_date == day)
    return (await session.execute(stmt)).scalar_one_or_none()


# what a group's row shows of itself (trend/service.py ``_row``), its exemplars as their stored JSON
_ROW_COLUMNS = (
    TrendRanking.id,
    TrendRanking.group_id,
    TrendRanking.ranking,
    TrendRanking.detected_at,
    TrendRanking.last_seen_at,
    TrendRanking.origin_region_codes,
    TrendRanking.global_confidence,
    TrendRanking.momentum_status,
    TrendRanking.momentum_score,
    TrendRanking.momentum_views_per_hour,
    TrendRanking.momentum_updated_at,
)


async def rows_of_groups(session: AsyncSession, group_ids: Sequence[str], *, limit: int) -> Sequence[Any]:
    """The top ``limit`` rows of each group (by ranking: 1, 2, … within a group) with their trend,
    without their exemplars (``exemplars_of``)."""
    if not group_ids:
        return []
    stmt = (
        select(*_ROW_COLUMNS, Trend.id.label("trend_id"), Trend.name, Trend.description, Trend.trend_type)
        .join(Trend, Trend.id == TrendRanking.trend_id)
        .where(TrendRanking.group_id.in_(group_ids), TrendRanking.ranking <= limit)
        .order_by(TrendRanking.group_id, TrendRanking.ranking)
    )
    return (await session.execute(stmt)).all()


async def exemplars_of(session: AsyncSession, ranking_ids: Sequence[str]) -> dict[str, str]:
    """The stored JSON of the rows' exemplars (most of a row's bytes), by row id, unparsed."""
    found: dict[str, str] = {}
    for start in range(0, len(ranking_ids), 500):
        chunk = list(ranking_ids[start : start + 500])
        # the JSON as stored: a cast in SQL (asyncpg would decode the json type on its way)
        stmt = select(TrendRanking.id, cast(TrendRanking.exemplars, Text)).where(TrendRanking.id.in_(chunk))
        found.update({str(row_id): str(text) for row_id, text in await session.execute(stmt)})
    return found


async def new_group_versions(
    session: AsyncSession, *, groups: Collection[str] = (), showing: Collection[str] = ()
) -> None:
    """A new ``version`` for ``groups`` and for the groups whose rows show a trend of ``showing``: what
    they show changed (ADR 0062)."""
    conditions: list[ColumnElement[bool]] = []
    if groups:
        conditions.append(TrendGroup.id.in_(list(groups)))
    if showing:
        shown_by = select(TrendRanking.group_id).where(TrendRanking.trend_id.in_(list(showing)))
        conditions.append(TrendGroup.id.in_(shown_by))
    if conditions:
        stmt = update(TrendGroup).where(or_(*conditions)).values(version=new_id())
        await session.execute(stmt, execution_options={"synchronize_session": False})


async def emerging_rows(
    session: AsyncSession, region: str, seen_since: datetime, statuses: Sequence[str]
) -> Sequence[tuple[TrendRanking, Trend]]:
    stmt = (
        select(TrendRanking, Trend)
        .join(Trend, Trend.id == TrendRanking.trend_id)
        .where(
            TrendRanking.region == region,
            TrendRanking.last_seen_at >= seen_since,
            TrendRanking.momentum_status.in_(statuses),
        )
    )
    return [(r, t) for r, t in (await session.execute(stmt)).all()]


async def recent_trends(session: AsyncSession, region: str, seen_since: datetime) -> Sequence[Trend]:
    stmt = select(Trend).where(Trend.region == region, Trend.last_seen_at >= seen_since)
    return (await session.execute(stmt)).scalars().all()


async def rows_of_group(session: AsyncSession, group_id: str) -> Sequence[TrendRanking]:
    stmt = select(TrendRanking).where(TrendRanking.group_id == group_id)
    return (await session.execute(stmt)).scalars().all()


async def rows_seen_since(
    session: AsyncSession, seen_since: datetime, *, region: str | None = None
) -> Sequence[TrendRanking]:
    stmt = select(TrendRanking).where(TrendRanking.last_seen_at >= seen_since)
    if region is not None:
        stmt = stmt.where(TrendRanking.region == region)
    return (await session.execute(stmt)).scalars().all()


async def rows_read_at(session: AsyncSession, ranking_ids: Sequence[str], at: datetime) -> set[str]:
    """Which of the rows already have a momentum reading at ``at``."""
    if not ranking_ids:
        return set()
    stmt = select(TrendReading.ranking_id).where(
        TrendReading.ranking_id.in_(ranking_ids), TrendReading.at == at
    )
    return set((await session.execute(stmt)).scalars().all())


async def readings_of(session: AsyncSession, ranking_id: str) -> Sequence[TrendReading]:
    stmt = select(TrendReading).where(TrendReading.ranking_id == ranking_id).order_by(TrendReading.at)
    return (await session.execute(stmt)).scalars().all()


async def get_run(session: AsyncSession, region: str, scheduled_for: datetime) -> TrendRun | None:
    stmt = select(TrendRun).where(TrendRun.region == region, TrendRun.scheduled_for == scheduled_for)
    return (await session.execute(stmt)).scalar_one_or_none()


async def trends_by_id(session: AsyncSession, trend_ids: Sequence[str]) -> Sequence[Trend]:
    if not trend_ids:
        return []
    return (await session.execute(select(Trend).where(Trend.id.in_(trend_ids)))).scalars().all()


async def groups_count(session: AsyncSession) -> int:
    return len((await session.execute(select(TrendGroup.id).limit(1))).all())
