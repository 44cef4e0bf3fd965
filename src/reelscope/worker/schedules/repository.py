"""SQL for schedules. Due rows are claimed so that two dispatchers never fire the same row twice."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import Schedule


def add(session: AsyncSession, schedule: Schedule) -> Schedule:
    session.add(schedule)
    return schedule


async def get(session: AsyncSession, schedule_id: str) -> Schedule | None:
    return await session.get(Schedule, schedule_id)


async def list_for_resource(
    session: AsyncSession, resource_type: str, resource_id: str
) -> Sequence[Schedule]:
    stmt = select(Schedule).where(
        Schedule.resource_type == resource_type, Schedule.resource_id == resource_id
    )
    return (await session.execute(stmt.order_by(Schedule.created_at))).scalars().all()


async def lock_due(session: AsyncSession, now: datetime, limit: int) -> Sequence[Schedule]:
    """Due rows, locked for this transaction. PostgreSQL skips rows another dispatcher holds; SQLite's
    write transaction (BEGIN IMMEDIATE) already admits one dispatcher at a time."""
    stmt = (
        select(Schedule)
        .where(Schedule.is_active.is_(True), Schedule.next_run_at <= now)
        .order_by(Schedule.next_run_at)
        .limit(limit)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalars().all()


async def advance(
    session: AsyncSession,
    schedule_id: str,
    *,
    fired_for: datetime,
    next_run_at: datetime | None,
    now: datetime,
) -> bool:
    """Move a fired row on, only if it still shows the firing we claimed (a guard on any database)."""
    stmt = (
        update(Schedule)
        .where(Schedule.id == schedule_id, Schedule.next_run_at == fired_for, Schedule.is_active.is_(True))
        .values(
            next_run_at=next_run_at,
            last_run_at=now,
            run_count=Schedule.run_count + 1,
            is_active=next_run_at is not None,
            updated_at=now,
        )
        .returning(Schedule.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(stmt)).scalar_one_or_none() is not None
