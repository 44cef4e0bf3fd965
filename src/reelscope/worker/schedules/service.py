"""Schedules: create, pause, and fire due rows as jobs (ARCHITECTURE §5).

Each firing creates one jobs row (deduplicated per schedule and firing time) in the same transaction that
moves ``next_run_at`` on, so a firing is never lost and never doubled: the job is the durable record and
the queue message follows the commit. The job's task receives the schedule's params plus
``schedule_id`` and ``scheduled_for`` (ISO 8601).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.clock import iso
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.models import Job, Schedule
from reelscope.worker import registry
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.schedules import cadence as cadences
from reelscope.worker.schedules import repository

log = get_logger(__name__)


async def create(
    session: AsyncSession,
    *,
    task: str,
    job_type: str,
    cadence: str,
    at: datetime,
    timezone: str = "UTC",
    team_id: str | None = None,
    resource_type: str | None = None,
    resource_id: str | None = None,
    params: dict[str, Any] | None = None,
    first_run_at: datetime | None = None,
    poll_url: str | None = None,
    webhook_event: str | None = None,
) -> Schedule:
    """A schedule firing ``task``; ``cadence`` is a stored cadence string (``schedules.cadence``).

    The first firing is ``first_run_at`` if given (required for ``once``), else the cadence's next after
    ``at``.
    """
    registry.get(task)
    parsed = cadences.parse(cadence)
    zone = cadences.zone(timezone)
    next_run_at = first_run_at or parsed.next_after(at, zone)
    if next_run_at is None:
        raise cadences.InvalidCadence("once needs first_run_at")
    return repository.add(
        session,
        Schedule(
            id=new_id(),
            team_id=team_id,
            task=task,
            job_type=job_type,
            resource_type=resource_type,
            resource_id=resource_id,
            cadence=parsed.spec,
            timezone=timezone,
            params=params or {},
            poll_url=poll_url,
            webhook_event=webhook_event,
            is_active=True,
            next_run_at=next_run_at,
            last_run_at=None,
            run_count=0,
            created_at=at,
            updated_at=at,
        ),
    )


async def for_resource(session: AsyncSession, resource_type: str, resource_id: str) -> Sequence[Schedule]:
    return await repository.list_for_resource(session, resource_type, resource_id)


def set_active(schedule: Schedule, active: bool, *, at: datetime) -> None:
    """Pause, or resume from now on (missed firings are not made up)."""
    schedule.is_active = active
    schedule.updated_at = at
    if active:
        schedule.next_run_at = next_run(schedule, after=at)


def next_run(schedule: Schedule, *, after: datetime) -> datetime | None:
    """The first firing of ``schedule`` strictly after ``after``."""
    parsed = cadences.parse(schedule.cadence)
    if parsed.kind == "interval" and schedule.next_run_at is not None and parsed.seconds is not None:
        # stay on the original grid (every N seconds from the first firing)
        step = timedelta(seconds=parsed.seconds)
        if schedule.next_run_at > after:
            return schedule.next_run_at
        missed = math.floor((after - schedule.next_run_at) / step) + 1
        return schedule.next_run_at + missed * step
    return parsed.next_after(after, cadences.zone(schedule.timezone))


async def dispatch_due(session: AsyncSession, *, now: datetime, limit: int = 100) -> list[Job]:
    """Fire every due schedule once: a job per firing, ``next_run_at`` moved past ``now``.

    Firings missed while nothing dispatched (downtime) collapse into one. Two dispatchers at once are
    harmless: rows are claimed (``repository.lock_due``) and each advance is conditional on the firing
    it claimed, and the job's dedupe key makes a repeated firing return the first job.
    """
    fired: list[Job] = []
    for schedule in await repository.lock_due(session, now, limit):
        fired_for = schedule.next_run_at
        if fired_for is None:
            continue
        following = next_run(schedule, after=now)
        if not await repository.advance(
            session, schedule.id, fired_for=fired_for, next_run_at=following, now=now
        ):
            continue
        if schedule.task not in registry.registered():
            # a worker deployed without the family's tasks: skip this firing loudly rather than let one
            # row fail every pass (it would stay due and block the rows behind it)
            log.error("schedule.unknown_task", schedule_id=schedule.id, task=schedule.task)
            continue
        params = {**schedule.params, "schedule_id": schedule.id, "scheduled_for": iso(fired_for)}
        job = await jobs_service.create(
            session,
            task=schedule.task,
            type=schedule.job_type,
            at=now,
            team_id=schedule.team_id,
            resource_type=schedule.resource_type,
            resource_id=schedule.resource_id,
            params=params,
            dedupe_key=f"schedule:{schedule.id}:{iso(fired_for)}",
            poll_url=schedule.poll_url,
            webhook_event=schedule.webhook_event,
        )
        fired.append(job)
        log.info(
            "schedule.fired",
            schedule_id=schedule.id,
            task=schedule.task,
            scheduled_for=iso(fired_for),
            next_run_at=iso(following),
            job_id=job.id,
        )
    return fired
