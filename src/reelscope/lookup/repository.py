"""SQL of satellite lookups. Every read of a run, batch or job filters by team (ARCHITECTURE §9)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from reelscope.models import Job, LookupBatch, LookupRun

FAILED = "failed"


def add(session: AsyncSession, row: LookupRun | LookupBatch) -> None:
    session.add(row)


async def cached_run(
    session: AsyncSession, team_id: str, cache_key: str, since: datetime
) -> LookupRun | None:
    """The team's latest run of the same lookup started at or after ``since`` that has not failed."""
    statement = (
        select(LookupRun)
        .where(
            LookupRun.team_id == team_id,
            LookupRun.cache_key == cache_key,
            LookupRun.created_at >= since,
            LookupRun.status != FAILED,
        )
        .order_by(LookupRun.created_at.desc())
        .limit(1)
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def run(session: AsyncSession, team_id: str, run_id: str) -> LookupRun | None:
    statement = select(LookupRun).where(LookupRun.id == run_id, LookupRun.team_id == team_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def run_of_job(session: AsyncSession, team_id: str, job_id: str, type: str) -> LookupRun | None:
    statement = select(LookupRun).where(
        LookupRun.job_id == job_id, LookupRun.team_id == team_id, LookupRun.type == type
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def run_for_update(session: AsyncSession, run_id: str) -> LookupRun | None:
    """A run for its job (the job names it; the worker acts for the run's own team)."""
    statement = select(LookupRun).where(LookupRun.id == run_id).with_for_update()
    return (await session.execute(statement)).scalar_one_or_none()


async def runs(
    session: AsyncSession, team_id: str, *, type: str | None, offset: int, limit: int
) -> tuple[Sequence[LookupRun], int]:
    """A page of the team's runs, newest first, and how many there are; without their results (a
    summary shows none, and they are most of a run's bytes)."""
    where = [LookupRun.team_id == team_id]
    if type is not None:
        where.append(LookupRun.type == type)
    total = await session.scalar(select(func.count()).select_from(LookupRun).where(*where))
    page = await session.execute(
        select(LookupRun)
        .options(defer(LookupRun.result, raiseload=True))
        .where(*where)
        .order_by(LookupRun.created_at.desc(), LookupRun.id.desc())
        .offset(offset)
        .limit(limit)
    )
    return page.scalars().all(), int(total or 0)


async def runs_by_id(session: AsyncSession, team_id: str, run_ids: Sequence[str]) -> dict[str, LookupRun]:
    found = await session.execute(
        select(LookupRun).where(LookupRun.team_id == team_id, LookupRun.id.in_(run_ids))
    )
    return {row.id: row for row in found.scalars()}


async def batch(session: AsyncSession, team_id: str, batch_id: str) -> LookupBatch | None:
    statement = select(LookupBatch).where(LookupBatch.id == batch_id, LookupBatch.team_id == team_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def jobs_by_id(session: AsyncSession, team_id: str, job_ids: Sequence[str]) -> dict[str, Job]:
    found = await session.execute(select(Job).where(Job.team_id == team_id, Job.id.in_(job_ids)))
    return {row.id: row for row in found.scalars()}


async def job(session: AsyncSession, team_id: str, job_id: str, type: str) -> Job | None:
    statement = select(Job).where(Job.id == job_id, Job.team_id == team_id, Job.type == type)
    return (await session.execute(statement)).scalar_one_or_none()
